// The help and paytable: drawn from the help endpoint's page, pays in money at the current bet, and the
// published game ID and version a player is told to confirm.

import { rendererFor } from "./games/index.js";
import { lang, locale, t } from "./i18n.js";
import { $, S, api } from "./state.js";
import { el, formatX, parseFraction, times } from "./util.js";

export async function gameHelp(gameId) {
  if (!S.helps[gameId]) S.helps[gameId] = await api.help(gameId, lang());
  return S.helps[gameId];
}

export function formatRtp(rtp) {
  const f = parseFraction(rtp); // a fraction of the stake: 0.962, "0.962" or "481/500"
  const v = f ? f.n / f.d : NaN;
  if (!Number.isFinite(v)) return String(rtp);
  return new Intl.NumberFormat(locale(), { style: "percent", maximumFractionDigits: 3 }).format(v);
}

/** How the help's RTP is known (game/rtp_proof.py): exact, certified with its 99% interval, or the design value. */
function rtpProofText(proof) {
  if (!proof) return "";
  if (proof.method === "exact") return t("This figure is exact: it is computed from every possible outcome of the game.");
  if (proof.method === "certified") {
    return t("This figure is measured: with 99% confidence the return lies between {low} and {high} " +
      "({rounds} simulated rounds, in a certification package anyone can verify).",
    { low: formatRtp(proof.interval[0]), high: formatRtp(proof.interval[1]),
      rounds: new Intl.NumberFormat(locale()).format(proof.rounds) });
  }
  return t("This figure is the game's design value; its certified measurement is not yet published.");
}

const BOLT = '<svg viewBox="0 0 12 16" aria-hidden="true"><path d="M7 0 L1 9 H5.5 L4 16 L11 6 H6.5 Z"/></svg>';

/** The one volatility scale's words (game/help.py VOLATILITY_WORDS), in the player's language. */
function volatilityWord(bolts, word) {
  return [t("Low"), t("Medium"), t("Medium-high"), t("High"), t("Extreme")][bolts - 1] || word;
}

/** Volatility on the one scale every game uses: 1 to 5 bolts with its word ("High"). */
export function volatilityNode(bolts, english) {
  const word = volatilityWord(bolts, english);
  if (!bolts) return el("span", { text: word || "" });
  const said = t("Volatility {bolts} of 5: {word}", { bolts, word });
  return el("span.volatility", { "data-testid": "volatility", "data-bolts": bolts, title: said, "aria-label": said },
  el("span.bolts", { "aria-hidden": "true", html: Array.from({ length: 5 }, (_, i) => `<i class="${i < bolts ? "on" : ""}">${BOLT}</i>`).join("") }),
  el("span.volatility-word", { text: word }));
}

function artNode(gameId, keys) {
  const draw = rendererFor(gameId).helpArt;
  if (!draw || !keys || !keys.length) return null;
  return el("span.pt-art", { "aria-hidden": "true" }, ...keys.map((k) => {
    const a = draw(k);
    return a instanceof Node ? el("span.art", {}, a) : el("span.art", { html: a });
  }));
}

function paytable(pt, gameId, atBet) {
  const tiers = pt.tiers || [];
  const grouped = tiers.length > 1 && pt.tier_label;
  return el(`table.paytable.tiers-${tiers.length}`, { "data-testid": "paytable" },
    el("thead", {},
      grouped ? el("tr", {}, el("th", { rowspan: 2, text: t("Symbol") }), el("th.tier.tier-label", { colspan: tiers.length, text: pt.tier_label })) : null,
      el("tr", {}, grouped ? null : el("th", { text: t("Symbol") }), ...tiers.map((t) => el("th.tier", { text: t })))),
    el("tbody", {}, ...pt.rows.map((row) => el("tr", { "data-testid": "paytable-row" },
      el("td", {}, el("span.pt-symbol", {}, artNode(gameId, row.art), el("span.pt-name", { text: row.name }))),
      ...(row.pays_x
        ? row.pays_x.map((x) => el("td.pay", {}, atBet(x), el("small", { text: formatX(x) })))
        : [el("td", { colspan: Math.max(1, tiers.length), text: row.text || "" })])))));
}

export function renderHelp(help, gameId, bet) {
  const page = help.page || {};
  const atBet = (x) => S.money(times(bet, x));
  const prizeWords = (item) => {
    const p = { amount: atBet(item.amount_x), x: formatX(item.amount_x) };
    return item.text ? t("Prize {amount} ({x} the total bet).", p) : t("{amount} ({x} the total bet).", p);
  };
  const body = el("div.help-body");
  body.append(el("p.help-note", { text: t("Amounts in money are at your current total bet of {bet}; the multiple of the bet is under each.", { bet: S.money(bet) }) }));
  if (page.paytable) {
    body.append(el("h3", { text: page.paytable.title || t("Paytable") }));
    if (page.paytable.note) body.append(el("p.help-note", { text: page.paytable.note }));
    body.append(paytable(page.paytable, gameId, atBet));
  }
  for (const feature of page.features || []) {
    body.append(el("h3", {}, feature.title));
    body.append(...(feature.text || []).map((t) => el("p", { text: t })));
    if (feature.items) {
      body.append(el("ul.help-items", {}, ...feature.items.map((item) => el("li", {},
        artNode(gameId, item.art),
        el("div", {}, el("b", { text: item.name }), item.text ? ` ${item.text}` : "",
          item.amount_x ? el("span", { text: ` ${prizeWords(item)}` }) : null)))));
    }
    if (feature.ladder) {
      body.append(el("ol.help-ladder", { "data-testid": "help-ladder" }, ...feature.ladder.map((r, i) => el(`li${r.safe ? ".safe" : ""}`, {},
        el("b", { text: `${i + 1}. ${atBet(r.x)}` }),
        el("small", {}, formatX(r.x), r.safe ? el("span.fof-safe", { text: t("SAFE") }) : null)))));
    }
  }
  for (const section of page.sections || []) {
    body.append(el("h3", { text: section.title }), ...(section.text || []).map((t) => el("p", { text: t })));
  }
  const ladder = help.bet_ladder || [];
  if (ladder.length) {
    body.append(el("h3", { text: t("Bets") }), el("p", {
      text: t("Total bet from {low} to {high}, chosen in the bet panel (press the total bet) or with the − and + buttons. " +
        "The bet cannot change during a round; a feature plays at the bet that started it.",
      { low: S.money(ladder[0]), high: S.money(ladder[ladder.length - 1]) }) }));
  }
  if (help.volatility_bolts) {
    body.append(el("h3", { text: t("Volatility") }), el("p", { "data-testid": "help-volatility" },
      volatilityNode(help.volatility_bolts, help.volatility),
      el("span", { text: ` ${t("How much the wins vary, on one scale for every game (1 to 5 bolts): a higher volatility " +
        "pays less often, and more when it pays.")}` })));
  }
  body.append(el("h3", { text: t("Return to player (RTP)") }), el("p", { "data-testid": "help-rtp",
    text: t("The theoretical return to player of this game is {rtp}: over a very large number of rounds it pays back " +
      "that share of all stakes. Single sessions vary widely.", { rtp: formatRtp(help.rtp) }) }));
  const proof = rtpProofText(help.rtp_proof);
  if (proof) body.append(el("p", { "data-testid": "help-rtp-proof", "data-method": help.rtp_proof.method, text: proof }));
  const published = help.published_id || help.game_id;
  body.append(el("p.help-id", { "data-testid": "help-game-id" },
    el("span", { text: t("Game ID {id}", { id: published }) }), el("span", { text: t("Version {version}", { version: help.version }) })));
  body.append(el("p.help-id", { "data-testid": "help-build" },
    el("span", { text: help.build_version ? t("Maths: build {build}, version {version}", { build: help.build, version: help.build_version })
      : t("Maths: build {build}", { build: help.build }) })));
  return [
    el("div.help-head", {}, el("h2", { id: "help-title", text: t("{game}: paytable and rules", { game: help.title }) }),
      el("button.ghost", { type: "button", "data-testid": "help-close", onclick: () => $("help").close(), text: t("Close") })),
    body];
}
