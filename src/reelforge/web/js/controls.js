// The table's controls besides the bet: keys, Feature Buy, help, the settings menu (sound, music, quick
// spin where the operator allows it, the intro screen), the mute button and the game's intro screen.

import { buyPrice, currentBet } from "./bets.js";
import { renderHelp } from "./help.js";
import { music, musicOn, play, setMusic, setSound, soundOn } from "./sound.js";
import { t } from "./i18n.js";
import { $, S } from "./state.js";
import { FEATURE, roundOpen, spin } from "./table.js";
import { el, formatX } from "./util.js";

const focusSpin = () => { if (document.body.dataset.view === "game") $("spin").focus({ preventScroll: true }); };

// -- keys: Space and Enter spin only from the page itself; on a control they do that control's job ------------
const dialogOpen = () => !!document.querySelector("dialog[open]");
const onPage = (target) => !target || target === document.body || target === document.documentElement;
document.addEventListener("keydown", (e) => {
  if ((e.code !== "Space" && e.key !== "Enter") || !onPage(e.target)) return;
  if (document.body.dataset.view !== "game" || dialogOpen()) return;
  e.preventDefault(); // no page scroll
  if (!e.repeat) { focusSpin(); spin(); }
});

$("spin").addEventListener("click", () => spin());

// -- Feature Buy -----------------------------------------------------------------------------------------------------
$("buy").addEventListener("click", () => {
  const price = buyPrice();
  if (price === null || S.busy || roundOpen()) return;
  $("buy-confirm-text").textContent = t("Buy the feature for {price}? That is {x} your total bet of {bet}, debited now.",
    { price: S.money(price), x: formatX(S.game.feature_buy_price_x), bet: S.money(currentBet()) });
  $("buy-confirm").showModal();
  $("buy-no").focus();
});
$("buy-yes").addEventListener("click", () => { $("buy-confirm").close(); focusSpin(); spin({ buy: true }); });
$("buy-no").addEventListener("click", () => $("buy-confirm").close());
$("buy-confirm").addEventListener("close", focusSpin);
$("notice-close").addEventListener("click", () => { $("notice").hidden = true; });

// -- help ----------------------------------------------------------------------------------------------------------------
export function toggleHelp(open = !$("help").open) {
  const box = $("help");
  if (open) {
    if (!S.help || !S.game) return;
    box.replaceChildren(...renderHelp(S.help, S.game.id, S.round ? S.round.bet : currentBet()));
    box.showModal();
    box.scrollTop = 0;
  } else if (box.open) {
    box.close();
  }
  $("help-toggle").setAttribute("aria-expanded", String(open));
}
$("help-toggle").addEventListener("click", () => toggleHelp());
$("help").addEventListener("close", () => { $("help-toggle").setAttribute("aria-expanded", "false"); focusSpin(); });

// -- quick spin and auto adjust: remembered; quick spin only where the operator offers it --------------------------------
function syncTurbo(on) {
  $("turbo").checked = on;
  $("setting-turbo").checked = on;
  localStorage.setItem("rf.turbo", on ? "1" : "0");
  document.body.dataset.turbo = on && S.settings.turbo ? "1" : "";
}
syncTurbo(localStorage.getItem("rf.turbo") === "1");
$("turbo").addEventListener("change", () => syncTurbo($("turbo").checked));
$("setting-turbo").addEventListener("change", () => syncTurbo($("setting-turbo").checked));
$("auto-adjust").checked = localStorage.getItem("rf.autoAdjust") === "1";
$("auto-adjust").addEventListener("change", () => localStorage.setItem("rf.autoAdjust", $("auto-adjust").checked ? "1" : "0"));

/** The operator's settings decide what the table offers. */
export function applySettings(settings) {
  $("turbo-label").hidden = !settings.turbo;
  $("setting-turbo-row").hidden = !settings.turbo;
  if (!settings.turbo) syncTurbo(false);
  $("autoplay-open").hidden = !settings.autoplay;
}

// -- sound: effects, music and the mute button (remembered) -----------------------------------------------------------------
function showSound() {
  const on = soundOn();
  $("mute").setAttribute("aria-pressed", String(!on));
  $("mute").setAttribute("aria-label", on ? t("Mute sound") : t("Turn sound on"));
  $("mute").dataset.muted = on ? "false" : "true";
  // Drawn, not an emoji: a screen without an emoji font would show an empty box.
  $("mute").innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true" width="18" height="18"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>${
    on ? '<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/>'
      : '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'}</svg>`;
  $("setting-sound").checked = on;
  $("setting-music").checked = musicOn();
  music(document.body.dataset.view === "game");
}
$("mute").addEventListener("click", () => { setSound(!soundOn()); showSound(); play("click"); });
$("setting-sound").addEventListener("change", () => { setSound($("setting-sound").checked); showSound(); });
$("setting-music").addEventListener("change", () => { setMusic($("setting-music").checked); showSound(); });
showSound();
document.addEventListener("rf:language", showSound);

// -- the settings menu ------------------------------------------------------------------------------------------------------
$("settings-open").addEventListener("click", () => {
  $("setting-intro").checked = localStorage.getItem("rf.intro") !== "0";
  $("settings").showModal();
});
$("settings-close").addEventListener("click", () => $("settings").close());
$("settings").addEventListener("close", focusSpin);
$("setting-intro").addEventListener("change", () => localStorage.setItem("rf.intro", $("setting-intro").checked ? "1" : "0"));

// -- the intro screen when a game opens (unless the player turned it off) ---------------------------------------------------
document.addEventListener("rf:game-open", (e) => {
  const { game, help } = e.detail;
  if (localStorage.getItem("rf.intro") === "0" || roundOpen()) return;
  const features = ((help.page && help.page.features) || []).slice(0, 3);
  $("intro-title").textContent = game.title;
  $("intro-list").replaceChildren(...features.map((f) => el("li", {}, el("b", { text: f.title }),
    el("span", { text: ((f.text || [])[0] || "").split(/(?<=\.)\s/)[0] }))));
  $("intro-show").checked = true;
  $("intro").showModal();
  $("intro-play").focus();
});
$("intro-play").addEventListener("click", () => $("intro").close());
$("intro").addEventListener("close", () => {
  localStorage.setItem("rf.intro", $("intro-show").checked ? "1" : "0");
  focusSpin();
});

export { FEATURE };
