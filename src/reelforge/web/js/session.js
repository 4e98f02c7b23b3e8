// The session: elapsed time, net position and reality checks. The client keeps the operator's interval
// itself; a server that enforces it answers a round start with 409 reality_check_due, and the player's
// "Continue" is then acknowledged with POST /reality-check before play goes on.

import { t, tn } from "./i18n.js";
import { $, S, api, signedMoney } from "./state.js";

let serverEnforces = false; // the server has asked for a reality check once: acknowledge every answer
let waiting = []; // resolvers of whoever waits for the player's answer

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function sessionSeconds() { return S.session ? (Date.now() - S.session.started) / 1000 : 0; }
export function net() { return S.session ? S.session.won - S.session.staked : 0; }

export function startSession(wallet, settings) {
  const sess = wallet.session;
  // The session's clock runs from the server's start time, measured on this device's clock.
  S.session = { started: Date.now() - sess.elapsed_seconds * 1000, staked: sess.staked, won: sess.won };
  const every = settings.reality_check_minutes * 60;
  S.nextRealityCheck = every > 0 ? (Math.floor(sess.elapsed_seconds / every) + 1) * every : null;
  updateSessionBar();
}

export function updateSessionBar() {
  if (!S.session) return;
  $("session-time").textContent = clock(sessionSeconds());
  const n = $("session-net");
  n.textContent = signedMoney(net());
  n.dataset.minor = String(net());
  n.className = net() > 0 ? "up" : net() < 0 ? "down" : "";
  if (document.body.dataset.view !== "login") $("session-bar").hidden = false;
}

function durationWords(seconds) {
  const m = Math.floor(seconds / 60);
  const h = Math.floor(m / 60);
  const minutes = tn("{n} minute", "{n} minutes", m % 60);
  return h ? t("{hours} {minutes}", { hours: tn("{n} hour", "{n} hours", h), minutes }) : minutes;
}

/** Whether the operator's interval has run out (a step being revealed finishes first unless ``force``). */
export function realityCheckDue(force = false) {
  const every = S.settings.reality_check_minutes * 60;
  if (!S.session || !every || S.nextRealityCheck === null || S.paused) return false;
  return sessionSeconds() >= S.nextRealityCheck && (force || !S.busy);
}

/** Show the reality check; the returned promise resolves when the player has answered. */
export function showRealityCheck({ fromServer = false } = {}) {
  if (fromServer) serverEnforces = true;
  const answered = new Promise((resolve) => waiting.push(resolve));
  if (S.paused) return answered;
  S.paused = true;
  document.body.dataset.paused = "1";
  $("reality-text").textContent = t("You have been playing for {duration} in this session. Your net position is " +
    "{net} (won {won}, staked {staked}). Play is paused until you choose.", { duration: durationWords(sessionSeconds()),
    net: signedMoney(net()), won: S.money(S.session ? S.session.won : 0), staked: S.money(S.session ? S.session.staked : 0) });
  $("reality-check").showModal();
  document.dispatchEvent(new CustomEvent("rf:controls"));
  return answered;
}

async function answer() {
  const every = S.settings.reality_check_minutes * 60;
  if (every) S.nextRealityCheck = (Math.floor(sessionSeconds() / every) + 1) * every;
  if (serverEnforces) {
    try { await api.acknowledgeRealityCheck(); } catch { /* the next round start asks again */ }
  }
  S.paused = false;
  delete document.body.dataset.paused;
  if ($("reality-check").open) $("reality-check").close();
  document.dispatchEvent(new CustomEvent("rf:controls"));
  const done = waiting;
  waiting = [];
  done.forEach((resolve) => resolve());
}

$("reality-continue").addEventListener("click", answer);
$("reality-history").addEventListener("click", answer);
$("reality-leave").addEventListener("click", answer);
$("reality-check").addEventListener("cancel", (e) => e.preventDefault()); // Escape does not dismiss it
setInterval(() => {
  updateSessionBar();
  if (realityCheckDue()) showRealityCheck();
}, 1000);

/** Count a finished round's win (or a void round's refund) into the session; stakes count when staked. */
export function countRound(rnd) {
  if (!S.session) return;
  if (rnd.status === "finished") S.session.won += rnd.paid || 0;
  if (rnd.status === "void") S.session.staked -= rnd.cost;
}
