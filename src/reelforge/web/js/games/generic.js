// Generic renderer for a game without its own module: draws any board an event carries (a list of columns or
// rows of symbols) as finished tiles, lights the cells a win pays, lets a tumble's survivors fall and new symbols
// drop in, lists the wins and narrates every other event, one event at a time so cascades stay visible.
//
// A game gives its symbols their look in its folder's client.js without writing a renderer: a module with no
// ``create`` that exports ``symbols`` (a symbol's name in words -> {color: a CSS colour, art: SVG markup drawn
// in a 100x100 box, or glyph: a short text such as "A" or "10"; wild: true for a symbol that stands in for the
// others in a win, scatter: true for one that pays anywhere}), and, for reels whose heights change from spin to
// spin, ``rows``: the most rows a reel shows (the board keeps that frame whatever a spin draws, so the table never
// moves between spins). A symbol it does not describe gets a tile in a colour of its name with its initial.

import { formatNumber, t, tn } from "../i18n.js";
import { compact, el, formatX, landed, stepsRenderer, symbolHue, words } from "../util.js";

/** The first 2-D array of symbols in an event (its "board"), with its field name. */
export function findBoard(ev) {
  // A list of lists of symbols (not of numbers: [[col, row], ...] lists are positions), preferring a
  // field named like a board.
  const boards = Object.entries(ev).filter(([, v]) => Array.isArray(v) && v.length &&
    v.every((c) => Array.isArray(c) && c.length) && !v.flat().every((x) => typeof x === "number"));
  if (!boards.length) return null;
  const [key, cells] = boards.find(([k]) => /board|grid|window|screen/.test(k)) || boards[0];
  return { key, cells };
}

function label(cell) {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell;
  if (Array.isArray(cell)) return cell.map(label).join("+");
  if (typeof cell === "object") return cell.symbol ?? cell.s ?? compact(cell);
  return String(cell);
}

/** A symbol's whole name, with what the stylesheet needs to fit it to its tile without ever breaking a word:
 * its longest word (sized to fit the tile's width on one line) and how many words (a word a line at most). */
function nameSpan(name) {
  const parts = name.split(/\s+/).filter(Boolean);
  const style = `--word: ${Math.max(1, ...parts.map((w) => w.length))}; --words: ${Math.max(1, parts.length)}`;
  return el("span.label", { style, text: name });
}

/** The picture of a tile: the game's art for the symbol, else its glyph, else its initial on a medallion. A
 * drawing is parsed once and copied after (a board draws dozens of tiles at every tumble). */
const drawn = new Map();
function glyph(name, look) {
  if (look.art) {
    if (!drawn.has(look.art)) drawn.set(look.art, el("span.glyph.art", { "aria-hidden": "true", html: look.art }));
    return drawn.get(look.art).cloneNode(true);
  }
  const text = look.glyph || Array.from(name.trim())[0] || "?";
  return el(`span.glyph${look.glyph ? "" : ".initial"}`, { "aria-hidden": "true", style: `--g: ${Array.from(text).length}`, text });
}

/** A symbol's tile contents and colour, on ``node`` (a board cell or a paytable picture). */
function dressTile(node, name, looks) {
  const base = name.split("+")[0];
  const look = looks[base] || {};
  node.style.setProperty("--tile", look.color || `hsl(${symbolHue(base)} 52% 38%)`);
  node.append(glyph(base, look), nameSpan(name));
  return node;
}

/** A symbol's tile for the help's paytable (the same tile the board draws). */
export function tile(name, looks = {}) {
  return dressTile(el("span.tile", { "data-symbol": name }), name, looks);
}

/** A board as reels side by side; ``cells`` is a list of columns (reels), top to bottom. Reels may differ
 * in height (a board of 2 to 7 rows a reel): each reel's cells share the board's height, so a short reel
 * shows fewer, taller symbols and never blank cells that look like symbols. The board keeps the shape of
 * square cells in ``rows`` rows (at least its tallest reel's) and fits its box (container units), so it never
 * covers the controls. */
export function boardGrid(cells, { columns = true, className = "", looks = {}, rows = 0 } = {}) {
  const cols = columns ? cells : cells[0].map((_, c) => cells.map((row) => row[c]));
  const nRows = Math.max(rows, ...cols.map((c) => c.length));
  const grid = el(`div.board${className ? "." + className : ""}`, { "data-testid": "board" });
  grid.style.setProperty("--cols", cols.length);
  grid.style.setProperty("--rows", nRows);
  cols.forEach((col, c) => {
    const reel = el("div.reel", { "data-col": c, "data-height": col.length, style: `--c: ${c}` });
    col.forEach((symbol, r) => {
      const name = label(symbol);
      reel.append(dressTile(el("div.cell", { "data-symbol": name, "data-row": r, "data-col": c, title: name }), name, looks));
    });
    grid.append(reel);
  });
  return grid;
}

/** The cells a win event pays, as "col,row" keys of ``cols`` (the board shown): the positions it names, else
 * for a pay such as "3 Ten" the Tens (and wilds) on the first 3 reels, or anywhere for a scatter. */
export function winCells(ev, cols, looks = {}) {
  const listed = Object.values(ev).find((v) => Array.isArray(v) && v.length &&
    v.every((p) => Array.isArray(p) && p.length === 2 && p.every(Number.isInteger)));
  if (listed) return new Set(listed.map(([c, r]) => `${c},${r}`));
  const m = /^(\d+)\+?\s+(.+)$/.exec(String(ev.pay ?? (ev.count && ev.symbol ? `${ev.count} ${ev.symbol}` : "")));
  const found = new Set();
  if (!m || ev.line !== undefined) return found;
  const [count, symbol] = [Number(m[1]), m[2]];
  const scatter = (looks[symbol] || {}).scatter;
  cols.forEach((col, c) => col.forEach((name, r) => {
    const base = label(name).split("+")[0];
    if ((base === symbol || (!scatter && (looks[base] || {}).wild)) && (scatter || c < count)) found.add(`${c},${r}`);
  }));
  return found;
}

/** Whether ``next`` is ``prev`` after a tumble: a win took cells and the board keeps its shape. */
const tumbles = (prev, next, gone) => gone.size > 0 && !!prev && prev.length === next.length &&
  prev.every((col, c) => col.length === next[c].length);

/** How far (in cells) each cell of the new board ``next`` falls from: after a win took ``gone`` ("col,row")
 * from ``prev`` of the same shape, a reel's survivors fall by the gaps below them and new symbols drop in from
 * above; any other board drops in whole, reel by reel. */
export function falls(prev, next, gone) {
  const tumble = tumbles(prev, next, gone);
  return next.map((col, c) => {
    if (!tumble) return col.map(() => col.length);
    const kept = prev[c].map((_, r) => r).filter((r) => !gone.has(`${c},${r}`));
    const fresh = col.length - kept.length;
    return col.map((_, r) => (r < fresh ? fresh : r - kept[r - fresh]));
  });
}

const reducedMotion = () => typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;

/** A field's value in words: a multiple of the bet through ``amount``, a number in the locale's digits. */
const value = (k, v, amount) => (k.endsWith("_x") ? amount(v) : typeof v === "number" ? formatNumber(v) : compact(v));

/** A win in a player's words: what paid ("3 × Queen": a pay such as "3 Queen", or a count and a symbol) and what
 * it paid, then on how many ways or which line, and the multiplier where it is more than 1. */
function describeWin(ev, amount) {
  const m = /^(\d+)\+?\s+(.+)$/.exec(String(ev.pay ?? ""));
  const count = ev.count ?? ev.length;
  const what = m ? `${formatNumber(Number(m[1]))} × ${m[2]}` : ev.pay ?? (ev.symbol !== undefined
    ? `${count !== undefined ? formatNumber(count) + " × " : ""}${compact(ev.symbol)}` : t("Win"));
  const paid = Object.keys(ev).filter((k) => k.endsWith("_x")).pop();     // the last multiple: what it paid in all
  const parts = [paid ? t("{symbol} pays {amount}", { symbol: what, amount: amount(ev[paid]) }) : what];
  if (typeof ev.ways === "number") parts.push(tn("{n} way", "{n} ways", ev.ways));
  if (ev.line !== undefined) parts.push(`${words("line").toLowerCase()} ${compact(ev.line)}`);
  if (Number(ev.multiplier) > 1) parts.push(`${t("Win multiplier")} x${formatNumber(Number(ev.multiplier))}`);
  return parts.join(" · ");
}

/** The ways a board pays on, in words, where its event gives each reel's height (their product); else null. */
function waysOf(ev) {
  const ok = Array.isArray(ev.heights) && ev.heights.length && ev.heights.every(Number.isInteger);
  return ok ? tn("{n} way", "{n} ways", ev.heights.reduce((a, h) => a * h, 1)) : null;
}

/** What the board's caption says: the ways a board of reels of their own heights pays on, else its event. */
const caption = (ev) => waysOf(ev) || words(ev.type);

/** An event in words, as a released game narrates it; ``amount`` writes a multiple of the bet (the table's: in
 * money, the multiple beside it); ``cascade``: the tumble's number in its spin, where the event does not say it.
 * A win says what paid and what it paid; a board that lands says its ways where its reels' heights give them
 * (each reel's height multiplied), a numbered tumble that the winning symbols go and the rest fall; any other
 * event its kind, then each field as a number before its name ("10 spins") or a name and its value. */
export function describeEvent(ev, amount = formatX, cascade = 0) {
  const type = String(ev.type || "");
  if (/win/.test(type) && type !== "round_end" && Object.keys(ev).some((k) => k.endsWith("_x"))) return describeWin(ev, amount);
  const board = findBoard(ev);
  const n = Number.isInteger(ev.number) ? ev.number : cascade;
  if (board && /tumble|cascade/.test(type) && n) {
    return t("Cascade {n}: the winning symbols are removed and the symbols fall.", { n: formatNumber(n) });
  }
  if (board && waysOf(ev)) return `${words(type)}: ${waysOf(ev)}`;
  const parts = Object.entries(ev)
    // reel stops belong to the audit record, not to the player; a board is drawn, not read out
    .filter(([k]) => k !== "type" && k !== "stops" && k !== "heights" && !(board && k === board.key))
    .filter(([, v]) => !(Array.isArray(v) && v.length && v.every((c) => Array.isArray(c))))
    .map(([k, v]) => {
      const name = words(k.replace(/_x$/, "")).toLowerCase();
      // a count reads number first ("10 spins", "4 suns"); anything else by its name ("win 2x", "from 1")
      return typeof v === "number" && /s$/.test(k) ? `${formatNumber(v)} ${name}` : `${name} ${value(k, v, amount)}`;
    });
  return `${words(type)}${parts.length ? ": " + parts.join(", ") : ""}`;
}

/** What the history says of an event: its board or its win, in words. */
export const describe = (ev) => (findBoard(ev) || /win/.test(ev.type || "") ? describeEvent(ev) : null);

export function create(root, ctx = {}) {
  const looks = (ctx.look && ctx.look.symbols) || {};
  const frameRows = (ctx.look && ctx.look.rows) || 0;     // the most rows a reel shows, where the game says
  const boardBox = el("div.generic-board", { "data-testid": "generic-board" }, el("p.muted", { text: t("Press SPIN to play.") }));
  const log = el("ol.generic-log", { "data-testid": "event-log" });
  root.append(el("div.generic", {}, boardBox, el("div.generic-side", {}, el("h3", { text: t("Events") }), log)));
  let shown = null;         // the board shown (columns), its grid, and the cells its wins took (lit)
  let grid = null;
  let gone = new Set();
  let unseen = null;        // the caption of a board kept but not drawn yet (drawn without animation: see flush)

  function drawGrid(caption, className = "") {
    grid = boardGrid(shown, { looks, className, rows: frameRows });
    // the board's shape on its box too: on a phone the box is as tall as the board (style.css)
    const shape = `--cols: ${grid.style.getPropertyValue("--cols")}; --rows: ${grid.style.getPropertyValue("--rows")}`;
    boardBox.replaceChildren(el("div.board-caption", { text: caption }), el("div.fit", { style: shape }, grid));
    unseen = null;
  }

  function draw(ev, cells, anim) {
    const from = falls(shown, cells, gone);
    const kind = [tumbles(shown, cells, gone) ? "tumbling" : "landing", anim.fast() ? "quick" : ""].filter(Boolean).join(".");
    shown = cells;
    gone = new Set();
    // A round redrawn without animation (a reload, a replay) draws only the boards it shows, not every tumble's.
    if (anim.quiet) { unseen = caption(ev); return null; }
    drawGrid(caption(ev), kind);
    if (!reducedMotion()) {
      grid.querySelectorAll(".cell").forEach((cell) => {
        const drop = from[cell.dataset.col][cell.dataset.row];
        if (drop) { cell.style.setProperty("--from", drop); cell.classList.add("drop"); }
      });
    }
    // Quick spin does not wait for the (short) fall: the next win lights while it ends
    return anim.fast() ? null : landed(anim, grid);
  }

  /** Draws the board kept by a redraw without animation, with its wins lit. */
  function flush() {
    if (unseen === null) return;
    drawGrid(unseen);
    light(gone);
  }

  function light(keys) {
    for (const key of keys) {
      const [c, r] = key.split(",");
      grid.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`)?.classList.add("win");
    }
  }

  async function apply(step, anim) {
    log.append(el("li.step-head", { text: words(step.kind) }));
    gone = new Set();  // a step's first board lands whole (a new spin), whatever the last step's wins took
    let cascades = 0;  // the step's tumbles so far, which the narration numbers
    try {
      for (const ev of step.events) {
        const board = findBoard(ev);
        if (board && /tumble|cascade/.test(ev.type || "")) cascades += 1;
        // the cells a win took stay lit a moment before the tumble; a board takes the time of its own fall
        if (board && gone.size) await anim.wait(200);
        if (board) await draw(ev, board.cells, anim);
        const isWin = /win/.test(ev.type || "") && ev.type !== "round_end";
        if (isWin && shown) {
          const keys = winCells(ev, shown, looks);
          keys.forEach((key) => gone.add(key));
          if (unseen === null) light(keys);
        }
        log.append(el(`li${isWin ? ".win" : ""}`, { text: describeEvent(ev, ctx.winWords, cascades) }));
        log.scrollTop = log.scrollHeight;
        if (!board && !isWin) await anim.wait(120);
        if (anim.frame) { flush(); await anim.frame(ev, step); }
      }
    } finally {
      flush();
    }
  }

  /** The table on open: the game's symbols at rest on a board as wide as its longest pay (its paytable's highest
   * "of a kind"), so the frame never stands empty before the first spin. */
  function showcase() {
    const help = ctx.help || {};
    const pool = Object.values(help.symbol_names || {});
    if (!pool.length) return;
    const tiers = ((help.page && help.page.paytable && help.page.paytable.tiers) || []).map(Number).filter(Number.isInteger);
    const nCols = Math.max(3, ...tiers.filter((n) => n <= 8));
    const nRows = frameRows || (nCols > 5 ? 4 : 3);
    const cells = Array.from({ length: nCols }, (_, c) => Array.from({ length: nRows }, (_, r) =>
      pool[(c * 5 + r * 3 + 1) % pool.length]));
    shown = cells;
    drawGrid(t("Press SPIN to play."));
    shown = null;
  }

  return {
    newRound() { log.replaceChildren(); },
    showcase,
    ...stepsRenderer(apply),
    describe,
    nextLabel(round) { return round.next_step ? words(round.next_step).toUpperCase() : t("CONTINUE"); },
    status() { return ""; },
  };
}

export function helpArt(key) { return tile(key); }

/** The generic renderer dressed in a game's look (its client.js with ``symbols`` and no ``create``). */
export function withLook(look) {
  return { ...look, create: (root, ctx = {}) => create(root, { ...ctx, look }), describe,
    helpArt: (key) => tile(key, look.symbols || {}) };
}
