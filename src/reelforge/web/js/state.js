// What every view of the client shares: the state, the API, notices and the refusals in words.

import { Api, ApiError, NetworkError } from "./api.js";
import { t } from "./i18n.js";
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
  if (offline) notice(t("Connection lost. Reconnecting…"), "warn");
  else notice(t("Connection restored."), "ok", 2500);
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
    return t("The connection to the game server was lost and could not be restored. Nothing is lost: " +
      "the server keeps your round. Check your connection and reload the page to continue.");
  }
  if (!(err instanceof ApiError)) return t("Something went wrong in the game client: {error}", { error: err.message || err });
  const money = S.money;
  const balance = money(S.balance ?? 0);
  switch (err.code) {
    case "insufficient_balance":
      if (context.buy) return t("Your balance of {balance} does not cover the feature price of {price}.", { balance, price: money(context.cost) });
      if (context.lowest !== undefined && (S.balance ?? 0) < context.lowest) {
        return t("Your balance of {balance} is below the lowest bet of {bet}.", { balance, bet: money(context.lowest) });
      }
      return (context.cost ? t("Insufficient balance: your balance of {balance} does not cover {cost}.", { balance, cost: money(context.cost) })
        : t("Insufficient balance: your balance of {balance} does not cover this bet.", { balance })) + " " +
        (context.autoAdjust ? t("Lower the bet.") : t("Lower the bet, or turn on “{setting}”.", { setting: t("Auto adjust bet") }));
    case "missing_token": case "unknown_token": case "bad_token": case "session_expired":
      return t("Your session has expired. Please sign in again.");
    case "unfinished_round":
      return t("You have an unfinished round of this game; it has been resumed where it stopped.");
    case "bet_not_on_ladder":
      return t("That bet is not offered for this game. Choose a bet from the bet panel.");
    case "bet_above_maximum":
      return S.settings.max_bet ? t("That stake is above the maximum of {amount}.", { amount: money(S.settings.max_bet) })
        : t("That stake is above the maximum allowed per round.");
    case "stake_above_maximum": {
      const top = S.settings.max_stake ?? S.settings.max_bet;
      const over = top ? t("That stake is above the maximum of {amount} per round.", { amount: money(top) })
        : t("That stake is above the maximum allowed per round.");
      return context.buy ? `${over} ${t("The feature cannot be bought at this bet.")}` : over;
    }
    case "too_soon":
      return t("Rounds on this site start at most once every {seconds} seconds. Please wait a moment and press {spin} again.",
        { seconds: S.settings.min_round_seconds, spin: t("SPIN") });
    case "session_limit_reached":
      return t("You have reached the limit of this session: play has stopped. Take a break; you can view your history.");
    case "play_session_ended":
      return t("Your session was ended by the site: play has stopped for a break. You can view your history.");
    case "loss_limit_reached":
      return t("This round would take your losses in this session past your limit of {amount}. Play has stopped; you can view your history.",
        { amount: money(S.settings.loss_limit ?? 0) });
    case "reality_check_due":
      return t("A reality check is due: please answer it to continue.");
    case "round_not_open":
      return t("This round has already finished.");
    case "unknown_game":
      return t("This game is not offered.");
    case "operator_key_required":
      return t("Games on this server are opened from the operator's site.");
    case "invalid_player":
      return t("That player name cannot be used: use 1 to 64 letters, digits and _ . @ -");
    case "internal_error":
      return t("The game server had an internal error. Your round is safe; please try again.");
    default:
      // The server's own message, in the session's language; the code names the refusal for support.
      return err.message && err.message !== err.code ? `${err.message} (${err.code})` : t("The server refused the request.");
  }
}

export { ApiError, NetworkError };
