// Small helpers shared by the client and the game renderers.

import { locale } from "./i18n.js";

/** Create an element: el("div.a.b", {attr: v}, child, ...). */
export function el(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "html") node.innerHTML = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** Money in minor units -> "€1.50" for the session's currency, in the player's locale (the session's
 * language, else the browser's); ``decimals``: the currency's minor unit as the server counts it (JPY 0,
 * EUR 2, BHD 3), which decides the scale whatever the browser's own tables say. */
export function makeMoney(currency, decimals, locale) {
  let fmt;
  const digits0 = Number.isInteger(decimals) ? { minimumFractionDigits: decimals, maximumFractionDigits: decimals } : {};
  try {
    fmt = new Intl.NumberFormat(locale || undefined, { style: "currency", currency: currency || "EUR", ...digits0 });
  } catch {
    fmt = new Intl.NumberFormat(locale || undefined, Number.isInteger(decimals) ? digits0 :
      { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }
  const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
  const scale = 10 ** digits;
  return (minor) => fmt.format(Number(minor) / scale);
}

/** "3/20" -> {n, d}; exact multiples of the bet travel as fraction strings. */
export function parseFraction(text) {
  if (text === null || text === undefined) return null;
  const s = String(text).trim();
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(s);
  if (!m) {
    const f = Number(s);
    return Number.isFinite(f) ? { n: f, d: 1 } : null;
  }
  return { n: Number(m[1]), d: m[2] ? Number(m[2]) : 1 };
}

/** A multiple of the bet for display: "3/20" -> "0.15x", "2500" -> "2,500x". */
export function formatX(text) {
  const f = parseFraction(text);
  if (!f) return String(text);
  const v = f.n / f.d;
  return `${v.toLocaleString(locale(), { maximumFractionDigits: 4 })}x`;
}

/** bet (minor units) times a fraction string, rounded down like the server pays. */
export function times(bet, xText) {
  const f = parseFraction(xText);
  if (!f) return 0;
  return Math.floor((bet * f.n) / f.d);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Human words for a step kind ("free_spin" -> "Free spin"). */
export function words(kind) {
  const s = String(kind || "").replace(/[_-]+/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** A stable colour for a symbol name (generic renderer). */
export function symbolHue(name) {
  let h = 0;
  for (const ch of String(name)) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

/** Compact JSON for an event field. */
export function compact(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

// Replays a round's steps with animations off: how a renderer redraws an
// interrupted round exactly as it was left.
export function replaySteps(steps, apply) {
  const instant = { fast: () => true, wait: async () => {}, quiet: true };
  return steps.reduce((p, s) => p.then(() => apply(s, instant)), Promise.resolve());
}

// What a renderer that draws each step from its events shares: `apply` plays a step, an
// interrupted round is redrawn by replaying its steps on a new board (the renderer's newRound),
// and no step waits for a player's choice. Spread into the renderer object.
export function stepsRenderer(apply) {
  return {
    playStep(step, _round, anim) { return apply(step, anim); },
    apply,
    restore(round) {
      this.newRound();
      return replaySteps(round.steps, apply);
    },
    nextAction() { return null; },
  };
}

/** Scrolls a list of wins to its newest line. Its first line (``li.total``, the spin's total) stays in view over
 * the others (sticky): no line may sit half under it, so the list gains at its end the little room that lets
 * the line in view at the top start where the total ends. */
export function showNewest(list) {
  list.style.paddingBottom = "";
  list.scrollTop = list.scrollHeight;
  const head = list.querySelector(":scope > li.total");
  if (!head) return;
  const edge = head.getBoundingClientRect().bottom;
  const cut = [...list.children].find((li) => li !== head && li.getBoundingClientRect().top < edge - 0.5 &&
    li.getBoundingClientRect().bottom > edge + 0.5);
  if (!cut) return;
  const more = cut.getBoundingClientRect().bottom - edge;  // scrolled by this much more, the cut line is hidden
  list.style.paddingBottom = `calc(${getComputedStyle(list).paddingBottom} + ${Math.ceil(more) + 1}px)`;
  list.scrollTop += more;
}

/** Whether an animation ends by itself (a win's pulse or a GEMBOX wobble loops until the next spin). */
const finite = (a) => a.effect && a.effect.getComputedTiming().iterations !== Infinity;

/** Resolves when every finite animation under ``node`` (symbols falling, reels landing, a win's flash) has
 * finished: the round's result is shown only over a board at rest. */
export function settled(node) {
  if (!node || !node.getAnimations) return Promise.resolve();
  const running = node.getAnimations({ subtree: true }).filter((a) => finite(a) && a.playState !== "finished");
  return Promise.all(running.map((a) => a.finished.catch(() => {}))).then(() => {});
}

/** A renderer's wait for its board to land (nothing to wait for when the step is drawn without animation). */
export function landed(anim, node) { return anim.quiet ? Promise.resolve() : settled(node); }

/** Reel timing shared by the renderers (ms): the first reel stops after ``first``, each next one ``gap``
 * later, a reel after a near trigger ``tease`` later still (anticipation). Quick spin scales it by QUICK. */
export const REEL_TIMING = { first: 820, gap: 230, tease: 750 };
export const QUICK = 0.3;

/** A small deterministic shuffle (a reel's own order of its symbols: reels never spin in step). */
export function shuffled(items, seed) {
  const out = items.slice();
  let s = (seed * 9301 + 49297) % 233280;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 9301 + 49297) % 233280;
    const j = Math.floor((s / 233280) * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
