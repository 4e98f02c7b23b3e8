// The round page (support's /support/rounds/{id} and a signed link's /replay/{id}): the boards of the round,
// one after each step, drawn from the round's JSON on the page by the game's own renderer: the one the
// player's game and history replay use. Everything else on the page is written by the server.

import { loadGameClients, rendererFor } from "./games/index.js";
import { S } from "./state.js";
import { el, formatX, makeMoney, times, words } from "./util.js";

const data = JSON.parse(document.getElementById("round-data").textContent);
const r = data.round;
S.money = makeMoney(r.currency, r.decimals, "en-GB");

async function read(url, fallback) {
  try {
    const res = await fetch(url);
    return res.ok ? await res.json() : fallback;
  } catch {
    return fallback;
  }
}

function stepName(step, i) {
  const same = r.steps.filter((s) => s.kind === step.kind);
  const name = step.kind === "paid_spin" || (!step.kind && i === 0) ? (r.mode === "paid" ? "Paid spin" : "Bought feature")
    : (rendererFor(r.game).stepNames || {})[step.kind] || words(step.kind);
  return same.length > 1 && step.kind !== "paid_spin" ? `${name} ${same.indexOf(step) + 1}` : name;
}

async function drawBoards() {
  const box = document.getElementById("boards");
  if (!r.steps.length) { box.replaceChildren(el("p.sp-muted", { text: "No step is revealed yet." })); return; }
  const [games, help] = await Promise.all([read("/api/v1/games", []),
    read(`/api/v1/games/${encodeURIComponent(r.game)}/help`, {})]);
  S.gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
  await loadGameClients(games.filter((g) => g.id === r.game));
  const game = S.gamesById[r.game] || { id: r.game, title: data.title };
  const atBet = (x) => S.money(times(r.bet, x));
  const ctx = { game, help, money: S.money, bet: () => r.bet, moment: async () => {}, atBet,
    winWords: (x) => `${atBet(x)} (${formatX(x)})`, counters: () => {} };
  // Drawn still: nothing animated, no sound, every picture of a step at once.
  const still = { fast: () => true, wait: async () => {}, still: true, quiet: true, frame: async () => {} };
  box.replaceChildren();
  for (const [i, step] of r.steps.entries()) {
    const stage = el("div.stage-inner");
    const win = step.win ? `wins ${S.money(step.win)} (${formatX(step.win_x)} the bet)` : "no win";
    box.append(el("figure.sp-board", { "data-testid": `board-${i}` }, el("div.replay-stage", {}, stage),
      el("figcaption", {}, el("b", { text: `Step ${i + 1}: ${stepName(step, i)}` }), ` ${win}`)));
    const renderer = rendererFor(r.game).create(stage, ctx);
    renderer.newRound({ ...r, state: {} });
    for (const earlier of r.steps.slice(0, i + 1)) await renderer.apply(earlier, still);
  }
  box.dataset.drawn = String(r.steps.length);
}

drawBoards();
