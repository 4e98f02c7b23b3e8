// The game table: open a game, SPIN, and features that play themselves after their intro card (STOP
// pauses between steps, SKIP shows the rest at once), each ending on a summary in money. A feature's
// steps are one round: no stake and no pacing between them; the reality check still holds between steps.

import { newKey } from "./api.js";
import { rendererFor } from "./games/index.js";
import { betLadder, buyPrice, currentBet, defaultBetIndex, setBetIndex, showBet, updateBuy } from "./bets.js";
import { formatRtp, gameHelp, volatilityNode } from "./help.js";
import { BIG_WIN_X, endMomentNow, moment, turboOn, winTitle } from "./moments.js";
import { freeRoundEnded } from "./freerounds.js";
import { countRound, realityCheckDue, showRealityCheck, updateSessionBar } from "./session.js";
import { formatNumber, t, tn } from "./i18n.js";
import { music, play, useSounds, winSound } from "./sound.js";
import { $, ApiError, S, api, explain, notice, setBalance, touchDevice } from "./state.js";
import { QUICK, el, formatX, parseFraction, settled, sleep, times } from "./util.js";

/** The feature playing itself: null, or {stop: the player asked to pause, skip: show the rest at once}. */
export const FEATURE = { on: false, stop: false, skip: false };

/** How a step is played live: Quick spin shortens every pause and fall (to QUICK of its length), never skips
 * one; only SKIP (the rest of a feature at once) draws without animation. */
function liveAnim() {
  const quick = () => turboOn() || FEATURE.skip;
  return { fast: quick, wait: (ms) => (FEATURE.skip ? Promise.resolve() : sleep(turboOn() ? ms * QUICK : ms)),
    pause: (ms) => (FEATURE.skip ? Promise.resolve() : sleep(ms)), quiet: FEATURE.skip };
}

export function roundOpen() { return !!(S.round && S.round.status === "open"); }

export function updateControls() {
  const open = roundOpen();
  // Offline, nothing can be played: every control waits for the connection (the round is safe on the server).
  const lock = S.busy || open || S.paused || S.offline || !!S.free; // free rounds: the campaign's bet
  $("bet-minus").disabled = lock || S.betIndex <= 0;
  $("bet-plus").disabled = lock || S.betIndex >= betLadder().length - 1;
  $("bet-open").disabled = lock;
  $("auto-adjust").disabled = lock;
  const price = buyPrice();
  $("buy").disabled = lock || price === null || (S.balance !== null && price > S.balance);
  $("buy").title = price !== null && S.balance !== null && price > S.balance ? t("Your balance does not cover the feature price.") : "";
  const spin = $("spin");
  // SPIN keeps the keyboard focus while a round plays: it is never disabled, only marked busy.
  spin.disabled = S.paused || S.offline;
  $("feature-skip").disabled = S.offline;
  $("turbo").disabled = S.offline;
  $("autoplay-open").disabled = S.offline || !!S.free;
  document.body.dataset.offline = S.offline ? "1" : "";
  const stopping = FEATURE.on;
  spin.setAttribute("aria-disabled", String(S.busy && !stopping));
  spin.textContent = stopping ? (FEATURE.stop ? t("STOPPING") : t("STOP")) : open && S.renderer ? S.renderer.nextLabel(S.round, S.game) : t("SPIN");
  spin.classList.toggle("feature", open || stopping);
  spin.classList.toggle("busy", S.busy && !stopping);
  $("feature-skip").hidden = !FEATURE.on || FEATURE.skip;
  document.body.dataset.roundState = S.busy ? "busy" : open ? "open" : "idle";
  document.body.dataset.feature = FEATURE.on ? "playing" : "";
  $("controls").dataset.state = document.body.dataset.roundState;
  document.dispatchEvent(new CustomEvent("rf:state"));
}
document.addEventListener("rf:controls", updateControls);

export function setMessage(text) { $("message").textContent = text || ""; }
function setWin(amount, label = t("WIN")) {
  const w = $("win");
  w.dataset.minor = amount ? String(amount) : "0";
  w.dataset.label = label;
  w.replaceChildren(...(amount ? [el("small", { text: label }), el("span", { text: S.money(amount) })] : []));
  w.classList.toggle("show", !!amount);
}

/** The table is taken down when the player leaves it: nothing of one game lingers into the next. */
export function leaveGame() {
  S.renderer = null;
  S.round = null;
  S.game = null;
  FEATURE.on = false;
  endMomentNow();
  music(false);
  useSounds(null);
  $("stage").replaceChildren();
  delete $("stage").dataset.resumed;
}

/** The game's own sounds (its folder's sounds.toml, as the games list names it), or null: a game without them,
 * or whose file cannot be fetched now, sounds like every other (sound is a nicety: never an error). */
async function gameSounds(game) {
  const url = game.client && game.client.sounds;
  if (!url) return null;
  SOUNDS[url] ||= fetch(url).then((r) => (r.ok ? r.json() : null)).then((body) => (body && body.effects) || null)
    .catch(() => { delete SOUNDS[url]; return null; });  // tried again at the next opening
  return SOUNDS[url];
}
const SOUNDS = {};

const idleHint = () => (touchDevice() ? t("Press SPIN to play.") : t("Press SPIN or the space bar to play."));

export async function openGame(gameId, token) {
  const game = S.gamesById[gameId];
  if (!game) { notice(t("There is no game “{game}” on this server.", { game: gameId })); location.hash = "#/lobby"; return; }
  S.game = game;
  S.round = null;
  S.busy = true;
  document.title = game.title;
  $("game-title").textContent = game.title;
  $("game-facts").replaceChildren(`${t("RTP")} ${formatRtp(game.rtp)} · ${t("Max win")} ${formatX(game.max_win_x)}`,
    ...(game.volatility_bolts ? [" · ", volatilityNode(game.volatility_bolts, game.volatility)] : []));
  $("help-toggle").setAttribute("aria-expanded", "false");
  $("stage").dataset.game = gameId;
  setMessage("");
  setWin(0);
  S.betIndex = defaultBetIndex(game);
  setBetIndex(S.betIndex);
  try {
    const [help, unfinished, sounds] = await Promise.all([gameHelp(gameId), api.unfinished(gameId), gameSounds(game)]);
    if (token !== S.viewToken) return;
    useSounds(sounds);
    S.help = help;
    const stage = el("div.stage-inner");
    $("stage").replaceChildren(stage);
    S.renderer = rendererFor(gameId).create(stage, rendererContext(game, help, () => (S.round ? S.round.bet : currentBet())));
    if (unfinished.length) await resume(unfinished[0]);
    else { S.renderer.newRound(); S.renderer.showcase(); setMessage(idleHint()); }
    if (unfinished.length && S.renderer.nextAction(unfinished[0], game) === null) continueFeature(unfinished[0], token);
    music(true);
    document.dispatchEvent(new CustomEvent("rf:game-open", { detail: { game, help } }));
  } catch (err) {
    notice(explain(err));
  } finally {
    if (token === S.viewToken) {
      S.busy = false;
      updateControls();
      if (!document.activeElement || document.activeElement === document.body) $("spin").focus({ preventScroll: true });
    }
  }
}

/** What a renderer is given: the game, its help, money at the round's bet, the feature moments, and
 * ``counters``, which it calls whenever a counter it shows changes. */
export function rendererContext(game, help, bet) {
  const atBet = (x) => S.money(times(bet(), x));
  return { game, help, money: S.money, bet, moment, atBet, winWords: (x) => `${atBet(x)} (${formatX(x)})`, counters: onCounters };
}

/** One source of truth for the counters: when the renderer's change (free spins left, multiplier, the
 * feature's total or prize), the message bar and the win box say the same in the same moment. */
function onCounters({ totalX = null, prizeX = null } = {}) {
  if (!S.renderer || S.round === null || !(FEATURE.on || roundOpen())) return;
  const words = S.renderer.liveStatus ? S.renderer.liveStatus() : "";
  if (words) setMessage(`${words}.`);
  if (prizeX !== null) setWin(times(S.round.bet, prizeX), t("PRIZE NOW"));
  else if (totalX !== null) setWin(times(S.round.bet, totalX), t("WIN SO FAR"));
}

async function resume(rnd) {
  S.round = rnd;
  const ladder = betLadder();
  if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
  showBet(rnd.bet);
  await S.renderer.restore(rnd);
  showOpenWin(rnd);
  const status = S.renderer.status(rnd);
  const waits = S.renderer.nextAction(rnd, S.game) !== null; // a choice of the player's (the GEMBOX)
  setMessage((status ? t("Your unfinished round was resumed where it stopped: {status}.", { status })
    : t("Your unfinished round was resumed where it stopped.")) +
    (waits ? ` ${t("Press {button} to continue.", { button: S.renderer.nextLabel(rnd, S.game) })}` : ""));
  $("stage").dataset.resumed = String(rnd.id);
}

/** A feature interrupted by a reload: the "Continue your feature" card over the board as it was left, then
 * the feature plays itself to its end (a choice of the player's, the GEMBOX, still waits for the press). */
async function continueFeature(rnd, token) {
  await Promise.resolve(); // after openGame has freed the table
  const status = S.renderer.status(rnd);
  await moment({ title: t("CONTINUE YOUR FEATURE"), kind: "resume", sub: status, ms: 3000,
    text: t("Your feature was interrupted. It plays on from where it stopped: {stop} pauses it.", { stop: t("STOP") }) });
  // The player may have pressed SPIN on the card already, or left the game.
  if (token === S.viewToken && !S.busy && !FEATURE.on && S.round && S.round.id === rnd.id && roundOpen()) spin();
}

/** During a feature: the prize the feature holds now (the renderer's, e.g. a ladder runner) or the win so far. */
function showOpenWin(rnd) {
  const prize = S.renderer.currentPrize ? S.renderer.currentPrize(rnd) : null;
  if (prize !== null && prize !== undefined) setWin(times(rnd.bet, prize), t("PRIZE NOW"));
  else setWin(rnd.total_win, t("WIN SO FAR"));
}

/** The operator's least time between round starts: this client waits it out rather than be refused. */
async function keepPace(token) {
  const gap = (S.settings.min_round_seconds || 0) * 1000;
  const wait = S.lastStart + gap - performance.now();
  if (gap && S.lastStart && wait > 0) {
    setMessage(t("Next round in {seconds} s (rounds start at most every {gap} s here).",
      { seconds: formatNumber(wait / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
        gap: S.settings.min_round_seconds }));
    await sleep(wait);
  }
  return token === S.viewToken;
}

/** Quick spin still shows each result for a least time: a round's for the operator's profile
 * (min_result_seconds where it sends one, else its least time between rounds), each step of a feature
 * 0.3 s so that every free spin is seen. */
function leastShowMs(step) {
  if (step) return 300;
  const s = S.settings.min_result_seconds ?? S.settings.min_round_seconds;
  return (typeof s === "number" ? s : 0) * 1000;
}

/** SPIN: start a round (or continue the open one); during a feature it is STOP. Returns the round when it ends. */
export async function spin({ buy = false } = {}) {
  if (FEATURE.on) { FEATURE.stop = true; updateControls(); return null; }
  if (S.busy || S.paused || S.offline || !S.renderer || document.body.dataset.view !== "game") return null;
  endMomentNow(); // SPIN on the "Continue your feature" card continues at once
  const token = S.viewToken;
  S.busy = true;
  updateControls();
  notice("");
  const game = S.game;
  const starting = !roundOpen();
  const bet = currentBet();
  const context = { cost: buy ? buyPrice() : bet, buy, lowest: betLadder()[0], autoAdjust: $("auto-adjust").checked };
  const pressedAt = performance.now();
  let rnd = null;
  try {
    if (starting) {
      rnd = await startRound(game, bet, buy, token);
      if (!rnd) return null;
    } else {
      rnd = await api.playStep(S.round.id, S.renderer.nextAction(S.round, game), newKey());
    }
    if (token !== S.viewToken) return null;
    rnd = await playOut(rnd, starting, token);
    if (!rnd || token !== S.viewToken) return null;
    if (turboOn() && rnd.status !== "open") {
      const left = leastShowMs(false) - (performance.now() - pressedAt);
      if (left > 0) await sleep(left);
    }
    return rnd.status === "open" ? null : rnd;
  } catch (err) {
    await refused(err, game, context);
    return null;
  } finally {
    FEATURE.on = false;
    FEATURE.skip = false;
    delete document.body.dataset.animating;
    if (token === S.viewToken) {
      S.busy = false;
      updateControls();
      if (!document.activeElement || document.activeElement === document.body) $("spin").focus({ preventScroll: true });
    }
  }
}

async function startRound(game, bet, buy, token) {
  setWin(0);
  $("win").classList.remove("big");
  if (!(await keepPace(token))) return null;
  setMessage("");
  const free = S.free; // a free round of a campaign: its bet, nothing staked
  const ask = () => (free ? api.startFreeRound(game.id, { campaign: free.id, bet: free.bet }, newKey()) :
    api.startRound(game.id, { bet, autoAdjust: $("auto-adjust").checked, buyFeature: buy }, newKey()));
  let rnd;
  try {
    rnd = await ask();
  } catch (err) {
    // Another tab or device started a round moments ago: wait out the pace once and ask again.
    if (!(err instanceof ApiError && err.code === "too_soon")) throw err;
    S.lastStart = performance.now();
    if (!(await keepPace(token))) return null;
    rnd = await ask();
  }
  // The server counts from when it started the round: at the latest, when its answer arrived.
  S.lastStart = performance.now();
  if (token !== S.viewToken) return null;
  play("spin");
  S.renderer.newRound(rnd);
  if (rnd.bet_adjusted) {
    const ladder = betLadder();
    if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
    showBet(rnd.bet);
    localStorage.setItem(`rf.bet.${game.id}`, String(rnd.bet));
    notice(t("Your balance did not cover {asked}: the bet was lowered to {bet}.", { asked: S.money(bet), bet: S.money(rnd.bet) }), "warn", 6000);
  }
  if (S.session) { S.session.staked += rnd.cost; updateSessionBar(); }
  return rnd;
}

/** Draw the step just played, then play the feature's further steps by themselves until a choice is the
 * player's (the GEMBOX), the player presses STOP, or the round ends. */
async function playOut(rnd, starting, token) {
  let first = true;
  for (;;) {
    S.round = rnd;
    const step = rnd.steps[rnd.steps.length - 1];
    // A seamless wallet's win not yet acknowledged by the operator's wallet is not in the balance yet.
    const credited = rnd.status === "finished" && !creditPending(rnd) ? rnd.paid : 0;
    setBalance(rnd.balance - credited); // the stake is gone at once; the win counts in after the animation
    if (first && starting && rnd.mode !== "paid") {
      FEATURE.on = true; // a bought feature plays itself from its intro on: STOP and SKIP are there
      updateControls();
      await announceBuy(rnd);
    }
    document.body.dataset.animating = "1";
    const stepStarted = performance.now();
    await S.renderer.playStep(step, rnd, liveAnim());
    // The result waits for the board: every symbol landed, every win shown, before a figure moves.
    await settled($("stage"));
    delete document.body.dataset.animating;
    if (token !== S.viewToken) return null;
    first = false;
    if (rnd.status !== "open") break;
    showOpenWin(rnd);
    const status = S.renderer.status(rnd);
    setMessage(status ? `${status}.` : "");
    if (FEATURE.on && turboOn() && !FEATURE.skip) {
      const left = leastShowMs(true) - (performance.now() - stepStarted);
      if (left > 0) await sleep(left);
    }
    const choice = S.renderer.nextAction(rnd, S.game) !== null;
    if (choice || FEATURE.stop) {
      setMessage(`${status ? status + ". " : ""}${FEATURE.stop ? t("Feature paused.") + " " : ""}` +
        t("Press {button} to continue.", { button: S.renderer.nextLabel(rnd, S.game) }));
      FEATURE.on = false;
      FEATURE.stop = false;
      return rnd;
    }
    if (!FEATURE.on) {
      FEATURE.on = true;
      updateControls();
    }
    if (realityCheckDue(true)) await showRealityCheck();
    if (token !== S.viewToken) return null;
    rnd = await api.playStep(rnd.id, null, newKey());
    if (token !== S.viewToken) return null;
  }
  FEATURE.on = false;
  updateControls();
  await finishRound(rnd);
  setBalance(rnd.balance);
  if (creditPending(rnd)) awaitCredit(rnd);
  countRound(rnd);
  updateSessionBar();
  if (rnd.campaign) await freeRoundEnded(rnd);
  return rnd;
}

async function refused(err, game, context) {
  delete document.body.dataset.animating;
  if (err instanceof ApiError && err.code === "unfinished_round") {
    const open = await api.unfinished(game.id).catch(() => []);
    if (open.length) await resume(open[0]);
  }
  if (err instanceof ApiError && err.status === 401) { document.dispatchEvent(new CustomEvent("rf:signout", { detail: explain(err) })); return; }
  if (err instanceof ApiError && err.code === "reality_check_due") {
    setMessage(t("A reality check is due. Answer it, then press {spin} again.", { spin: t("SPIN") }));
    await showRealityCheck({ fromServer: true });
    setMessage(idleHint());
    return;
  }
  notice(explain(err, context));
  if (err instanceof ApiError && err.code === "round_not_open") S.round = null;
}

/** The bought feature's intro: what was bought (e.g. "10 FREE SPINS") and its price, over a fresh board. */
async function announceBuy(rnd) {
  const intro = S.renderer.buyIntro ? S.renderer.buyIntro(rnd) : null;
  const price = S.money(rnd.cost);
  setMessage(`${t("Feature bought for {price}.", { price })} ${t("The receipt stays in your history.")}`);
  await moment({ title: intro || t("FEATURE BOUGHT"), kind: "intro", amount: intro ? "" : price,
    sub: t("Feature bought for {price}.", { price }),
    text: `${t("{x} your total bet of {bet}.", { x: formatX(S.game.feature_buy_price_x), bet: S.money(rnd.bet) })} ` +
      t("The feature plays by itself: {stop} pauses it.", { stop: t("STOP") }) });
}

/** How many of the round's steps were feature steps, in words ("10 free spins played"). */
function playedWords(rnd) {
  const kinds = rnd.steps.filter((s) => s.kind === "free_spin" || s.kind === "respin");
  if (!kinds.length) return "";
  const n = kinds.length;
  return kinds[0].kind === "respin" ? tn("{n} re-spin played", "{n} re-spins played", n)
    : tn("{n} free spin played", "{n} free spins played", n);
}

async function finishRound(rnd) {
  if (rnd.status === "void") {
    setWin(0);
    const reason = rnd.void_reason || t("malfunction");
    setMessage(t("The round was void: {reason}. Your stake was refunded.", { reason }));
    notice(t("The round was void and the stake refunded: {reason}.", { reason }), "warn");
    return;
  }
  const paid = rnd.paid || 0;
  const feature = rnd.steps.length > 1;
  const f = parseFraction(rnd.total_win_x);
  const x = f ? f.n / f.d : 0;
  const big = x >= BIG_WIN_X;
  const played = feature ? playedWords(rnd) : "";
  // The message bar says the result before a card covers the table: nothing stale behind it.
  const crediting = creditPending(rnd) ? ` ${t("Win being credited…")}` : "";
  const won = t("You won {amount} ({x} the bet).", { amount: S.money(paid), x: formatX(rnd.total_win_x) });
  setMessage(paid ? `${won}${played ? ` ${played}.` : ""}${crediting}` :
    feature ? `${t("The feature ends without a win.")}${played ? ` ${played}.` : ""}` : t("No win this time."));
  if (S.renderer.finish) S.renderer.finish(rnd);
  // A big win's figure is counted up on its card first: the win box shows it when the count ends.
  const label = feature ? t("TOTAL WIN") : t("WIN");
  if (!big) setWin(paid, label);
  if (big) {
    await moment({ title: winTitle(x), count: paid, big: true, sub: played ? `${t("Feature total")} · ${played}` : "",
      text: t("{x} your bet.", { x: formatX(rnd.total_win_x) }) });
    setWin(paid, label);
  } else if (feature) {
    await moment({ title: t("FEATURE COMPLETE"), kind: "summary", amount: S.money(paid), sub: played,
      text: paid ? t("The feature's total win: {x} your bet.", { x: formatX(rnd.total_win_x) }) : t("The feature ends without a win.") });
  } else if (paid) {
    play(winSound(x));
  }
  $("win").classList.toggle("big", big);
}

$("feature-skip").addEventListener("click", () => {
  FEATURE.skip = true;
  endMomentNow();
  updateControls();
  $("spin").focus({ preventScroll: true });
});

/** Whether the round's win waits for the operator's wallet (seamless wallet: "win being credited"); the zero
 *  credit closing a losing round (close_losing_rounds) is no win to wait for. */
function creditPending(rnd) {
  return !!(rnd.paid && rnd.wallet_settlement && rnd.wallet_settlement.kind === "credit"
    && rnd.wallet_settlement.status === "pending");
}

/** Poll the wallet until the operator's wallet acknowledged the win, then show the balance with it. */
async function awaitCredit(rnd) {
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    try {
      const wallet = await api.wallet();
      if (!wallet.credits_pending) {
        setBalance(wallet.balance);
        setMessage(t("Your win of {amount} is credited.", { amount: S.money(rnd.paid) }));
        return;
      }
    } catch { /* the next try */ }
  }
}
