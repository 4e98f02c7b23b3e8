// reelforge browser client: sign-in, routing and start-up. The views live in their own modules (lobby,
// table with its bets, controls, autoplay and sound; help; history with the replay). Plain ES modules, no
// build step. Every amount from the server is integer minor units; multiples of the bet are exact
// fraction strings ("_x").

import { stopAutoplay } from "./autoplay.js";
import { applySettings } from "./controls.js";
import { loadGameClients } from "./games/index.js";
import { openHistory, openRound, stopReplay } from "./history.js";
import { openLobby } from "./lobby.js";
import { startSession } from "./session.js";
import { LANGUAGE_NAMES, lang, locale, negotiate, setLanguage, t } from "./i18n.js";
import { $, ApiError, S, api, explain, notice, setBalance } from "./state.js";
import { leaveGame, openGame } from "./table.js";
import { makeMoney } from "./util.js";

const VIEWS = ["login", "lobby", "game", "history", "round"];
function show(view) {
  if (view !== "game") { stopAutoplay(); leaveGame(); }
  if (view !== "round") stopReplay();
  for (const dialog of document.querySelectorAll("dialog[open]:not(#reality-check)")) dialog.close();
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  document.body.dataset.view = view;
  $("nav").hidden = view === "login";
  $("wallet").hidden = view === "login";
  $("session-bar").hidden = view === "login" || !S.session;
  $("operator-links").hidden = view === "login" || !S.operatorLinks;
}

// The operator's pages a launch named (settings.urls: lobby, deposit, history, return; null: not named).
function showOperatorLinks(urls) {
  S.operatorLinks = false;
  for (const key of ["lobby", "deposit", "history", "return"]) {
    const link = $(`op-${key}`);
    link.hidden = !urls[key];
    if (urls[key]) { link.href = urls[key]; S.operatorLinks = true; }
  }
}

async function route() {
  S.viewToken += 1;
  const token = S.viewToken;
  notice(""); // a refusal belongs to the view it was made in
  if (!api.token) { show("login"); document.title = `${t("Sign in")} · reelforge`; $("login-name").focus(); return; }
  if (!S.player) {
    try {
      await loadSession();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) { signOut(explain(err)); return; }
      notice(explain(err));
      return;
    }
  }
  const hash = location.hash || "#/lobby";
  const first = firstRoute; // the page was just (re)opened
  firstRoute = false;
  let m;
  if ((m = /^#\/game\/([\w.-]+)$/.exec(hash))) { show("game"); await openGame(m[1], token); }
  else if (hash === "#/history") { show("history"); await openHistory(token); }
  else if ((m = /^#\/round\/(\d+)$/.exec(hash))) { show("round"); await openRound(Number(m[1]), token); }
  else { show("lobby"); await openLobby(token, first); }
}
let firstRoute = true;

function signOut(message) {
  api.setToken(null);
  S.player = null;
  S.session = null;
  S.operatorLinks = false;
  show("login");
  if (message) notice(message);
}
document.addEventListener("rf:signout", (e) => signOut(e.detail));

async function loadSession() {
  const [wallet, games, settings] = await Promise.all([api.wallet(), api.games(), api.settings()]);
  S.player = wallet.player;
  S.currency = wallet.currency;
  // The language: the address's lang (a launch or demo link), else the session's (the operator's launch or the
  // player's choice), else the player's last choice on this device, else the browser's, else English. The
  // session keeps it, so the server's refusals speak it too.
  const wanted = bootLang ? negotiate(bootLang) : settings.language ? settings.lang
    : negotiate(localStorage.getItem("rf.lang"), navigator.languages || []);
  if (wanted !== settings.lang) api.chooseLanguage(wanted).catch(() => {});
  S.currencyDecimals = settings.currency_decimals;
  await useLanguage(wanted, settings.language);
  S.money = makeMoney(wallet.currency, settings.currency_decimals, locale());
  $("player-name").textContent = wallet.player;
  setBalance(wallet.balance);
  // A launched session plays on its currency's ladder, within its bet limits (GET /settings with the session).
  const ladders = settings.bet_ladders || {};
  S.games = games.map((g) => (ladders[g.id] ? { ...g, bet_ladder: ladders[g.id], currency: settings.currency } : g))
    .filter((g) => g.bet_ladder.length && (!settings.game || g.id === settings.game)); // a launch for one game
  S.gamesById = Object.fromEntries(S.games.map((g) => [g.id, g]));
  await loadGameClients(S.games);  // the renderers the games ship in their folders
  // A key the server does not send (an older server) reads as off.
  S.settings = { ...S.settings, ...settings, autoplay: settings.autoplay === true };
  applySettings(S.settings);
  showOperatorLinks(settings.urls || {});
  startSession(wallet, settings);
}

// -- sign in (demo sessions) --------------------------------------------------------------------------
$("login-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("login-name").value.trim();
  if (!name) return;
  try {
    const s = await api.openSession(name);
    api.setToken(s.token);
    S.player = null;
    notice("");
    if (!location.hash || location.hash === "#/login") location.hash = "#/lobby";
    else await route();
  } catch (err) {
    notice(explain(err));
  }
});

// -- the player's language -------------------------------------------------------------------------------------------------
let bootLang = new URLSearchParams(location.search).get("lang");

async function useLanguage(wanted, tag = null) {
  api.language = await setLanguage(wanted, tag);
  for (const select of document.querySelectorAll(".lang-select")) select.value = lang();
  if (S.currency) S.money = makeMoney(S.currency, S.currencyDecimals, locale());
}

for (const select of document.querySelectorAll(".lang-select")) {
  select.replaceChildren(...Object.entries(LANGUAGE_NAMES).map(([code, name]) => {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.lang = code;
    return option;
  }));
  select.addEventListener("change", async () => {
    const chosen = select.value;
    localStorage.setItem("rf.lang", chosen);
    bootLang = null; // the player's choice outlives the address's lang
    if (location.search) history.replaceState(null, "", location.pathname + location.hash);
    if (api.token && S.player) await api.chooseLanguage(chosen).catch(() => {});
    await useLanguage(chosen);
    if (S.player) { S.helps = {}; await route(); }
  });
}

// -- start --------------------------------------------------------------------------------------------------------------
window.addEventListener("hashchange", route);
// An operator's site may hand over a session token: /#token=... (kept out of history).
{
  const m = /^#token=([\w-]+)/.exec(location.hash);
  if (m) { api.setToken(m[1]); history.replaceState(null, "", "#/lobby"); }
}
// Launch by URL: /?launch=<one-time token>[&game=<id>] is exchanged for a session (the token is spent).
const launch = new URLSearchParams(location.search).get("launch");
if (launch) {
  const game = new URLSearchParams(location.search).get("game");
  history.replaceState(null, "", location.pathname + (game ? `#/game/${game}` : "#/lobby"));
  useLanguage(negotiate(bootLang, navigator.languages || [])).then(() => api.launch(launch, bootLang)).then(
    (s) => { api.setToken(s.token); S.player = null; route(); },
    (err) => { api.setToken(null); show("login"); notice(explain(err)); });
} else {
  useLanguage(negotiate(bootLang, localStorage.getItem("rf.lang"), navigator.languages || [])).then(route);
}
