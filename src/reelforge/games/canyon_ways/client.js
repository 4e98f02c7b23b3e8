// Canyon Ways' look on the generic board (web/js/games/generic.js): each symbol's colour and picture, drawn
// here in a 100x100 box (flat fills, no ids: a board repeats them many times). The Wild stands in for the others
// in a win; the Sun is the scatter that starts the free spins.

const sun = `<svg viewBox="0 0 100 100"><g fill="#ffd23f" stroke="#a8520a" stroke-width="3" stroke-linejoin="round">${
  Array.from({ length: 12 }, (_, i) => `<path d="M50 4 L57 22 L43 22 Z" transform="rotate(${i * 30} 50 50)"/>`).join("")}
  <circle cx="50" cy="50" r="26"/></g><circle cx="50" cy="50" r="17" fill="#ffb020"/>
  <ellipse cx="42" cy="40" rx="8" ry="5" fill="#fff" opacity=".55"/></svg>`;

const eagle = `<svg viewBox="0 0 100 100"><path d="M50 46 C40 26 22 20 4 28 C18 32 24 38 27 45 C16 46 10 52 7 58
  C22 54 34 56 42 62 L46 80 L50 88 L54 80 L58 62 C66 56 78 54 93 58 C90 52 84 46 73 45 C76 38 82 32 96 28
  C78 20 60 26 50 46 Z" fill="#5a3418" stroke="#24120a" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M40 30 C40 18 60 18 60 30 C60 38 54 44 50 46 C46 44 40 38 40 30 Z" fill="#f4efe4" stroke="#24120a" stroke-width="2.5"/>
  <path d="M50 30 L60 33 L52 38 Z" fill="#ffc21a" stroke="#8a5a00" stroke-width="1.5"/><circle cx="46" cy="29" r="2.6" fill="#111"/>
  <path d="M44 86 L50 94 L56 86" fill="none" stroke="#ffc21a" stroke-width="3" stroke-linecap="round"/></svg>`;

const bison = `<svg viewBox="0 0 100 100"><path d="M20 36 C8 34 4 22 10 12 C12 24 20 28 28 28 Z M80 36 C92 34 96 22 90 12
  C88 24 80 28 72 28 Z" fill="#efe6d2" stroke="#3a2410" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M50 16 C30 16 18 28 20 44 C22 58 30 62 34 74 C38 86 44 90 50 90 C56 90 62 86 66 74 C70 62 78 58 80 44
  C82 28 70 16 50 16 Z" fill="#4a2a14" stroke="#1e1008" stroke-width="3"/>
  <path d="M30 26 C38 18 62 18 70 26 C66 36 58 34 50 40 C42 34 34 36 30 26 Z" fill="#2e180a"/>
  <circle cx="37" cy="50" r="4" fill="#fff"/><circle cx="63" cy="50" r="4" fill="#fff"/>
  <circle cx="37" cy="50" r="2" fill="#111"/><circle cx="63" cy="50" r="2" fill="#111"/>
  <ellipse cx="50" cy="76" rx="11" ry="8" fill="#2a160a"/><circle cx="45" cy="76" r="2.2" fill="#000"/><circle cx="55" cy="76" r="2.2" fill="#000"/></svg>`;

const cactus = `<svg viewBox="0 0 100 100"><g fill="#3fae4a" stroke="#14511c" stroke-width="3" stroke-linejoin="round">
  <path d="M40 92 L40 20 C40 8 60 8 60 20 L60 92 Z"/>
  <path d="M40 60 L28 60 C18 60 16 52 16 46 L16 30 C16 24 26 24 26 30 L26 48 L40 48 Z"/>
  <path d="M60 52 L72 52 C82 52 84 44 84 38 L84 24 C84 18 74 18 74 24 L74 40 L60 40 Z"/></g>
  <path d="M50 16 L50 88 M21 32 L21 50 M79 26 L79 42" stroke="#9be39f" stroke-width="2.5" opacity=".7" stroke-linecap="round"/>
  <path d="M30 92 L70 92" stroke="#c98a3a" stroke-width="5" stroke-linecap="round"/></svg>`;

const horseshoe = `<svg viewBox="0 0 100 100"><path d="M22 14 L22 52 C22 72 34 88 50 88 C66 88 78 72 78 52 L78 14 L62 14 L62 52
  C62 62 57 70 50 70 C43 70 38 62 38 52 L38 14 Z" fill="#c9ced6" stroke="#3b4048" stroke-width="3" stroke-linejoin="round"/>
  <path d="M22 14 L38 14 L38 22 L22 22 Z M62 14 L78 14 L78 22 L62 22 Z" fill="#8d939c"/>
  ${[[30, 34], [30, 52], [36, 70], [70, 34], [70, 52], [64, 70]].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="2.6" fill="#3b4048"/>`).join("")}
  <path d="M27 24 L27 52 C27 64 32 74 40 80" fill="none" stroke="#fff" stroke-width="2.5" opacity=".6" stroke-linecap="round"/></svg>`;

const wild = `<svg viewBox="0 0 100 100"><path d="M50 6 L62 30 L88 30 L68 48 L76 74 L50 58 L24 74 L32 48 L12 30 L38 30 Z"
  fill="#ffd23f" stroke="#7a4a00" stroke-width="3" stroke-linejoin="round" opacity=".35"/>
  <rect x="4" y="34" width="92" height="34" rx="8" fill="#3a1566" stroke="#ffd23f" stroke-width="4"/>
  <text x="50" y="61" text-anchor="middle" font-size="27" font-weight="900" fill="#ffd23f" font-family="sans-serif"
  letter-spacing="1">WILD</text></svg>`;

/** The most rows a reel shows (2 to 7 a spin): the board keeps a frame of 7 rows, so the table never moves. */
export const rows = 7;

/** A symbol's name in words (as the game's events carry it) -> its look. */
export const symbols = {
  Wild: { color: "#6a2fb0", art: wild, wild: true },
  Sun: { color: "#d9661a", art: sun, scatter: true },
  Eagle: { color: "#3b7fb8", art: eagle },
  Bison: { color: "#9a5a2a", art: bison },
  Cactus: { color: "#c9903e", art: cactus },
  Horseshoe: { color: "#4a5a70", art: horseshoe },
  Ace: { color: "#b8322a", glyph: "A" },
  King: { color: "#2c5fb0", glyph: "K" },
  Queen: { color: "#a8367a", glyph: "Q" },
  Jack: { color: "#1f8a72", glyph: "J" },
  Ten: { color: "#b07a12", glyph: "10" },
  Nine: { color: "#5a7a24", glyph: "9" },
};
