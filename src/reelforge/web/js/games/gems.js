// Symbol art and a board grid shared by the cascade games (drawn as inline SVG,
// so nothing depends on fonts or image files).

import { t } from "../i18n.js";
import { QUICK, el, parseFraction } from "../util.js";

/** A board falling in (ms): the columns land left to right over ``spread`` (the last about 1.6 s after the
 * press, like a spin's last reel), each row ``row`` after the one above it, a teased column ``tease`` later. */
export const DROP = { spread: 1150, row: 30, tease: 450 };

/** The first column from which a board should tease: the columns before it hold ``need - 1`` of ``symbol``
 * (a feature one symbol away) and at least one column is left to land; null where no tease is due. */
export function teaseColumn(board, isTrigger, need) {
  let seen = 0;
  for (let c = 0; c < board.length - 1; c++) {
    seen += board[c].filter(isTrigger).length;
    if (seen >= need - 1) return c + 1;
  }
  return null;
}

const GEM_SHAPES = {
  diamond: "M50 10 L86 40 L50 90 L14 40 Z",
  octagon: "M32 12 L68 12 L88 32 L88 68 L68 88 L32 88 L12 68 L12 32 Z",
  oval: "M50 10 C78 10 90 30 90 50 C90 72 76 90 50 90 C24 90 10 72 10 50 C10 30 22 10 50 10 Z",
  hexagon: "M30 12 L70 12 L90 50 L70 88 L30 88 L10 50 Z",
  heart: "M50 88 L14 50 C2 36 12 14 30 14 C40 14 46 20 50 28 C54 20 60 14 70 14 C88 14 98 36 86 50 Z",
  nugget: "M16 58 L28 28 L56 16 L80 30 L88 58 L70 80 L38 84 Z",
  pebble: "M14 56 C14 30 36 16 54 18 C76 20 88 36 86 56 C84 76 66 86 48 84 C28 82 14 72 14 56 Z",
  triangle: "M50 10 L90 84 L10 84 Z",
  cushion: "M26 12 L74 12 Q88 12 88 26 L88 74 Q88 88 74 88 L26 88 Q12 88 12 74 L12 26 Q12 12 26 12 Z",
};

const PALETTE = {
  GOLD_NUGGET: ["nugget", "#ffe27a", "#c98a0a"],
  RUBY: ["heart", "#ff6b7d", "#a3001e"],
  AMETHYST: ["hexagon", "#d59bff", "#6a1fa8"],
  SAPPHIRE: ["cushion", "#7fb2ff", "#143f9e"],
  EMERALD: ["octagon", "#6ef0a0", "#0a7a3e"],
  DIAMOND: ["diamond", "#f4fbff", "#7fb3d6"],
  TOPAZ: ["triangle", "#ffc46b", "#b35a00"],
  BRONZE_ORE: ["pebble", "#e0a070", "#7a4320"],
  PINK_STONE: ["pebble", "#ffb3d9", "#c0457f"],
  BLUE_STONE: ["pebble", "#a8e4ff", "#2a7fb0"],
};

let gradId = 0;

/** SVG markup for a symbol name (gems, card ranks, WILD, SCATTER). */
export function symbolSvg(name) {
  const id = `sg${gradId++}`;
  if (name === "SCATTER") {
    // the Red Flower Jewel
    const petals = [0, 72, 144, 216, 288].map((a) =>
      `<ellipse cx="50" cy="28" rx="14" ry="22" fill="url(#${id})" transform="rotate(${a} 50 50)"/>`).join("");
    return `<svg viewBox="0 0 100 100" aria-hidden="true"><defs><radialGradient id="${id}"><stop offset="0" stop-color="#ffd0d0"/><stop offset="1" stop-color="#d0102a"/></radialGradient></defs>${petals}<circle cx="50" cy="50" r="12" fill="#ffd84a" stroke="#8a5a00" stroke-width="3"/></svg>`;
  }
  if (name === "WILD") {
    return `<svg viewBox="0 0 100 100" aria-hidden="true"><rect x="6" y="22" width="88" height="56" rx="12" fill="#2a1a05" stroke="#ffd84a" stroke-width="5"/><text x="50" y="62" text-anchor="middle" font-size="28" font-weight="900" fill="#ffd84a" font-family="sans-serif">WILD</text></svg>`;
  }
  if (/^[AKQJ]$|^10$/.test(name)) {
    const colour = { A: "#ff7a59", K: "#5fd0ff", Q: "#c08bff", J: "#7be07b" }[name] || "#ddd";
    return `<svg viewBox="0 0 100 100" aria-hidden="true"><text x="50" y="72" text-anchor="middle" font-size="64" font-weight="900" fill="${colour}" stroke="#1a0f08" stroke-width="3" font-family="serif">${name}</text></svg>`;
  }
  const [shape, light, dark] = PALETTE[name] || ["pebble", "#cccccc", "#555555"];
  return `<svg viewBox="0 0 100 100" aria-hidden="true"><defs><linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${light}"/><stop offset="1" stop-color="${dark}"/></linearGradient></defs><path d="${GEM_SHAPES[shape]}" fill="url(#${id})" stroke="rgba(0,0,0,.55)" stroke-width="3"/><path d="M36 30 L50 24 L58 34 L44 42 Z" fill="#fff" opacity=".45"/></svg>`;
}

/** The sum of two exact multiples of the bet ("1/4" + "3" -> "13/4"). */
export function addX(a, b) {
  const f = parseFraction(a) || { n: 0, d: 1 };
  const g = parseFraction(b) || { n: 0, d: 1 };
  const n = f.n * g.d + g.n * f.d;
  const d = f.d * g.d;
  const gcd = (x, y) => (y ? gcd(y, x % y) : Math.abs(x));
  const k = gcd(n, d) || 1;
  return d / k === 1 ? String(n / k) : `${n / k}/${d / k}`;
}

/** A symbol's name in words: the help's names when the game gives them ("Gold Nugget"), else from its key. */
export function nameOf(names, key) {
  if (names && names[key]) return names[key];
  return String(key).toLowerCase().split(/[_\s]+/).map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");
}

/** A board grid of ``cols`` x ``rows`` cells, addressed [col][row] with row 0 at the top. */
export function makeGrid(cols, rows, testid = "board", names = null) {
  const root = el("div.gem-grid", { "data-testid": testid });
  root.style.gridTemplateColumns = `repeat(${cols}, 1fr)`;
  const cells = [];
  const columnGap = Math.round(DROP.spread / Math.max(1, cols - 1));
  for (let c = 0; c < cols; c++) cells.push([]);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = el("div.gem-cell", { "data-col": c, "data-row": r });
      cells[c][r] = cell;
      root.append(cell);
    }
  }
  return {
    root,
    cell: (c, r) => cells[c][r],
    /** Draw a whole board: ``board[c][r]`` is a symbol name, or "NAME*n" for a split cell. ``drop``: true, the
     * board falls in column by column, left to right, like reels stopping; "changed", only the cells whose
     * symbol changed fall (a cascade's refill). ``teaseFrom``: the columns from there on land later, lit
     * (a feature one symbol away). ``quick``: Quick spin's shorter fall. */
    set(board, { drop = false, teaseFrom = null, quick = false } = {}) {
      // A new board: whatever was marked on the old one (wins, landings) goes with it.
      const scale = quick ? QUICK : 1;
      board.forEach((col, c) => col.forEach((name, r) => {
        const cell = cells[c][r];
        const [sym, n] = String(name).split("*");
        const copies = Number(n || 1);
        const falls = drop === "changed" ? cell.dataset.symbol !== sym || cell.dataset.copies !== String(copies) : !!drop;
        const tease = falls && teaseFrom !== null && c >= teaseFrom;
        cell.className = `gem-cell copies-${copies}${falls ? " drop" : ""}${tease ? " tease" : ""}`;
        cell.dataset.symbol = sym;
        cell.dataset.copies = String(copies);
        cell.title = copies > 1 ? t("{symbol} split in {n}", { symbol: nameOf(names, sym), n: copies }) : nameOf(names, sym);
        cell.innerHTML = Array.from({ length: copies }, () => `<span class="gem">${symbolSvg(sym)}</span>`).join("");
        const column = drop === "changed" ? 0 : c * columnGap + (tease ? (c - teaseFrom + 1) * DROP.tease : 0);
        cell.style.animationDelay = falls ? `${Math.round((column + r * DROP.row) * scale)}ms` : "";
      }));
      root.dataset.board = board.map((col) => col.join(",")).join("|");
    },
    mark(cls, predicate) {
      cells.forEach((col, c) => col.forEach((cell, r) => cell.classList.toggle(cls, !!predicate(c, r, cell.dataset.symbol))));
    },
    clear(cls) { cells.forEach((col) => col.forEach((cell) => cell.classList.remove(cls))); },
  };
}
