// Generic renderer for a game without its own module: draws any board an
// event carries (a list of columns or rows of symbols), lists the wins and
// narrates every other event, one event at a time so cascades stay visible.

import { t } from "../i18n.js";
import { compact, el, formatX, stepsRenderer, symbolHue, words } from "../util.js";

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

/** A symbol's whole name (never cut short) with what the stylesheet needs to fit it to its cell: its length, its
 * longest word and its words (the name on one line, or a word a line); a single long word may break in its middle
 * (a tall cell writes it over two lines rather than shrink it). */
function nameSpan(name) {
  const words = name.split(/\s+/).filter(Boolean);
  const n = Math.max(1, name.length);
  const half = words.length === 1 && n >= LONG_WORD ? Math.ceil(n / 2) : n;
  const style = `--n1: ${n}; --n2: ${half}; --word: ${Math.max(1, ...words.map((w) => w.length))}; ` +
    `--words: ${Math.max(1, words.length)}`;
  return half < n ? el("span", { style }, name.slice(0, half), el("wbr"), name.slice(half)) : el("span", { style, text: name });
}
const LONG_WORD = 8;

/** A board as reels side by side; ``cells`` is a list of columns (reels), top to bottom. Reels may differ
 * in height (a board of 2 to 7 rows a reel): each reel's cells share the board's height, so a short reel
 * shows fewer, taller symbols and never blank cells that look like symbols. The board keeps the shape of
 * its tallest reel's square cells and fits its box (container units), so it never covers the controls. */
export function boardGrid(cells, { columns = true, className = "" } = {}) {
  const cols = columns ? cells : cells[0].map((_, c) => cells.map((row) => row[c]));
  const nRows = Math.max(...cols.map((c) => c.length));
  const grid = el(`div.board${className ? "." + className : ""}`, { "data-testid": "board" });
  grid.style.setProperty("--cols", cols.length);
  grid.style.setProperty("--rows", nRows);
  cols.forEach((col, c) => {
    const reel = el("div.reel", { "data-col": c, "data-height": col.length });
    col.forEach((symbol, r) => {
      const name = label(symbol);
      const base = name.split("+")[0].split("x")[0];
      const cell = el("div.cell", { "data-symbol": name, "data-row": r, "data-col": c, title: name });
      cell.style.setProperty("--hue", symbolHue(base));
      cell.append(nameSpan(name));
      reel.append(cell);
    });
    grid.append(reel);
  });
  return grid;
}

export function describeEvent(ev) {
  const parts = Object.entries(ev)
    // reel stops belong to the audit record, not to the player; each reel's height is what the board shows
    .filter(([k]) => k !== "type" && k !== "stops" && k !== "heights")
    .filter(([, v]) => !(Array.isArray(v) && v.length && v.every((c) => Array.isArray(c))))
    .map(([k, v]) => `${k.replace(/_x$/, "")}=${k.endsWith("_x") ? formatX(v) : compact(v)}`);
  return `${words(ev.type)}${parts.length ? ": " + parts.join(", ") : ""}`;
}

export function create(root, _ctx) {
  const boardBox = el("div.generic-board", { "data-testid": "generic-board" }, el("p.muted", { text: t("Press SPIN to play.") }));
  const log = el("ol.generic-log", { "data-testid": "event-log" });
  root.append(el("div.generic", {}, boardBox, el("div.generic-side", {}, el("h3", { text: t("Events") }), log)));

  async function apply(step, anim) {
    log.append(el("li.step-head", { text: words(step.kind) }));
    for (const ev of step.events) {
      const board = findBoard(ev);
      if (board) {
        boardBox.replaceChildren(el("div.board-caption", { text: words(ev.type) }),
          el("div.fit", {}, boardGrid(board.cells)));
      }
      const isWin = /win/.test(ev.type || "") && ev.type !== "round_end";
      log.append(el(`li${isWin ? ".win" : ""}`, { text: describeEvent(ev) }));
      log.scrollTop = log.scrollHeight;
      await anim.wait(board ? 450 : 120);
      if (anim.frame) await anim.frame(ev, step);
    }
  }

  return {
    newRound() { log.replaceChildren(); },
    showcase() {},
    ...stepsRenderer(apply),
    describe: (ev) => (findBoard(ev) || /win/.test(ev.type || "") ? describeEvent(ev) : null),
    nextLabel(round) { return round.next_step ? words(round.next_step).toUpperCase() : t("CONTINUE"); },
    status() { return ""; },
  };
}
