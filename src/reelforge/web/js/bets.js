// The bet: the ladder the server offers, − and + steps, and the bet panel that picks any total bet (or
// the maximum) in one tap. The Feature Buy price follows the bet.

import { $, S } from "./state.js";
import { el, parseFraction } from "./util.js";

export function betLadder() { return (S.game && S.game.bet_ladder) || []; }
export function currentBet() { return betLadder()[S.betIndex]; }

export function defaultBetIndex(game) {
  const saved = Number(localStorage.getItem(`rf.bet.${game.id}`));
  const ladder = game.bet_ladder || [];
  if (ladder.includes(saved)) return ladder.indexOf(saved);
  // One unit of the currency, or the nearest offered bet below it.
  let idx = 0;
  const unit = 10 ** (S.settings && Number.isInteger(S.settings.currency_decimals) ? S.settings.currency_decimals : 2);
  ladder.forEach((v, i) => { if (v <= unit) idx = i; });
  return idx;
}

export function showBet(bet) {
  $("bet").textContent = S.money(bet);
  $("bet").dataset.minor = String(bet);
}

export function setBetIndex(i) {
  const ladder = betLadder();
  S.betIndex = Math.max(0, Math.min(ladder.length - 1, i));
  showBet(currentBet());
  localStorage.setItem(`rf.bet.${S.game.id}`, String(currentBet()));
  updateBuy();
  document.dispatchEvent(new CustomEvent("rf:controls"));
}

export function buyPrice() {
  if (!S.game || !S.game.feature_buy_price_x) return null;
  const f = parseFraction(S.game.feature_buy_price_x);
  if (!f) return null;
  const exact = (currentBet() * f.n) / f.d;
  return Number.isInteger(exact) ? exact : null;
}

export function updateBuy() {
  const buy = $("buy");
  // no buy in a game without one, or in a jurisdiction that forbids it (the server refuses it there too)
  if (!S.game || !S.game.feature_buy_price_x || S.settings.feature_buy === false) { buy.hidden = true; return; }
  buy.hidden = false;
  const price = buyPrice();
  buy.textContent = price === null ? "Buy feature (not at this bet)" : `Buy feature ${S.money(price)}`;
  buy.dataset.price = price === null ? "" : String(price);
}

function openPanel() {
  const ladder = betLadder();
  const options = ladder.map((bet, i) => el(`button.bet-option${i === S.betIndex ? ".chosen" : ""}`, {
    type: "button", "data-testid": `bet-option-${bet}`, "aria-pressed": String(i === S.betIndex),
    onclick: () => { setBetIndex(i); $("bet-panel").close(); }, text: S.money(bet) }));
  $("bet-options").replaceChildren(...options);
  $("bet-panel").showModal();
  (options[S.betIndex] || options[0]).focus();
}

$("bet-open").addEventListener("click", openPanel);
$("bet-max").addEventListener("click", () => { setBetIndex(betLadder().length - 1); $("bet-panel").close(); });
$("bet-panel-close").addEventListener("click", () => $("bet-panel").close());
$("bet-minus").addEventListener("click", () => setBetIndex(S.betIndex - 1));
$("bet-plus").addEventListener("click", () => setBetIndex(S.betIndex + 1));
