// Generic renderer for a game without its own module: draws any board an event carries (a list of columns or
// rows of symbols) as finished tiles, lights the cells a win pays, lets a tumble's survivors fall and new symbols
// drop in, lists the wins and narrates every other event, one event at a time so cascades stay visible.
//
// A game gives its symbols their look in its folder's client.js without writing a renderer: a module with no
// ``create`` that exports ``symbols`` (a symbol's name in words -> {color: a CSS colour, art: SVG markup drawn
// in a 100x100 box, or glyph: a short text such as "A" or "10"; wild: true for a symbol that stands in for the
// others in a win, scatter: true for one that pays anywhere}). A symbol it does not describe gets a tile in a
// colour of its name with its initial.

import { t } from "../i18n.js";
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

/** The picture of a tile: the game's art for the symbol, else its glyph, else its initial on a medallion. */
function glyph(name, look) {
  if (look.art) return el("span.glyph.art", { "aria-hidden": "true", html: look.art });
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
 * its tallest reel's square cells and fits its box (container units), so it never covers the controls. */
export function boardGrid(cells, { columns = true, className = "", looks = {} } = {}) {
  const cols = columns ? cells : cells[0].map((_, c) => cells.map((row) => row[c]));
  const nRows = Math.max(...cols.map((c) => c.length));
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

export function describeEvent(ev) {
  const parts = Object.entries(ev)
    // reel stops belong to the audit record, not to the player; each reel's height is what the board shows
    .filter(([k]) => k !== "type" && k !== "stops" && k !== "heights")
    .filter(([, v]) => !(Array.isArray(v) && v.length && v.every((c) => Array.isArray(c))))
    // "pay 3 Ten" reads as the pay itself; every other field as its name and value ("ways 2", "win 0.2x")
    .map(([k, v]) => `${k === "pay" ? "" : words(k.replace(/_x$/, "")).toLowerCase() + " "}${k.endsWith("_x") ? formatX(v) : compact(v)}`);
  return `${words(ev.type)}${parts.length ? ": " + parts.join(", ") : ""}`;
}

/** What the history says of an event: its board or its win, in words. */
export const describe = (ev) => (findBoard(ev) || /win/.test(ev.type || "") ? describeEvent(ev) : null);

export function create(root, ctx = {}) {
  const looks = (ctx.look && ctx.look.symbols) || {};
  const boardBox = el("div.generic-board", { "data-testid": "generic-board" }, el("p.muted", { text: t("Press SPIN to play.") }));
  const log = el("ol.generic-log", { "data-testid": "event-log" });
  root.append(el("div.generic", {}, boardBox, el("div.generic-side", {}, el("h3", { text: t("Events") }), log)));
  let shown = null;         // the board drawn (columns), its grid, and the cells its wins took
  let grid = null;
  let gone = new Set();

  function draw(ev, cells, anim) {
    const from = falls(shown, cells, gone);
    const kind = [tumbles(shown, cells, gone) ? "tumbling" : "landing", anim.fast() ? "quick" : ""].filter(Boolean).join(".");
    grid = boardGrid(cells, { looks, className: kind });
    if (!anim.quiet && !reducedMotion()) {
      grid.querySelectorAll(".cell").forEach((cell) => {
        const drop = from[cell.dataset.col][cell.dataset.row];
        if (drop) { cell.style.setProperty("--from", drop); cell.classList.add("drop"); }
      });
    }
    boardBox.replaceChildren(el("div.board-caption", { text: words(ev.type) }), el("div.fit", {}, grid));
    shown = cells;
    gone = new Set();
    return landed(anim, grid);
  }

  async function apply(step, anim) {
    log.append(el("li.step-head", { text: words(step.kind) }));
    for (const ev of step.events) {
      const board = findBoard(ev);
      if (board) await draw(ev, board.cells, anim);
      const isWin = /win/.test(ev.type || "") && ev.type !== "round_end";
      if (isWin && grid) {
        for (const key of winCells(ev, shown, looks)) {
          gone.add(key);
          const [c, r] = key.split(",");
          grid.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`)?.classList.add("win");
        }
      }
      log.append(el(`li${isWin ? ".win" : ""}`, { text: describeEvent(ev) }));
      log.scrollTop = log.scrollHeight;
      await anim.wait(board || isWin ? 450 : 120);
      if (anim.frame) await anim.frame(ev, step);
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
    const nRows = nCols > 5 ? 4 : 3;
    const cells = Array.from({ length: nCols }, (_, c) => Array.from({ length: nRows }, (_, r) =>
      pool[(c * 5 + r * 3 + 1) % pool.length]));
    draw({ type: "" }, cells, { fast: () => true, quiet: true });
    boardBox.firstChild.textContent = t("Press SPIN to play.");
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
