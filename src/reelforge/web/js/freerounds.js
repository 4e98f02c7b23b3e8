// Free rounds of an operator's campaign: when the player opens a game their campaign covers, the offer
// ("You have 10 free rounds at €0.20"), played now or later; while they play them, the bet is the
// campaign's (nothing is staked), and a banner shows the rounds left and the free-round winnings so far;
// after the last one, the total. The server counts every round and credits the winnings (docs/OPERATORS.md).

import { setBetIndex, showBet } from "./bets.js";
import { moment } from "./moments.js";
import { t, tn } from "./i18n.js";
import { $, S, api } from "./state.js";
import { el } from "./util.js";

let offer = null; // the open game's campaign with rounds left (the player's view of it), or null
const later = new Set(); // campaigns the player keeps for later in this visit

const playable = (c, gameId) => c.status === "active" && c.rounds_left > 0 && c.bet !== null && c.games.includes(gameId);
const roundsWord = (n) => tn("{n} free round", "{n} free rounds", n);

/** The banner over the table: the offer, the free rounds being played, or nothing. */
function render() {
  const banner = $("free-banner");
  const playing = S.free;
  if (!offer && !playing) { banner.hidden = true; banner.replaceChildren(); return; }
  banner.hidden = false;
  if (playing) {
    banner.dataset.state = "playing";
    banner.replaceChildren(el("div.free-text", {},
      el("span.free-title", { text: t("Free rounds") }),
      el("span", { "data-testid": "free-left", text: t("{left} of {total} left", { left: playing.rounds_left, total: playing.rounds }) }),
      el("span", { "data-testid": "free-won", "data-minor": String(playing.won), text: t("Won so far: {amount}", { amount: S.money(playing.won) }) })),
    el("button.ghost", { type: "button", "data-testid": "free-pause", onclick: pause, text: t("Later") }));
    return;
  }
  banner.dataset.state = "offered";
  banner.replaceChildren(
    el("div.free-text", {}, el("span", { text: t("You have {rounds} at {bet}", { rounds: roundsWord(offer.rounds_left), bet: S.money(offer.bet) }) })),
    el("button.primary", { type: "button", "data-testid": "free-play", onclick: accept, text: t("Play free rounds") }));
}

function offerText(c) {
  const until = new Date(c.valid_until).toLocaleDateString(S.settings.language || undefined, { dateStyle: "medium" });
  return [t("You have {rounds} at {bet}", { rounds: roundsWord(c.rounds_left), bet: S.money(c.bet) }),
    c.credit === "each_win"
      ? t("Play them now, or later until {date}. Nothing is taken from your balance; each win is paid as you win it.", { date: until })
      : t("Play them now, or later until {date}. Nothing is taken from your balance; your winnings are paid after the last one.", { date: until })];
}

function showOffer() {
  const [first, second] = offerText(offer);
  $("free-offer-text").textContent = first;
  $("free-offer-more").textContent = second;
  $("free-offer").showModal();
  $("free-accept").focus();
}

function accept() {
  if ($("free-offer").open) $("free-offer").close();
  if (!offer || S.busy || (S.round && S.round.status === "open")) return; // an unfinished round first
  S.free = offer;
  showBet(offer.bet);
  render();
  document.dispatchEvent(new CustomEvent("rf:controls"));
}

function pause() {
  if (S.busy) return;
  later.add(S.free.id);
  offer = S.free;
  S.free = null;
  if (S.game) setBetIndex(S.betIndex);
  render();
}

$("free-accept").addEventListener("click", accept);
$("free-later").addEventListener("click", () => { if (offer) later.add(offer.id); $("free-offer").close(); });

document.addEventListener("rf:game-open", async (e) => {
  const gameId = e.detail.game.id;
  S.free = null;
  offer = null;
  render();
  let found;
  try { found = (await api.campaigns()).campaigns; } catch { return; } // the game plays on without the offer
  if (!S.game || S.game.id !== gameId) return;
  offer = found.find((c) => playable(c, gameId)) || null;
  render();
  if (!offer || later.has(offer.id)) return;
  if ($("intro").open) $("intro").addEventListener("close", showOffer, { once: true });
  else showOffer();
});

/** After a free round ended: the rounds left and the winnings so far, or, after the last one, the total. */
export async function freeRoundEnded(rnd) {
  let found;
  try { found = (await api.campaigns()).campaigns; } catch { return; }
  const c = found.find((x) => x.id === rnd.campaign);
  if (!c) return;
  if (playable(c, rnd.game)) {
    if (S.free && S.free.id === c.id) S.free = c;
    offer = c;
    render();
    return;
  }
  S.free = null;
  offer = null;
  render();
  if (S.game) setBetIndex(S.betIndex);
  const banner = $("free-banner");
  banner.hidden = false;
  banner.dataset.state = "done";
  banner.replaceChildren(el("div.free-text", {}, el("span", { "data-testid": "free-total", "data-minor": String(c.won),
    text: t("Free rounds complete: you won {amount} in {rounds}.", { amount: S.money(c.won), rounds: roundsWord(c.played) }) })));
  await moment({ title: t("FREE ROUNDS COMPLETE"), kind: "summary", amount: S.money(c.won),
    sub: t("{rounds} played", { rounds: roundsWord(c.played) }),
    text: c.won ? t("Your free-round winnings are paid into your balance.") : t("No win in the free rounds this time.") });
}
