// Autoplay, only where the operator allows it (settings.autoplay; off by default, as in the UK): a number
// of rounds no more than the operator's maximum, a loss limit the player must set, an optional single-win
// limit, and a stop when a feature starts. It stops too on any refusal, a reality check, or the player.

import { currentBet } from "./bets.js";
import { t, tn } from "./i18n.js";
import { $, S } from "./state.js";
import { setMessage, spin, updateControls } from "./table.js";
import { el } from "./util.js";

const AUTO = { on: false, left: 0, lossLimit: 0, winLimit: 0, stopOnFeature: false, startBalance: 0 };

const ROUNDS = [10, 25, 50, 100, 250, 500, 1000];
const LOSS_X = [2, 5, 10, 20, 50, 100, 200];
const WIN_X = [0, 10, 50, 100, 500];

function options(select, values, label) {
  select.replaceChildren(...values.map((v) => el("option", { value: String(v), text: label(v) })));
}

$("autoplay-open").addEventListener("click", () => {
  if (AUTO.on) { stop(t("Autoplay stopped.")); return; }
  const max = S.settings.autoplay_max_rounds || 100;
  const bet = currentBet();
  options($("autoplay-rounds"), ROUNDS.filter((n) => n <= max).concat(ROUNDS.some((n) => n === max) ? [] : [max]).sort((a, b) => a - b),
    (n) => tn("{n} round", "{n} rounds", n));
  options($("autoplay-loss"), LOSS_X.map((x) => x * bet), (v) => S.money(v));
  options($("autoplay-win"), WIN_X.map((x) => x * bet), (v) => (v ? S.money(v) : t("No limit")));
  $("autoplay-dialog").showModal();
});
$("autoplay-cancel").addEventListener("click", () => $("autoplay-dialog").close());
$("autoplay-start").addEventListener("click", () => {
  $("autoplay-dialog").close();
  AUTO.left = Number($("autoplay-rounds").value);
  AUTO.lossLimit = Number($("autoplay-loss").value);
  AUTO.winLimit = Number($("autoplay-win").value);
  AUTO.stopOnFeature = $("autoplay-feature").checked;
  AUTO.startBalance = S.balance;
  run();
});

document.addEventListener("rf:language", () => show());
function show() {
  const btn = $("autoplay-open");
  btn.textContent = AUTO.on ? t("STOP AUTO ({n})", { n: AUTO.left }) : t("AUTO");
  btn.classList.toggle("running", AUTO.on);
  btn.dataset.running = String(AUTO.on);
}

function stop(why) {
  AUTO.on = false;
  AUTO.left = 0;
  show();
  if (why) setMessage(why);
  updateControls();
}

async function run() {
  AUTO.on = true;
  show();
  const game = S.game;
  while (AUTO.on && AUTO.left > 0 && S.game === game) {
    AUTO.left -= 1;
    show();
    const rnd = await spin();
    if (!AUTO.on) break;
    if (!rnd) { stop(S.round && S.round.status === "open" ? t("Autoplay stopped: the feature waits for you.") : t("Autoplay stopped.")); return; }
    const lost = AUTO.startBalance - S.balance;
    if (lost >= AUTO.lossLimit) { stop(t("Autoplay stopped: your loss limit of {amount} is reached.", { amount: S.money(AUTO.lossLimit) })); return; }
    if (AUTO.winLimit && (rnd.paid || 0) >= AUTO.winLimit) { stop(t("Autoplay stopped: a single win of {amount} reached your limit.", { amount: S.money(rnd.paid) })); return; }
    if (AUTO.stopOnFeature && rnd.steps.length > 1) { stop(t("Autoplay stopped after a feature.")); return; }
  }
  if (AUTO.on) stop(S.game === game ? t("Autoplay finished.") : "");
}

/** Autoplay stops when the player leaves the game. */
export function stopAutoplay() { if (AUTO.on) stop(""); }
document.addEventListener("rf:state", () => {
  // Nothing to change but the bet lock: the bet cannot change while autoplay runs.
  if (AUTO.on) { $("bet-minus").disabled = true; $("bet-plus").disabled = true; $("bet-open").disabled = true; }
});
