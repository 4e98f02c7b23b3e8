// reelforge browser client: lobby, game table, help, history with a round replay, and the
// responsible-play controls the operator configures. Plain ES modules, no build step. Every amount
// from the server is integer minor units; multiples of the bet are exact fraction strings ("_x").

import { Api, ApiError, NetworkError, newKey } from "./api.js";
import { mountSeedPanel, showRoundFairness } from "./fair.js";
import { rendererFor } from "./games/index.js";
import { boardGrid, findBoard } from "./games/generic.js";
import { compact, el, formatX, makeMoney, parseFraction, sleep, times, words } from "./util.js";

const $ = (id) => document.getElementById(id);

const S = {
  player: null,
  balance: null,
  currency: "EUR",
  money: makeMoney("EUR"),
  games: [],
  gamesById: {},
  helps: {}, // help per game id (fetched once)
  settings: { reality_check_minutes: 0, turbo: true, min_round_seconds: 0, max_bet: null },
  session: null, // {started: ms since epoch, staked, won}
  nextRealityCheck: null, // seconds into the session
  paused: false, // a reality check holds play
  lastStart: 0, // performance.now() of this client's last round start
  game: null, // the games-list entry of the open game
  help: null,
  renderer: null,
  round: null, // the current round as the server last returned it
  busy: false,
  betIndex: 0,
  historyBefore: null,
  viewToken: 0, // bumps on every navigation so stale async work stops drawing
};

const api = new Api({
  onRetry: (attempt, err) => notice(`Connection lost (${err.message}). Retrying the same request… (attempt ${attempt + 1})`, "warn"),
  onRecovered: () => notice("Connection restored.", "ok", 2500),
});

// -- notices: every error is shown in words -------------------------------------------
let noticeTimer = null;
function notice(text, tone = "error", hideAfterMs = 0) {
  const box = $("notice");
  clearTimeout(noticeTimer);
  if (!text) { box.hidden = true; return; }
  $("notice-text").textContent = text;
  box.className = `notice ${tone}`;
  box.dataset.tone = tone;
  box.hidden = false;
  if (hideAfterMs) noticeTimer = setTimeout(() => { box.hidden = true; }, hideAfterMs);
}

function explain(err, context = {}) {
  if (err instanceof NetworkError) {
    return "The connection to the game server was lost and could not be restored. Nothing is lost: " +
      "the server keeps your round. Check your connection and reload the page to continue.";
  }
  if (!(err instanceof ApiError)) return `Something went wrong in the game client: ${err.message || err}`;
  const money = S.money;
  switch (err.code) {
    case "insufficient_balance":
      return `Insufficient balance: your balance of ${money(S.balance ?? 0)} does not cover ` +
        `${context.cost ? money(context.cost) : "this bet"}. Lower the bet, or turn on “Auto adjust bet”.`;
    case "missing_token": case "unknown_token": case "bad_token": case "session_expired":
      return "Your session has expired. Please sign in again.";
    case "unfinished_round":
      return "You have an unfinished round of this game; it has been resumed where it stopped.";
    case "bet_not_on_ladder":
      return "That bet is not offered for this game. Choose a bet with the − and + buttons.";
    case "bet_above_maximum":
      return `That bet is above the maximum bet of ${S.settings.max_bet ? money(S.settings.max_bet) : "this site"}.`;
    case "too_soon":
      return `Rounds on this site start at most once every ${S.settings.min_round_seconds} seconds. Please wait a moment and press SPIN again.`;
    case "round_not_open":
      return "This round has already finished.";
    case "unknown_game":
      return "This game is not offered by the server.";
    case "operator_key_required":
      return "This server runs in operator mode: sessions are opened by the operator's site, not here.";
    case "invalid_player":
      return `That player name cannot be used: ${err.detail}`;
    case "internal_error":
      return "The game server had an internal error. Your round is safe; please try again.";
    default:
      return `The server refused the request: ${err.detail || err.code}`;
  }
}

function setBalance(balance) {
  if (balance === null || balance === undefined) return;
  S.balance = balance;
  const b = $("balance");
  b.textContent = S.money(balance);
  b.dataset.minor = String(balance);
}

// -- routing ---------------------------------------------------------------------------------
const VIEWS = ["login", "lobby", "game", "history", "round"];
function show(view) {
  if (view !== "game") leaveGame();
  for (const dialog of document.querySelectorAll("dialog.help, dialog#buy-confirm")) if (dialog.open) dialog.close();
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  document.body.dataset.view = view;
  $("nav").hidden = view === "login";
  $("wallet").hidden = view === "login";
  $("session-bar").hidden = view === "login" || !S.session;
}

/** The table is taken down when the player leaves it: nothing of one game lingers into the next. */
function leaveGame() {
  S.renderer = null;
  S.round = null;
  S.game = null;
  $("stage").replaceChildren();
  delete $("stage").dataset.resumed;
}

async function route() {
  S.viewToken += 1;
  const token = S.viewToken;
  notice(""); // a refusal belongs to the view it was made in
  if (!api.token) { show("login"); $("login-name").focus(); return; }
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
  if ((m = /^#\/game\/([\w.-]+)$/.exec(hash))) await openGame(m[1], token);
  else if (hash === "#/history") await openHistory(token);
  else if ((m = /^#\/round\/(\d+)$/.exec(hash))) await openRound(Number(m[1]), token);
  else await openLobby(token, first);
}
let firstRoute = true;

function signOut(message) {
  api.setToken(null);
  S.player = null;
  S.session = null;
  show("login");
  if (message) notice(message);
}

async function loadSession() {
  const [wallet, games, settings] = await Promise.all([api.wallet(), api.games(), api.settings()]);
  S.player = wallet.player;
  S.currency = wallet.currency;
  S.money = makeMoney(wallet.currency);
  $("player-name").textContent = wallet.player;
  setBalance(wallet.balance);
  S.games = games;
  S.gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
  S.settings = settings;
  const sess = wallet.session;
  // The session's clock runs from the server's start time, measured on this device's clock.
  S.session = { started: Date.now() - sess.elapsed_seconds * 1000, staked: sess.staked, won: sess.won };
  const every = settings.reality_check_minutes * 60;
  S.nextRealityCheck = every > 0 ? (Math.floor(sess.elapsed_seconds / every) + 1) * every : null;
  // Turbo is the operator's to offer: without it animations always play in full.
  $("turbo-label").hidden = !settings.turbo;
  if (!settings.turbo) $("turbo").checked = false;
  updateSessionBar();
}

// -- the session: elapsed time, net position, reality checks -------------------------------------------
function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function sessionSeconds() { return S.session ? (Date.now() - S.session.started) / 1000 : 0; }
function net() { return S.session ? S.session.won - S.session.staked : 0; }
function signedMoney(v) { return v > 0 ? `+${S.money(v)}` : v < 0 ? `−${S.money(-v)}` : S.money(0); }

function updateSessionBar() {
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
  const parts = [];
  if (h) parts.push(`${h} hour${h > 1 ? "s" : ""}`);
  parts.push(`${m % 60} minute${m % 60 === 1 ? "" : "s"}`);
  return parts.join(" ");
}

function realityCheck() {
  const every = S.settings.reality_check_minutes * 60;
  if (!S.session || !every || S.nextRealityCheck === null || S.paused) return;
  const elapsed = sessionSeconds();
  if (elapsed < S.nextRealityCheck || S.busy) return; // a step being revealed finishes first
  S.paused = true;
  document.body.dataset.paused = "1";
  $("reality-text").textContent = `You have been playing for ${durationWords(elapsed)} in this session. ` +
    `Your net position is ${signedMoney(net())} (won ${S.money(S.session.won)}, staked ${S.money(S.session.staked)}). ` +
    "Play is paused until you choose.";
  $("reality-check").showModal();
  updateControls();
}

function resumeAfterRealityCheck() {
  const every = S.settings.reality_check_minutes * 60;
  S.nextRealityCheck = (Math.floor(sessionSeconds() / every) + 1) * every;
  S.paused = false;
  delete document.body.dataset.paused;
  if ($("reality-check").open) $("reality-check").close();
  updateControls();
}
$("reality-continue").addEventListener("click", resumeAfterRealityCheck);
$("reality-history").addEventListener("click", resumeAfterRealityCheck);
$("reality-leave").addEventListener("click", resumeAfterRealityCheck);
$("reality-check").addEventListener("cancel", (e) => e.preventDefault()); // Escape does not dismiss it
setInterval(() => { updateSessionBar(); realityCheck(); }, 1000);

/** Count a finished round's win (or a void round's refund) into the session; stakes count when staked. */
function countRound(rnd) {
  if (!S.session) return;
  if (rnd.status === "finished") S.session.won += rnd.paid || 0;
  if (rnd.status === "void") S.session.staked -= rnd.cost;
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

// -- lobby -----------------------------------------------------------------------------------------------
async function openLobby(token, resumeOpen = false) {
  show("lobby");
  const lobby = $("lobby");
  lobby.replaceChildren(...S.games.map((g) => el("a.card.game-card", {
    href: `#/game/${g.id}`, "data-testid": `game-card-${g.id}`, "data-game": g.id,
  },
  el("div.game-art", { "data-game": g.id, html: rendererFor(g.id).art ? rendererFor(g.id).art() : "" }),
  el("h2", { text: g.title }),
  el("dl.facts", {},
    el("dt", { text: "RTP" }), el("dd", { "data-testid": "lobby-rtp", text: formatRtp(g.rtp) }),
    el("dt", { text: "Max win" }), el("dd", { "data-testid": "lobby-max-win", text: formatX(g.max_win_x) }),
    el("dt", { text: "Build" }), el("dd", { text: buildLabel(g.build, g.build_version) }),
    g.feature_buy_price_x ? [el("dt", { text: "Feature buy" }), el("dd", { text: formatX(g.feature_buy_price_x) })] : null),
  el("span.resume-badge", { hidden: true, "data-testid": "resume-badge", text: "Unfinished round" }))));
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

// A build is its name and the version of its contents ("96.2 v2.0"); rounds stored before versions
// of a build the server did not know have none.
function buildLabel(name, version) {
  return version ? `${name} v${version}` : name;
}

function formatRtp(rtp) {
  const f = parseFraction(rtp); // a fraction of the stake: 0.962, "0.962" or "481/500"
  const v = f ? f.n / f.d : NaN;
  if (!Number.isFinite(v)) return String(rtp);
  return `${(v * 100).toLocaleString(undefined, { maximumFractionDigits: 3 })}%`;
}

// -- game table ------------------------------------------------------------------------------------------
const turboOn = () => S.settings.turbo && $("turbo").checked;
const anim = {
  fast: turboOn,
  wait: (ms) => (turboOn() ? Promise.resolve() : sleep(ms)),
};

function betLadder() { return (S.game && S.game.bet_ladder) || []; }
function currentBet() { return betLadder()[S.betIndex]; }

function defaultBetIndex(game) {
  const saved = Number(localStorage.getItem(`rf.bet.${game.id}`));
  const ladder = game.bet_ladder || [];
  if (ladder.includes(saved)) return ladder.indexOf(saved);
  // One unit of the currency, or the nearest offered bet below it.
  let idx = 0;
  ladder.forEach((v, i) => { if (v <= 100) idx = i; });
  return idx;
}

function showBet(bet) {
  $("bet").textContent = S.money(bet);
  $("bet").dataset.minor = String(bet);
}

function setBetIndex(i) {
  const ladder = betLadder();
  S.betIndex = Math.max(0, Math.min(ladder.length - 1, i));
  showBet(currentBet());
  localStorage.setItem(`rf.bet.${S.game.id}`, String(currentBet()));
  updateBuy();
  updateControls();
}

function buyPrice() {
  if (!S.game || !S.game.feature_buy_price_x) return null;
  const f = parseFraction(S.game.feature_buy_price_x);
  if (!f) return null;
  const exact = (currentBet() * f.n) / f.d;
  return Number.isInteger(exact) ? exact : null;
}

function updateBuy() {
  const buy = $("buy");
  if (!S.game || !S.game.feature_buy_price_x) { buy.hidden = true; return; }
  buy.hidden = false;
  const price = buyPrice();
  buy.textContent = price === null ? "Buy feature (not at this bet)" : `Buy feature ${S.money(price)}`;
  buy.dataset.price = price === null ? "" : String(price);
}

function roundOpen() { return !!(S.round && S.round.status === "open"); }

function updateControls() {
  const open = roundOpen();
  const lock = S.busy || open || S.paused;
  $("bet-minus").disabled = lock || S.betIndex <= 0;
  $("bet-plus").disabled = lock || S.betIndex >= betLadder().length - 1;
  $("auto-adjust").disabled = lock;
  $("buy").disabled = lock || buyPrice() === null;
  const spin = $("spin");
  spin.disabled = S.busy || S.paused;
  spin.textContent = open && S.renderer ? S.renderer.nextLabel(S.round, S.game) : "SPIN";
  spin.classList.toggle("feature", open);
  document.body.dataset.roundState = S.busy ? "busy" : open ? "open" : "idle";
  $("controls").dataset.state = document.body.dataset.roundState;
}

function setMessage(text) { $("message").textContent = text || ""; }
function setWin(amount, label = "WIN") {
  const w = $("win");
  w.dataset.minor = amount ? String(amount) : "0";
  w.textContent = amount ? `${label} ${S.money(amount)}` : "";
  w.classList.toggle("show", !!amount);
}

// -- feature moments: announcements over the table; Turbo shortens them, a click ends them ---------------
let endMoment = null;
function moment({ title, amount = "", text = "", big = false, count = null }) {
  const box = $("moment");
  if (endMoment) endMoment();
  $("moment-title").textContent = title;
  $("moment-amount").textContent = count === null ? amount : S.money(0);
  $("moment-text").textContent = text;
  box.classList.toggle("big", big);
  box.dataset.kind = big ? "big-win" : "announce";
  box.hidden = false;
  const ms = turboOn() ? (big ? 1000 : 700) : (big ? 3600 : 2200);
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let timer = null;
    let ticker = null;
    const finish = () => {
      clearTimeout(timer);
      clearInterval(ticker);
      if (count !== null) $("moment-amount").textContent = S.money(count);
      box.hidden = true;
      box.onclick = null;
      endMoment = null;
      resolve();
    };
    if (count !== null) {
      // The celebration counts the win up; the last figure is the exact amount.
      ticker = setInterval(() => {
        const f = Math.min(1, (performance.now() - startedAt) / (ms * 0.7));
        $("moment-amount").textContent = S.money(f >= 1 ? count : Math.floor(count * f));
      }, 40);
    }
    timer = setTimeout(finish, ms);
    box.onclick = finish;
    endMoment = finish;
  });
}

const BIG_WIN_X = 20;
function winTitle(x) { return x >= 500 ? "EPIC WIN" : x >= 100 ? "MEGA WIN" : "BIG WIN"; }

async function openGame(gameId, token) {
  const game = S.gamesById[gameId];
  if (!game) { notice(`There is no game “${gameId}” on this server.`); location.hash = "#/lobby"; return; }
  show("game");
  S.game = game;
  S.round = null;
  S.busy = true;
  $("game-title").textContent = game.title;
  $("game-build").textContent = `Build ${buildLabel(game.build, game.build_version)} · RTP ${formatRtp(game.rtp)} · max win ${formatX(game.max_win_x)}`;
  $("help-toggle").setAttribute("aria-expanded", "false");
  $("stage").dataset.game = gameId;
  setMessage("");
  setWin(0);
  S.betIndex = defaultBetIndex(game);
  setBetIndex(S.betIndex);
  try {
    const [help, unfinished] = await Promise.all([gameHelp(gameId), api.unfinished(gameId)]);
    if (token !== S.viewToken) return;
    S.help = help;
    const stage = el("div.stage-inner");
    $("stage").replaceChildren(stage);
    S.renderer = rendererFor(gameId).create(stage, rendererContext(game, help, () => (S.round ? S.round.bet : currentBet())));
    if (unfinished.length) await resume(unfinished[0]);
    else { S.renderer.newRound(); S.renderer.showcase(); setMessage("Press SPIN or the space bar to play."); }
  } catch (err) {
    notice(explain(err));
  } finally {
    if (token === S.viewToken) { S.busy = false; updateControls(); }
  }
}

function rendererContext(game, help, bet) {
  return { game, help, money: S.money, bet, moment };
}

async function gameHelp(gameId) {
  if (!S.helps[gameId]) S.helps[gameId] = await api.help(gameId);
  return S.helps[gameId];
}

async function resume(rnd) {
  S.round = rnd;
  const ladder = betLadder();
  if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
  showBet(rnd.bet);
  await S.renderer.restore(rnd);
  const won = rnd.total_win || 0;
  setWin(won, "WIN SO FAR");
  setMessage(`Round ${rnd.id} resumed where it stopped${S.renderer.status(rnd) ? ": " + S.renderer.status(rnd) : ""}. ` +
    `Press ${S.renderer.nextLabel(rnd, S.game)} to continue.`);
  $("stage").dataset.resumed = String(rnd.id);
}

/** The operator's least time between round starts: this client waits it out rather than be refused. */
async function keepPace(token) {
  const gap = (S.settings.min_round_seconds || 0) * 1000;
  const wait = S.lastStart + gap - performance.now();
  if (gap && S.lastStart && wait > 0) {
    setMessage(`Next round in ${(wait / 1000).toFixed(1)} s (this site paces rounds to one every ${S.settings.min_round_seconds} s).`);
    await sleep(wait);
  }
  return token === S.viewToken;
}

/** SPIN: start a round, or play the open round's next step. */
async function spin({ buy = false } = {}) {
  if (S.busy || S.paused || !S.renderer || document.body.dataset.view !== "game") return;
  const token = S.viewToken;
  S.busy = true;
  updateControls();
  notice("");
  const game = S.game;
  let context = {};
  try {
    let rnd;
    const starting = !roundOpen();
    if (!starting) {
      const action = S.renderer.nextAction(S.round, game);
      rnd = await api.playStep(S.round.id, action, newKey());
    } else {
      const bet = currentBet();
      context = { cost: buy ? buyPrice() : bet };
      setWin(0);
      $("win").classList.remove("big");
      if (!(await keepPace(token))) return;
      setMessage("");
      const ask = () => api.startRound(game.id, { bet, autoAdjust: $("auto-adjust").checked, buyFeature: buy }, newKey());
      try {
        rnd = await ask();
      } catch (err) {
        // Another tab or device started a round moments ago: wait out the pace once and ask again.
        if (!(err instanceof ApiError && err.code === "too_soon")) throw err;
        S.lastStart = performance.now();
        if (!(await keepPace(token))) return;
        rnd = await ask();
      }
      // The server counts from when it started the round: at the latest, when its answer arrived.
      S.lastStart = performance.now();
      if (token !== S.viewToken) return;
      S.renderer.newRound(rnd);
      if (rnd.bet_adjusted) {
        const ladder = betLadder();
        if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
        showBet(rnd.bet);
        localStorage.setItem(`rf.bet.${game.id}`, String(rnd.bet));
        notice(`Your balance did not cover ${S.money(bet)}: the bet was lowered to ${S.money(rnd.bet)}.`, "warn", 6000);
      }
    }
    if (token !== S.viewToken) return;
    S.round = rnd;
    const step = rnd.steps[rnd.steps.length - 1];
    // The stake is gone at once; the win is counted in after the animation.
    const credited = rnd.status === "finished" ? rnd.paid : 0;
    setBalance(rnd.balance - credited);
    if (starting && S.session) { S.session.staked += rnd.cost; updateSessionBar(); }
    if (starting && rnd.mode !== "paid") await announceBuy(rnd);
    document.body.dataset.animating = "1";
    await S.renderer.playStep(step, rnd, anim);
    delete document.body.dataset.animating;
    if (token !== S.viewToken) return;
    await afterStep(rnd);
    setBalance(rnd.balance);
    countRound(rnd);
    updateSessionBar();
  } catch (err) {
    delete document.body.dataset.animating;
    if (err instanceof ApiError && err.code === "unfinished_round") {
      const open = await api.unfinished(game.id).catch(() => []);
      if (open.length) await resume(open[0]);
    }
    if (err instanceof ApiError && err.status === 401) { signOut(explain(err)); return; }
    notice(explain(err, context));
    if (err instanceof ApiError && err.code === "round_not_open") S.round = null;
  } finally {
    if (token === S.viewToken) { S.busy = false; updateControls(); }
  }
}

/** The receipt of a bought feature: price, total stake and round id (kept in the history too). */
async function announceBuy(rnd) {
  const price = S.money(rnd.cost);
  setMessage(`Feature bought for ${price}: round #${rnd.id}. The receipt stays in your history.`);
  await moment({ title: "FEATURE BOUGHT", amount: price,
    text: `Feature bought for ${price} (${formatX(S.game.feature_buy_price_x)} your total bet of ${S.money(rnd.bet)}). ` +
      `Total stake ${price} · round #${rnd.id}.` });
}

async function afterStep(rnd) {
  if (rnd.status === "open") {
    const status = S.renderer.status(rnd);
    setWin(rnd.total_win, "WIN SO FAR");
    setMessage(`${status ? status + ". " : ""}Press ${S.renderer.nextLabel(rnd, S.game)} to continue.`);
    return;
  }
  if (rnd.status === "void") {
    setWin(0);
    setMessage(`The round was void: ${rnd.void_reason || "malfunction"}. Your stake was refunded.`);
    notice(`Round ${rnd.id} was void and the stake refunded: ${rnd.void_reason || "malfunction"}.`, "warn");
    return;
  }
  const paid = rnd.paid || 0;
  const feature = rnd.steps.length > 1;
  const f = parseFraction(rnd.total_win_x);
  const x = f ? f.n / f.d : 0;
  const big = x >= BIG_WIN_X;
  if (big) {
    await moment({ title: winTitle(x), count: paid, big: true, text: `${formatX(rnd.total_win_x)} your bet${feature ? ", the feature's total win" : ""}.` });
  } else if (feature) {
    await moment({ title: "FEATURE COMPLETE", amount: S.money(paid), text: paid ? `Total win of the feature: ${formatX(rnd.total_win_x)} your bet.` : "The feature ends without a win." });
  }
  setWin(paid, feature ? "TOTAL WIN" : "WIN");
  $("win").classList.toggle("big", big);
  setMessage(paid ? `Round ${rnd.id} won ${S.money(paid)} (${formatX(rnd.total_win_x)} the bet).` :
    `Round ${rnd.id}: no win this time.`);
}

// -- help / paytable: drawn from the help endpoint's page, pays in money at the current bet --------------
function artNode(gameId, keys) {
  const draw = rendererFor(gameId).helpArt;
  if (!draw || !keys || !keys.length) return null;
  return el("span.pt-art", { "aria-hidden": "true" }, ...keys.map((k) => {
    const a = draw(k);
    return a instanceof Node ? el("span.art", {}, a) : el("span.art", { html: a });
  }));
}

function renderHelp(help, gameId) {
  const page = help.page || {};
  const bet = currentBet();
  const atBet = (x) => S.money(times(bet, x));
  const body = el("div.help-body");
  body.append(el("p.help-note", { text: `Amounts in money are at your current total bet of ${S.money(bet)}.` }));
  const pt = page.paytable;
  if (pt) {
    body.append(el("h3", { text: pt.title || "Paytable" }));
    if (pt.note) body.append(el("p.help-note", { text: pt.note }));
    const tiers = pt.tiers || [];
    body.append(el(`table.paytable.tiers-${tiers.length}`, { "data-testid": "paytable" },
      el("thead", {},
        tiers.length > 1 && pt.tier_label ? el("tr", {}, el("th", { rowspan: 2, text: "Symbol" }),
          el("th.tier.tier-label", { colspan: tiers.length, text: pt.tier_label })) : null,
        el("tr", {}, tiers.length > 1 && pt.tier_label ? null : el("th", { text: "Symbol" }),
          ...tiers.map((t) => el("th.tier", { text: t })))),
      el("tbody", {}, ...pt.rows.map((row) => el("tr", { "data-testid": "paytable-row" },
        el("td", {}, el("span.pt-symbol", {}, artNode(gameId, row.art), el("span.pt-name", { text: row.name }))),
        ...(row.pays_x
          ? row.pays_x.map((x) => el("td.pay", {}, formatX(x), el("small", { text: atBet(x) })))
          : [el("td", { colspan: Math.max(1, tiers.length), text: row.text || "" })]))))));
  }
  for (const feature of page.features || []) {
    body.append(el("h3", {}, feature.title));
    body.append(...(feature.text || []).map((t) => el("p", { text: t })));
    if (feature.items) {
      body.append(el("ul.help-items", {}, ...feature.items.map((item) => el("li", {},
        artNode(gameId, item.art),
        el("div", {}, el("b", { text: item.name }), item.text ? ` ${item.text}` : "",
          item.amount_x ? el("span", { text: ` ${item.text ? "Prize" : ""} ${formatX(item.amount_x)} the total bet = ${atBet(item.amount_x)}.`.replace("  ", " ") }) : null)))));
    }
    if (feature.ladder) {
      body.append(el("ol.help-ladder", { "data-testid": "help-ladder" }, ...feature.ladder.map((r, i) => el(`li${r.safe ? ".safe" : ""}`, {},
        el("b", {}, `${i + 1}. ${formatX(r.x)}`, r.safe ? el("span.fof-safe", { text: "SAFE" }) : null),
        el("small", { text: atBet(r.x) })))));
    }
  }
  for (const section of page.sections || []) {
    body.append(el("h3", { text: section.title }), ...(section.text || []).map((t) => el("p", { text: t })));
  }
  const ladder = help.bet_ladder || [];
  if (ladder.length) {
    body.append(el("h3", { text: "Bets" }), el("p", {
      text: `Total bet from ${S.money(ladder[0])} to ${S.money(ladder[ladder.length - 1])}, chosen with the − and + buttons. ` +
        "The bet cannot change during a round; free spins and re-spins use the bet that triggered them." }));
  }
  body.append(el("h3", { text: "Return to player" }), el("p", { "data-testid": "help-rtp",
    text: `The theoretical return to player of this game's active build is ${formatRtp(help.rtp)}: over a very large number ` +
      "of rounds it pays back that share of all stakes. Single sessions vary widely." }));
  body.append(el("p.help-note", { text: `${help.title}, version ${help.version}, build ${buildLabel(help.build, help.build_version)}.` }));
  $("help").replaceChildren(
    el("div.help-head", {}, el("h2", { id: "help-title", text: `${help.title}: paytable and rules` }),
      el("button.ghost", { type: "button", "data-testid": "help-close", onclick: () => toggleHelp(false), text: "Close" })),
    body);
}

function toggleHelp(open = !$("help").open) {
  const box = $("help");
  if (open) {
    if (!S.help || !S.game) return;
    renderHelp(S.help, S.game.id);
    box.showModal();
    box.scrollTop = 0;
  } else if (box.open) {
    box.close();
  }
  $("help-toggle").setAttribute("aria-expanded", String(open));
}
$("help-toggle").addEventListener("click", () => toggleHelp());
$("help").addEventListener("close", () => $("help-toggle").setAttribute("aria-expanded", "false"));

// -- controls ----------------------------------------------------------------------------------------------------
$("bet-minus").addEventListener("click", () => setBetIndex(S.betIndex - 1));
$("bet-plus").addEventListener("click", () => setBetIndex(S.betIndex + 1));
$("spin").addEventListener("click", (e) => { e.currentTarget.blur(); spin(); });
$("buy").addEventListener("click", () => {
  const price = buyPrice();
  if (price === null || S.busy || roundOpen()) return;
  $("buy-confirm-text").textContent = `Buy the feature for ${S.money(price)}? That is ` +
    `${formatX(S.game.feature_buy_price_x)} your total bet of ${S.money(currentBet())}, debited now.`;
  $("buy-confirm").showModal();
  $("buy-no").focus();
});
$("buy-yes").addEventListener("click", () => { $("buy-confirm").close(); spin({ buy: true }); });
$("buy-no").addEventListener("click", () => { $("buy-confirm").close(); });
$("notice-close").addEventListener("click", () => notice(""));
$("turbo").checked = localStorage.getItem("rf.turbo") === "1";
$("turbo").addEventListener("change", () => localStorage.setItem("rf.turbo", $("turbo").checked ? "1" : "0"));
$("auto-adjust").checked = localStorage.getItem("rf.autoAdjust") === "1";
$("auto-adjust").addEventListener("change", () => localStorage.setItem("rf.autoAdjust", $("auto-adjust").checked ? "1" : "0"));

function typing(target) {
  return target instanceof HTMLInputElement && target.type !== "checkbox" || target instanceof HTMLTextAreaElement;
}
const dialogOpen = () => !!document.querySelector("dialog[open]");
document.addEventListener("keydown", (e) => {
  if (e.code !== "Space" || typing(e.target) || document.body.dataset.view !== "game" || dialogOpen()) return;
  e.preventDefault(); // no page scroll, no click on a focused button
  if (!e.repeat) spin();
});
document.addEventListener("keyup", (e) => {
  if (e.code === "Space" && !typing(e.target) && document.body.dataset.view === "game" && !dialogOpen()) e.preventDefault();
});

// -- history ------------------------------------------------------------------------------------------------------
function gameTitle(id) { return (S.gamesById[id] && S.gamesById[id].title) || id; }
function when(iso) { return iso ? new Date(iso).toLocaleString() : ""; }
const modeWords = (mode) => (mode === "paid" ? "" : mode === "buy" ? "Feature buy" : words(mode));

function historyRow(r) {
  const open = () => { location.hash = `#/round/${r.id}`; };
  return el("tr", { "data-round": r.id, "data-testid": `history-row-${r.id}`, tabindex: 0,
    onclick: open, onkeydown: (e) => { if (e.key === "Enter") open(); } },
  el("td", {}, el("a", { href: `#/round/${r.id}`, text: `#${r.id}` }),
    el("span.sub", { text: gameTitle(r.game) }), el("span.sub", { text: when(r.created_at) })),
  el("td.wide", { text: gameTitle(r.game) }),
  el("td.wide", { text: when(r.created_at) }),
  el("td", { "data-testid": "history-bet" }, S.money(r.cost ?? r.bet), modeWords(r.mode) ? el("span.sub.always", { text: modeWords(r.mode) }) : null),
  el("td", { "data-testid": "history-win", text: r.status === "open" ? "—" : S.money(r.paid ?? r.total_win ?? 0) }),
  el("td", { "data-testid": "history-status" }, el(`span.status.${r.status}`, { text: words(r.status === "open" ? "unfinished" : r.status) })));
}

async function openHistory(token, more = false) {
  show("history");
  const body = $("history-rows");
  if (!more) { body.replaceChildren(); S.historyBefore = null; mountSeedPanel($("fair-panel-history"), api); }
  try {
    const page = await api.rounds(20, more ? S.historyBefore : null);
    if (token !== S.viewToken) return;
    if (!page.rounds.length && !more) body.append(el("tr", {}, el("td", { colspan: 6, text: "No rounds yet." })));
    body.append(...page.rounds.map(historyRow));
    S.historyBefore = page.next_before;
    $("history-more").hidden = !page.next_before;
  } catch (err) {
    notice(explain(err));
  }
}
$("history-more").addEventListener("click", () => openHistory(S.viewToken, true));

// -- one round: a replay a player can follow, and the audit record --------------------------------------------
function eventItem(ev) {
  const board = findBoard(ev);
  const fields = Object.entries(ev).filter(([k]) => k !== "type" && (!board || k !== board.key));
  return el("li.event", { "data-type": ev.type },
    el("span.ev-type", { text: ev.type }),
    el("span.ev-fields", {}, ...fields.map(([k, v]) => el("span.ev-field", {},
      el("b", { text: k }), "=", k.endsWith("_x") && typeof v !== "object" ? `${v} (${formatX(v)})` : compact(v)))),
    board ? boardGrid(board.cells, { className: "mini" }) : null);
}

const REPLAY = { round: null, help: null, frames: [], index: 0, timer: null, token: 0 };
const STOP = Symbol("replay frame drawn");

/** Every picture of the round in order: one per event that draws something (a board, a cascade, a move). */
function replayFrames(r) {
  const probe = rendererFor(r.game).create(el("div"), rendererContext(S.gamesById[r.game], REPLAY.help, () => r.bet));
  const frames = [];
  let order = 0;
  r.steps.forEach((step) => step.events.forEach((ev) => {
    const caption = probe.describe ? probe.describe(ev, step) : null;
    if (caption) frames.push({ order, step, caption });
    order += 1;
  }));
  // A picture shows the events after it up to the next picture (counters, remaining spins) too.
  frames.forEach((f, i) => { f.until = i + 1 < frames.length ? frames[i + 1].order - 1 : order - 1; });
  return frames;
}

/** "Paid spin", "Free spin 3", "Re-spin 2", "Gembox": a step named and numbered among its kind. */
function stepWords(round, step) {
  if (step.kind === "paid_spin" || (!step.kind && step.index === 0)) return "Paid spin";
  const same = round.steps.filter((s) => s.kind === step.kind);
  const name = { respin: "Re-spin", free_spin: "Free spin", gembox: "GEMBOX" }[step.kind] || words(step.kind);
  return same.length > 1 ? `${name} ${same.indexOf(step) + 1}` : name;
}

async function drawFrame(i) {
  const r = REPLAY.round;
  const frames = REPLAY.frames;
  if (!r || !frames.length) return;
  REPLAY.index = Math.max(0, Math.min(frames.length - 1, i));
  const frame = frames[REPLAY.index];
  const inner = el("div.stage-inner");
  $("replay-stage").replaceChildren(inner);
  const renderer = rendererFor(r.game).create(inner, rendererContext(S.gamesById[r.game], REPLAY.help, () => r.bet));
  renderer.newRound({ ...r, state: {} });
  let n = 0;
  // Replay the stored events up to this frame with nothing animated, marks left standing.
  const still = { fast: () => true, wait: async () => {}, still: true, quiet: true,
    frame: async () => { if (n++ === frame.until) throw STOP; } };
  try {
    for (const step of r.steps) await renderer.apply(step, still);
  } catch (e) {
    if (e !== STOP) throw e;
  }
  $("replay-pos").textContent = `Picture ${REPLAY.index + 1} of ${frames.length}`;
  $("replay-pos").dataset.index = String(REPLAY.index);
  const win = frame.step.win ? ` This step wins ${S.money(frame.step.win)} (${formatX(frame.step.win_x)} the bet).` : "";
  $("replay-caption").replaceChildren(el("b", { text: `${stepWords(r, frame.step)}: ` }), frame.caption + win);
  $("replay-prev").disabled = REPLAY.index === 0;
  $("replay-next").disabled = REPLAY.index === frames.length - 1;
}

function stopReplay() {
  clearInterval(REPLAY.timer);
  REPLAY.timer = null;
  $("replay-play").textContent = "Play";
  $("replay-play").dataset.playing = "false";
}

$("replay-prev").addEventListener("click", () => { stopReplay(); drawFrame(REPLAY.index - 1); });
$("replay-next").addEventListener("click", () => { stopReplay(); drawFrame(REPLAY.index + 1); });
$("replay-play").addEventListener("click", () => {
  if (REPLAY.timer) { stopReplay(); return; }
  if (REPLAY.index >= REPLAY.frames.length - 1) drawFrame(0);
  $("replay-play").textContent = "Pause";
  $("replay-play").dataset.playing = "true";
  REPLAY.timer = setInterval(() => {
    if (document.body.dataset.view !== "round" || REPLAY.index >= REPLAY.frames.length - 1) { stopReplay(); return; }
    drawFrame(REPLAY.index + 1);
  }, turboOn() ? 500 : 1400);
});

function receipt(r) {
  const f = parseFraction(S.gamesById[r.game] && S.gamesById[r.game].feature_buy_price_x);
  const rows = [["Price", `${S.money(r.cost)}${f ? ` (${formatX(S.gamesById[r.game].feature_buy_price_x)} the total bet of ${S.money(r.bet)})` : ""}`],
    ["Total stake", S.money(r.cost)], ["Round", `#${r.id}`], ["Bought", when(r.created_at)]];
  return [el("h3", { text: "Feature Buy receipt" }), ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])];
}

async function openRound(id, token) {
  show("round");
  stopReplay();
  REPLAY.round = null;
  $("round-title").textContent = `Round #${id}`;
  $("verify-result").hidden = true;
  $("round-resume").hidden = true;
  $("round-receipt").hidden = true;
  $("round-facts").replaceChildren();
  $("round-fair").hidden = true;
  $("round-steps").replaceChildren();
  $("replay-stage").replaceChildren();
  $("replay-caption").textContent = "";
  $("audit").open = false;
  $("verify").dataset.round = String(id);
  try {
    const r = await api.round(id);
    const help = await gameHelp(r.game).catch(() => ({}));
    if (token !== S.viewToken) return;
    $("round-title").textContent = `Round #${r.id} · ${gameTitle(r.game)}`;
    $("round-resume").hidden = r.status !== "open";
    $("round-resume").href = `#/game/${r.game}`;
    if (r.mode !== "paid") {
      $("round-receipt").replaceChildren(...receipt(r));
      $("round-receipt").hidden = false;
    }
    const total = r.status === "open" ? r.total_win : r.paid;
    const facts = [
      ["Game", gameTitle(r.game)], ["Build", buildLabel(r.build, r.build_version)], ["Mode", modeWords(r.mode) || "Paid spin"],
      ["Bet", S.money(r.bet) + (r.bet_adjusted ? ` (asked ${S.money(r.requested_bet)}, auto adjusted)` : "")],
      ["Stake", S.money(r.cost)], ["Status", words(r.status === "open" ? "unfinished" : r.status)],
      [r.status === "open" ? "Win so far" : "Total win", `${S.money(total)} (${formatX(r.total_win_x)} the bet)`],
      ["Started", when(r.created_at)], ["Finished", when(r.finished_at) || "—"],
    ];
    if (r.void_reason) facts.push(["Void reason", r.void_reason]);
    $("round-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    showRoundFairness($("round-fair"), r); // provably fair: seeds, nonce, the browser's verification
    $("round-steps").replaceChildren(...r.steps.map((s) => el("li.step", { "data-testid": `step-${s.index}` },
      el("div.step-head", {},
        el("strong", { text: `Step ${s.index + 1}: ${words(s.kind)}` }),
        s.action ? el("span", { text: ` action ${s.action}` }) : null,
        el("span.step-win", { text: `win ${S.money(s.win)} (${formatX(s.win_x)}) · round ${formatX(s.total_win_x)}` })),
      el("div.draws", {}, el("b", { text: "Draws: " }), compact(s.draws)),
      el("ol.events", {}, ...s.events.map(eventItem)))));
    REPLAY.round = r;
    REPLAY.help = help;
    REPLAY.frames = replayFrames(r);
    $("replay").hidden = !REPLAY.frames.length;
    await drawFrame(0);
  } catch (err) {
    notice(explain(err));
  }
}

$("verify").addEventListener("click", async () => {
  const id = Number($("verify").dataset.round);
  const box = $("verify-result");
  $("verify").disabled = true;
  box.hidden = false;
  box.className = "verify-result";
  box.textContent = "Replaying the stored draws through the rules…";
  try {
    const v = await api.verify(id);
    box.dataset.ok = String(!!v.ok);
    box.className = `verify-result ${v.ok ? "ok" : "bad"}`;
    const diffs = v.differences || [];
    box.replaceChildren(
      el("strong", { text: v.ok ? "Verified: replaying the stored draws reproduces every step, event and payment."
        : "Verification FAILED: the replay differs from what was stored or paid." }),
      el("ul", { hidden: !diffs.length }, ...diffs.map((d) => el("li", { text: d }))));
  } catch (err) {
    box.className = "verify-result bad";
    box.textContent = explain(err);
  } finally {
    $("verify").disabled = false;
  }
});

// -- start --------------------------------------------------------------------------------------------------------------
window.addEventListener("hashchange", route);
// An operator's site may hand over a session token: /#token=... (kept out of history).
{
  const m = /^#token=([\w-]+)/.exec(location.hash);
  if (m) { api.setToken(m[1]); history.replaceState(null, "", "#/lobby"); }
}
route();
