// reelforge browser client: lobby, game table, history and audit view.
// Plain ES modules, no build step. Every amount from the server is integer
// minor units; multiples of the bet are exact fraction strings ("_x" fields).

import { Api, ApiError, NetworkError, newKey } from "./api.js";
import { rendererFor } from "./games/index.js";
import { boardGrid, describeEvent, findBoard } from "./games/generic.js";
import { compact, el, formatX, makeMoney, parseFraction, sleep, times, words } from "./util.js";

const $ = (id) => document.getElementById(id);

const S = {
  player: null,
  balance: null,
  currency: "EUR",
  money: makeMoney("EUR"),
  games: [],
  gamesById: {},
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
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  document.body.dataset.view = view;
  $("nav").hidden = view === "login";
  $("wallet").hidden = view === "login";
}

async function route() {
  S.viewToken += 1;
  const token = S.viewToken;
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
  show("login");
  if (message) notice(message);
}

async function loadSession() {
  const [wallet, games] = await Promise.all([api.wallet(), api.games()]);
  S.player = wallet.player;
  S.currency = wallet.currency;
  S.money = makeMoney(wallet.currency);
  $("player-name").textContent = wallet.player;
  setBalance(wallet.balance);
  S.games = games;
  S.gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
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
    el("dt", { text: "Build" }), el("dd", { text: g.build }),
    g.feature_buy_price_x ? [el("dt", { text: "Feature buy" }), el("dd", { text: formatX(g.feature_buy_price_x) })] : null),
  el("span.resume-badge", { hidden: true, "data-testid": "resume-badge", text: "Unfinished round" }))));
  // Mark games with an unfinished round (they resume when opened).
  const open = [];
  await Promise.all(S.games.map(async (g) => {
    try {
      const r = await api.unfinished(g.id);
      if (r) open.push(g.id);
      if (r && token === S.viewToken) lobby.querySelector(`[data-game="${g.id}"] .resume-badge`).hidden = false;
    } catch { /* the badge is a hint only */ }
  }));
  // Re-opening the client with a round unfinished goes straight back to it.
  if (resumeOpen && open.length && token === S.viewToken) {
    const g = S.games.find((x) => open.includes(x.id));
    location.hash = `#/game/${g.id}`;
  }
}

function formatRtp(rtp) {
  const f = parseFraction(rtp); // "0.962", "481/5" (percent) or a number
  const v = f ? f.n / f.d : NaN;
  if (!Number.isFinite(v)) return String(rtp);
  const pct = v <= 1 ? v * 100 : v;
  return `${pct.toLocaleString(undefined, { maximumFractionDigits: 3 })}%`;
}

// -- game table ------------------------------------------------------------------------------------------
const anim = {
  fast: () => $("turbo").checked,
  wait: (ms) => ($("turbo").checked ? Promise.resolve() : sleep(ms)),
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

function setBetIndex(i) {
  const ladder = betLadder();
  S.betIndex = Math.max(0, Math.min(ladder.length - 1, i));
  const bet = currentBet();
  $("bet").textContent = S.money(bet);
  $("bet").dataset.minor = String(bet);
  localStorage.setItem(`rf.bet.${S.game.id}`, String(bet));
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
  const lock = S.busy || open;
  $("bet-minus").disabled = lock || S.betIndex <= 0;
  $("bet-plus").disabled = lock || S.betIndex >= betLadder().length - 1;
  $("auto-adjust").disabled = lock;
  $("buy").disabled = lock || buyPrice() === null;
  const spin = $("spin");
  spin.disabled = S.busy;
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

async function openGame(gameId, token) {
  const game = S.gamesById[gameId];
  if (!game) { notice(`There is no game “${gameId}” on this server.`); location.hash = "#/lobby"; return; }
  show("game");
  S.game = game;
  S.round = null;
  S.busy = true;
  $("game-title").textContent = game.title;
  $("game-build").textContent = `Build ${game.build} · RTP ${formatRtp(game.rtp)} · max win ${formatX(game.max_win_x)}`;
  $("help").hidden = true;
  $("help-toggle").setAttribute("aria-expanded", "false");
  $("stage").replaceChildren();
  $("stage").dataset.game = gameId;
  setMessage("");
  setWin(0);
  S.betIndex = defaultBetIndex(game);
  setBetIndex(S.betIndex);
  try {
    const [help, unfinished] = await Promise.all([api.help(gameId), api.unfinished(gameId)]);
    if (token !== S.viewToken) return;
    S.help = help;
    renderHelp(help);
    const stage = el("div.stage-inner");
    $("stage").replaceChildren(stage);
    S.renderer = rendererFor(gameId).create(stage, { game, help, money: S.money });
    if (unfinished) await resume(unfinished);
    else { S.renderer.newRound(); setMessage("Press SPIN or the space bar to play."); }
  } catch (err) {
    notice(explain(err));
  } finally {
    if (token === S.viewToken) { S.busy = false; updateControls(); }
  }
}

async function resume(rnd) {
  S.round = rnd;
  const ladder = betLadder();
  if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
  $("bet").textContent = S.money(rnd.bet);
  $("bet").dataset.minor = String(rnd.bet);
  await S.renderer.restore(rnd);
  const won = rnd.total_win || 0;
  setWin(won, "WIN SO FAR");
  setMessage(`Round ${rnd.id} resumed where it stopped${S.renderer.status(rnd) ? ": " + S.renderer.status(rnd) : ""}. ` +
    `Press ${S.renderer.nextLabel(rnd, S.game)} to continue.`);
  $("stage").dataset.resumed = String(rnd.id);
}

/** SPIN: start a round, or play the open round's next step. */
async function spin({ buy = false } = {}) {
  if (S.busy || !S.renderer || document.body.dataset.view !== "game") return;
  const token = S.viewToken;
  S.busy = true;
  updateControls();
  notice("");
  const game = S.game;
  let context = {};
  try {
    let rnd;
    if (roundOpen()) {
      const action = S.renderer.nextAction(S.round, game);
      rnd = await api.playStep(S.round.id, action, newKey());
    } else {
      const bet = currentBet();
      context = { cost: buy ? buyPrice() : bet };
      setWin(0);
      setMessage("");
      rnd = await api.startRound(game.id, { bet, autoAdjust: $("auto-adjust").checked, buyFeature: buy }, newKey());
      if (token !== S.viewToken) return;
      S.renderer.newRound(rnd);
      if (rnd.bet_adjusted) {
        const ladder = betLadder();
        if (ladder.includes(rnd.bet)) S.betIndex = ladder.indexOf(rnd.bet);
        $("bet").textContent = S.money(rnd.bet);
        $("bet").dataset.minor = String(rnd.bet);
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
    document.body.dataset.animating = "1";
    await S.renderer.playStep(step, rnd, anim);
    delete document.body.dataset.animating;
    if (token !== S.viewToken) return;
    setBalance(rnd.balance);
    afterStep(rnd, step);
  } catch (err) {
    delete document.body.dataset.animating;
    if (err instanceof ApiError && err.code === "unfinished_round") {
      const open = await api.unfinished(game.id).catch(() => null);
      if (open) await resume(open);
    }
    if (err instanceof ApiError && err.status === 401) { signOut(explain(err)); return; }
    notice(explain(err, context));
    if (err instanceof ApiError && err.code === "round_not_open") S.round = null;
  } finally {
    if (token === S.viewToken) { S.busy = false; updateControls(); }
  }
}

function afterStep(rnd, step) {
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
  setWin(paid, rnd.steps.length > 1 ? "TOTAL WIN" : "WIN");
  const x = parseFraction(rnd.total_win_x);
  const big = x && x.n / x.d >= 10;
  $("win").classList.toggle("big", !!big);
  setMessage(paid ? `Round ${rnd.id} won ${S.money(paid)} (${formatX(rnd.total_win_x)} the bet).` :
    `Round ${rnd.id}: no win this time.`);
  void step;
}

// -- help / paytable ----------------------------------------------------------------------------------------
function valueText(key, v) {
  if (v === null || v === undefined) return "—";
  if (key.endsWith("_x") && !Array.isArray(v) && typeof v !== "object") return formatX(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== "object")) {
    return v.map((x) => (key.endsWith("_x") ? formatX(x) : key === "bet_ladder" ? S.money(x) : String(x))).join(", ");
  }
  if (typeof v === "object") return compact(v);
  return String(v);
}

function tableOf(rows, key = "paytable") {
  // A table named ..._x... holds multiples of the bet ("paytable_x_per_way").
  const xTable = /_x(_|$)/.test(key);
  const cellText = (c, v) => (xTable && c !== "symbol" && c !== "key" && typeof v === "string" && parseFraction(v)
    ? formatX(v) : valueText(c, v));
  const cols = [];
  rows.forEach((r) => Object.keys(r).forEach((k) => { if (!cols.includes(k)) cols.push(k); }));
  return el("div.table-wrap", {}, el("table.paytable", { "data-testid": key.startsWith("paytable") ? "paytable" : `help-${key}` },
    el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { text: words(c.replace(/_x$/, "")) + (c.endsWith("_x") ? " (x bet)" : "") })))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...cols.map((c) => el("td", { text: cellText(c, r[c]) })))))));
}

function renderHelp(help) {
  const box = $("help");
  const facts = [
    ["Game", `${help.title} (id ${help.game_id ?? help.game}, version ${help.version})`],
    ["Active build", help.build],
    ["RTP", formatRtp(help.rtp)],
    ["Max win", `${formatX(help.max_win_x)} total bet`],
    ["Bets", (help.bet_ladder || []).map((b) => S.money(b)).join(", ")],
  ];
  if (help.feature_buy_price_x) facts.push(["Feature buy price", `${formatX(help.feature_buy_price_x)} total bet`]);
  const known = new Set(["title", "game", "game_id", "version", "build", "rtp", "rules", "paytable", "max_win_x",
    "bet_ladder", "currency", "feature_buy_price_x"]);
  // Every other field: plain values as facts, tables (paytables, reward lists) as tables.
  const tables = [];
  const asTable = (key, v) => {
    if (Array.isArray(v) && v.length && v.every((r) => r && typeof r === "object" && !Array.isArray(r))) return tableOf(v, key);
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const rows = Object.entries(v).map(([name, pays]) => (pays && typeof pays === "object" && !Array.isArray(pays)
        ? { [key.startsWith("paytable") ? "symbol" : "key"]: name, ...pays }
        : { [key.startsWith("paytable") ? "symbol" : "key"]: name, value: valueText(key, pays) }));
      return tableOf(rows, key);
    }
    return null;
  };
  for (const [k, v] of Object.entries(help)) {
    if (known.has(k) && k !== "paytable") continue;
    const t = v && typeof v === "object" ? asTable(k, v) : null;
    if (t) tables.push([k, t]);
    else if (!known.has(k)) facts.push([words(k.replace(/_x$/, "")), valueText(k, v)]);
  }
  tables.sort(([a], [b]) => (b.startsWith("paytable") ? 1 : 0) - (a.startsWith("paytable") ? 1 : 0));
  const rules = Array.isArray(help.rules) ? help.rules.join("\n\n") : String(help.rules || "");
  box.replaceChildren(
    el("div.help-head", {}, el("h2", { text: "Paytable & help" }),
      el("button.ghost", { type: "button", "data-testid": "help-close", onclick: () => toggleHelp(false), text: "Close" })),
    el("dl.help-facts", { "data-testid": "help-facts" }, ...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])),
    ...tables.flatMap(([k, t]) => [el("h3", { text: k === "paytable" ? "Paytable" : words(k.replace(/_x_/, "_").replace(/_x$/, "")) }), t]),
    el("h3", { text: "Rules" }),
    ...rules.split(/\n\s*\n/).map((p) => el("p.rules", { text: p.replace(/\n/g, " ") })),
  );
}

function toggleHelp(open = $("help").hidden) {
  $("help").hidden = !open;
  $("help-toggle").setAttribute("aria-expanded", String(open));
}
$("help-toggle").addEventListener("click", () => toggleHelp());
document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("help").hidden) toggleHelp(false); });

// -- controls ----------------------------------------------------------------------------------------------------
$("bet-minus").addEventListener("click", () => setBetIndex(S.betIndex - 1));
$("bet-plus").addEventListener("click", () => setBetIndex(S.betIndex + 1));
$("spin").addEventListener("click", (e) => { e.currentTarget.blur(); spin(); });
$("buy").addEventListener("click", () => {
  const price = buyPrice();
  if (price === null) return;
  $("buy-confirm-text").textContent = `Buy the feature for ${S.money(price)} (${formatX(S.game.feature_buy_price_x)} your total bet of ${S.money(currentBet())})?`;
  $("buy-confirm").hidden = false;
});
$("buy-yes").addEventListener("click", () => { $("buy-confirm").hidden = true; spin({ buy: true }); });
$("buy-no").addEventListener("click", () => { $("buy-confirm").hidden = true; });
$("notice-close").addEventListener("click", () => notice(""));
$("turbo").checked = localStorage.getItem("rf.turbo") === "1";
$("turbo").addEventListener("change", () => localStorage.setItem("rf.turbo", $("turbo").checked ? "1" : "0"));
$("auto-adjust").checked = localStorage.getItem("rf.autoAdjust") === "1";
$("auto-adjust").addEventListener("change", () => localStorage.setItem("rf.autoAdjust", $("auto-adjust").checked ? "1" : "0"));

function typing(target) {
  return target instanceof HTMLInputElement && target.type !== "checkbox" || target instanceof HTMLTextAreaElement;
}
document.addEventListener("keydown", (e) => {
  if (e.code !== "Space" || typing(e.target) || document.body.dataset.view !== "game") return;
  e.preventDefault(); // no page scroll, no click on a focused button
  if (!e.repeat) spin();
});
document.addEventListener("keyup", (e) => {
  if (e.code === "Space" && !typing(e.target) && document.body.dataset.view === "game") e.preventDefault();
});

// -- history and the audit ledger -----------------------------------------------------------------------------------
function gameTitle(id) { return (S.gamesById[id] && S.gamesById[id].title) || id; }
function when(iso) { return iso ? new Date(iso).toLocaleString() : ""; }

function historyRow(r) {
  return el("tr", { "data-round": r.id, "data-testid": `history-row-${r.id}`, tabindex: 0,
    onclick: () => { location.hash = `#/round/${r.id}`; },
    onkeydown: (e) => { if (e.key === "Enter") location.hash = `#/round/${r.id}`; } },
  el("td", {}, el("a", { href: `#/round/${r.id}`, text: `#${r.id}` })),
  el("td", { text: gameTitle(r.game) }),
  el("td", { text: when(r.created_at) }),
  el("td", { text: S.money(r.cost ?? r.bet) + (r.mode && r.mode !== "paid" ? ` (${words(r.mode)})` : "") }),
  el("td", { text: r.status === "open" ? "—" : S.money(r.paid ?? r.total_win ?? 0) }),
  el("td", {}, el(`span.status.${r.status}`, { text: words(r.status === "open" ? "unfinished" : r.status) })));
}

async function openHistory(token, more = false) {
  show("history");
  const body = $("history-rows");
  if (!more) { body.replaceChildren(); S.historyBefore = null; }
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

function eventItem(ev) {
  const board = findBoard(ev);
  const fields = Object.entries(ev).filter(([k]) => k !== "type" && (!board || k !== board.key));
  return el("li.event", { "data-type": ev.type },
    el("span.ev-type", { text: ev.type }),
    el("span.ev-fields", {}, ...fields.map(([k, v]) => el("span.ev-field", {},
      el("b", { text: k }), "=", k.endsWith("_x") && typeof v !== "object" ? `${v} (${formatX(v)})` : compact(v)))),
    board ? boardGrid(board.cells, { className: "mini" }) : null);
}

async function openRound(id, token) {
  show("round");
  $("round-title").textContent = `Round #${id}`;
  $("verify-result").hidden = true;
  $("round-resume").hidden = true;
  $("round-facts").replaceChildren();
  $("round-steps").replaceChildren();
  $("verify").dataset.round = String(id);
  try {
    const r = await api.round(id);
    if (token !== S.viewToken) return;
    $("round-title").textContent = `Round #${r.id} · ${gameTitle(r.game)}`;
    $("round-resume").hidden = r.status !== "open";
    $("round-resume").href = `#/game/${r.game}`;
    const facts = [
      ["Game", `${gameTitle(r.game)} (${r.game})`], ["Build", r.build], ["Mode", words(r.mode)],
      ["Bet", S.money(r.bet) + (r.bet_adjusted ? ` (asked ${S.money(r.requested_bet)}, auto adjusted)` : "")],
      ["Cost", S.money(r.cost)], ["Status", words(r.status)],
      ["Total win", `${S.money(r.status === "open" ? r.total_win : r.paid)} (${formatX(r.total_win_x)} the bet)`],
      ["Started", when(r.created_at)], ["Finished", when(r.finished_at) || "—"],
    ];
    if (r.void_reason) facts.push(["Void reason", r.void_reason]);
    $("round-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    $("round-steps").replaceChildren(...r.steps.map((s) => el("li.step", { "data-testid": `step-${s.index}` },
      el("div.step-head", {},
        el("strong", { text: `Step ${s.index + 1}: ${words(s.kind)}` }),
        s.action ? el("span", { text: ` action ${s.action}` }) : null,
        el("span.step-win", { text: `win ${S.money(s.win)} (${formatX(s.win_x)}) · round ${formatX(s.total_win_x)}` })),
      el("div.draws", {}, el("b", { text: "Draws: " }), compact(s.draws)),
      el("ol.events", {}, ...s.events.map(eventItem)))));
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
