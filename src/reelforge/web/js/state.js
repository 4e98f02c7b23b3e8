// What every view of the client shares: the state, the API, notices and the refusals in words.

import { Api, ApiError, NetworkError } from "./api.js";
import { makeMoney } from "./util.js";

export const $ = (id) => document.getElementById(id);

export const S = {
  player: null,
  balance: null,
  currency: "EUR",
  money: makeMoney("EUR"),
  games: [],
  gamesById: {},
  helps: {}, // help per game id (fetched once)
  // The operator's rules; a key the server does not send yet reads as off.
  settings: { reality_check_minutes: 0, turbo: true, min_round_seconds: 0, max_bet: null, autoplay: false, autoplay_max_rounds: 0 },
  session: null, // {started: ms since epoch, staked, won}
  operatorLinks: false, // whether the launch named any operator page (its buttons are shown)
  nextRealityCheck: null, // seconds into the session
  paused: false, // a reality check holds play
  lastStart: 0, // performance.now() of this client's last round start
  game: null, // the games-list entry of the open game
  help: null,
  renderer: null,
  round: null, // the current round as the server last returned it
  free: null, // the campaign whose free rounds the player is playing (its bet, rounds left, won so far), or null
  busy: false,
  offline: false, // a request is being retried: the connection is lost
  betIndex: 0,
  historyBefore: null,
  viewToken: 0, // bumps on every navigation so stale async work stops drawing
};

/** The connection is lost (a request being retried) or back: the notice says so in plain words, and the
 * table's controls wait for it. */
function setOffline(offline) {
  if (S.offline === offline) return;
  S.offline = offline;
  if (offline) notice("Connection lost. Reconnecting…", "warn");
  else notice("Connection restored.", "ok", 2500);
  document.dispatchEvent(new CustomEvent("rf:controls"));
}
export const api = new Api({ onRetry: () => setOffline(true), onRecovered: () => setOffline(false) });

/** A touch screen has no space bar to mention. */
export const touchDevice = () => navigator.maxTouchPoints > 0 || matchMedia("(pointer: coarse)").matches;

export function signedMoney(v) { return v > 0 ? `+${S.money(v)}` : v < 0 ? `−${S.money(-v)}` : S.money(0); }

export function setBalance(balance) {
  if (balance === null || balance === undefined) return;
  S.balance = balance;
  const b = $("balance");
  b.textContent = S.money(balance);
  b.dataset.minor = String(balance);
}

// -- notices: every error is shown in words; in the game view they sit in the flow, over nothing -----
let noticeTimer = null;
export function notice(text, tone = "error", hideAfterMs = 0) {
  const box = $("notice");
  clearTimeout(noticeTimer);
  if (!text) { box.hidden = true; return; }
  $("notice-text").textContent = text;
  box.className = `notice ${tone}`;
  box.dataset.tone = tone;
  box.hidden = false;
  if (hideAfterMs) noticeTimer = setTimeout(() => { box.hidden = true; }, hideAfterMs);
}

/** A refusal in words. ``context``: {cost, buy, lowest, autoAdjust} of the request refused. */
export function explain(err, context = {}) {
  if (err instanceof NetworkError) {
    return "The connection to the game server was lost and could not be restored. Nothing is lost: " +
      "the server keeps your round. Check your connection and reload the page to continue.";
  }
  if (!(err instanceof ApiError)) return `Something went wrong in the game client: ${err.message || err}`;
  const money = S.money;
  const balance = money(S.balance ?? 0);
  switch (err.code) {
    case "insufficient_balance":
      if (context.buy) return `Your balance of ${balance} does not cover the feature price of ${money(context.cost)}.`;
      if (context.lowest !== undefined && (S.balance ?? 0) < context.lowest) {
        return `Your balance of ${balance} is below the lowest bet of ${money(context.lowest)}.`;
      }
      return `Insufficient balance: your balance of ${balance} does not cover ${context.cost ? money(context.cost) : "this bet"}. ` +
        (context.autoAdjust ? "Lower the bet." : "Lower the bet, or turn on “Auto adjust bet”.");
    case "missing_token": case "unknown_token": case "bad_token": case "session_expired":
      return "Your session has expired. Please sign in again.";
    case "unfinished_round":
      return "You have an unfinished round of this game; it has been resumed where it stopped.";
    case "bet_not_on_ladder":
      return "That bet is not offered for this game. Choose a bet from the bet panel.";
    case "bet_above_maximum":
      return `That stake is above the maximum of ${S.settings.max_bet ? money(S.settings.max_bet) : "this site"}.`;
    case "stake_above_maximum": {
      const top = S.settings.max_stake ?? S.settings.max_bet;
      return `That stake is above the maximum of ${top ? money(top) : "this site"} per round` +
        (context.buy ? ": the feature cannot be bought at this bet." : ".");
    }
    case "too_soon":
      return `Rounds on this site start at most once every ${S.settings.min_round_seconds} seconds. Please wait a moment and press SPIN again.`;
    case "session_limit_reached":
      return "You have reached the limit of this session: play has stopped. Take a break; you can view your history.";
    case "play_session_ended":
      return "Your session was ended by the site: play has stopped for a break. You can view your history.";
    case "loss_limit_reached":
      return `This round would take your losses in this session past your limit of ${money(S.settings.loss_limit ?? 0)}. ` +
        "Play has stopped; you can view your history.";
    case "reality_check_due":
      return "A reality check is due: please answer it to continue.";
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

export { ApiError, NetworkError };
