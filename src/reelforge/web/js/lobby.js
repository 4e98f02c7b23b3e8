// The lobby: every game with its art, RTP, max win and Feature Buy price; a badge where a round waits.

import { mountSeedPanel } from "./fair.js";
import { rendererFor } from "./games/index.js";
import { formatRtp, volatilityNode } from "./help.js";
import { t } from "./i18n.js";
import { $, S, api } from "./state.js";
import { el, formatX } from "./util.js";

/** A tile's picture: the game's key art with its logo over it (drawn in the game's folder, served by the
 * server); a game without them shows its renderer's symbols. */
function tileArt(g) {
  const art = g.art || {};
  if (!art.keyart) return el("div.game-art", { "data-game": g.id, "data-presentation": g.presentation, html: rendererFor(g.id).art ? rendererFor(g.id).art() : "" });
  return el("div.game-art.key", { "data-game": g.id },
    el("img.keyart", { src: art.keyart, alt: "", "aria-hidden": "true", loading: "lazy" }),
    art.logo ? el("img.logo", { src: art.logo, alt: g.title, "data-testid": "lobby-logo" }) : null);
}

export async function openLobby(token, resumeOpen = false) {
  document.title = `${t("Games")} · reelforge`;
  const lobby = $("lobby");
  lobby.replaceChildren(...S.games.map((g) => el("a.card.game-card", {
    href: `#/game/${g.id}`, "data-testid": `game-card-${g.id}`, "data-game": g.id,
  },
  tileArt(g),
  el("h2", { text: g.title }),
  el("dl.facts", {},
    el("dt", { text: t("RTP") }), el("dd", { "data-testid": "lobby-rtp", text: formatRtp(g.rtp) }),
    el("dt", { text: t("Max win") }), el("dd", { "data-testid": "lobby-max-win", text: formatX(g.max_win_x) }),
    g.volatility_bolts ? [el("dt", { text: t("Volatility") }), el("dd", {}, volatilityNode(g.volatility_bolts, g.volatility))] : null,
    g.feature_buy_price_x ? [el("dt", { text: t("Feature buy") }), el("dd", { text: t("{x} the bet", { x: formatX(g.feature_buy_price_x) }) })] : null),
  el("span.resume-badge", { hidden: true, "data-testid": "resume-badge", text: t("Unfinished round") }))));
  mountSeedPanel($("fair-panel-lobby"), api); // provably fair: the seed pair's hash, shown before any bet
  // Mark games with an unfinished round (they resume when opened): one request, an empty list when none.
  let open = [];
  try {
    open = (await api.unfinished()).map((r) => r.game);
  } catch { /* the badge is a hint only */ }
  if (token !== S.viewToken) return;
  for (const gid of open) {
    const badge = lobby.querySelector(`[data-game="${gid}"] .resume-badge`);
    if (badge) badge.hidden = false;
  }
  // Re-opening the client with a round unfinished goes straight back to it.
  if (resumeOpen && open.length) location.hash = `#/game/${open[0]}`;
}
