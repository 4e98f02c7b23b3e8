// Feature moments: intro cards, a game's own announcements, summaries and celebrations over the table. Quick spin
// shortens them, a press on the card ends them, and the controls under them stay usable (STOP, SKIP).

import { $, S } from "./state.js";
import { t } from "./i18n.js";
import { play } from "./sound.js";

let endMoment = null;

export const turboOn = () => !!S.settings.turbo && $("turbo").checked;

/** Show a card; resolves when it has been shown long enough or pressed. ``count``: a win counted up (minor units);
 * ``kind``: what the card announces (``intro``, ``resume``, ``summary``, or a game's own word); ``sound``: the
 * sound it plays where not the kind's. */
export function moment({ title, amount = "", text = "", sub = "", big = false, count = null, kind = null, ms = null,
  sound = null }) {
  const box = $("moment");
  if (endMoment) endMoment();
  $("moment-title").textContent = title;
  $("moment-amount").textContent = count === null ? amount : S.money(0);
  $("moment-sub").textContent = sub;
  $("moment-text").textContent = text;
  box.classList.toggle("big", big);
  box.dataset.kind = kind || (big ? "big-win" : "announce");
  box.hidden = false;
  play(sound || (big ? "bigwin" : kind === "intro" || kind === "resume" ? "feature" : kind === "summary" ? "winLarge" : "winMedium"));
  const length = ms ?? (turboOn() ? (big ? 1000 : 700) : (big ? 3600 : 2200));
  box.dataset.ms = length;  // its length as planned, for the browser tests: a loaded machine's timers run late
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let ticker = null;
    const finish = () => {
      clearTimeout(timer);
      clearInterval(ticker);
      if (count !== null) $("moment-amount").textContent = S.money(count);
      box.hidden = true;
      $("moment-card").onclick = null;
      endMoment = null;
      resolve();
    };
    if (count !== null) {
      // The celebration counts the win up, coins ticking while it climbs; the last figure is the exact amount.
      let ticks = 0;
      ticker = setInterval(() => {
        const f = Math.min(1, (performance.now() - startedAt) / (length * 0.7));
        $("moment-amount").textContent = S.money(f >= 1 ? count : Math.floor(count * f));
        if (f < 1 && ticks++ % 3 === 0) play("tick");
      }, 40);
    }
    const timer = setTimeout(finish, length);
    $("moment-card").onclick = finish;
    endMoment = finish;
  });
}

/** End the card on screen now (leaving the game, skipping a feature). */
export function endMomentNow() { if (endMoment) endMoment(); }

export const BIG_WIN_X = 20;
export function winTitle(x) { return x >= 500 ? t("EPIC WIN") : x >= 100 ? t("MEGA WIN") : t("BIG WIN"); }
