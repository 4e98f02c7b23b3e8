// Symbol art for the genre renderers (lines, hold and respin), drawn as inline SVG and keyed by the
// symbol's name in words as the game's events carry it ("Cherry", "Wild", "Ruby"). A name this
// library does not know gets a coloured plaque with the name on it, so a new game still reads.

import { symbolHue } from "../util.js";

// Every drawing gets its own gradient ids: an id repeated in the page (the lobby's art, the help)
// would make the browser resolve url(#...) to the first copy.
let ids = 0;

const svg = (body) => `<svg viewBox="0 0 100 100" aria-hidden="true">${body}</svg>`;
const grad = (id, a, b, radial = false) => radial
  ? `<radialGradient id="${id}" cx=".35" cy=".3" r=".8"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></radialGradient>`
  : `<linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient>`;
const shine = (x, y, rx, ry) => `<ellipse cx="${x}" cy="${y}" rx="${rx}" ry="${ry}" fill="#fff" opacity=".45"/>`;

/** A faceted gem in two tones (the hold-and-respin games' pays). */
function gem(id, light, dark, shape) {
  return svg(`<defs>${grad(id, light, dark)}</defs><path d="${shape}" fill="url(#${id})" stroke="rgba(0,0,0,.55)" stroke-width="3"/>` +
    `<path d="M34 34 L50 26 L62 36 L46 46 Z" fill="#fff" opacity=".45"/>`);
}

const ART = {
  cherry: (id) => svg(`<defs>${grad(id, "#ff8a8a", "#a3001e", true)}</defs>
    <path d="M36 62 Q44 30 66 14 M66 14 Q64 42 66 58" stroke="#2f7a1e" stroke-width="5" fill="none" stroke-linecap="round"/>
    <path d="M66 14 Q80 10 86 22 Q74 26 66 14 Z" fill="#4caf2a"/>
    <circle cx="34" cy="68" r="20" fill="url(#${id})" stroke="#5a0010" stroke-width="3"/>
    <circle cx="66" cy="70" r="20" fill="url(#${id})" stroke="#5a0010" stroke-width="3"/>${shine(27, 60, 6, 4)}${shine(59, 62, 6, 4)}`),
  lemon: (id) => svg(`<defs>${grad(id, "#fff6a0", "#d9a600", true)}</defs>
    <path d="M12 52 Q20 24 50 22 Q80 24 88 52 Q80 80 50 80 Q20 80 12 52 Z" fill="url(#${id})" stroke="#8a6400" stroke-width="3"/>
    <path d="M8 52 L14 48 L14 56 Z M92 52 L86 48 L86 56 Z" fill="#b88a00"/>${shine(36, 38, 12, 5)}`),
  grapes: (id) => svg(`<defs>${grad(id, "#d9a6ff", "#5a1a8a", true)}</defs>
    <path d="M50 22 Q52 10 62 6" stroke="#3d6b1e" stroke-width="5" fill="none" stroke-linecap="round"/>
    <path d="M54 18 Q72 8 84 20 Q68 28 54 18 Z" fill="#4caf2a"/>
    ${[[38, 32], [62, 32], [26, 50], [50, 50], [74, 50], [38, 68], [62, 68], [50, 86]]
    .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="12" fill="url(#${id})" stroke="#34105a" stroke-width="2.5"/>`).join("")}
    ${shine(34, 28, 4, 3)}${shine(46, 46, 4, 3)}`),
  bell: (id) => svg(`<defs>${grad(id, "#fff3a8", "#b57a00")}</defs>
    <circle cx="50" cy="14" r="6" fill="#b57a00"/>
    <path d="M50 16 Q24 18 24 52 Q24 66 12 76 L88 76 Q76 66 76 52 Q76 18 50 16 Z" fill="url(#${id})" stroke="#6a4400" stroke-width="3"/>
    <ellipse cx="50" cy="80" rx="10" ry="8" fill="#8a5a00"/>${shine(38, 36, 6, 12)}`),
  seven: (id) => svg(`<defs>${grad(id, "#ff7a6a", "#9e0a0a")}</defs>
    <path d="M18 16 L84 16 L84 30 Q58 52 50 88 L28 88 Q36 56 60 32 L18 32 Z" fill="url(#${id})" stroke="#ffd84a" stroke-width="5" stroke-linejoin="round"/>
    ${shine(36, 22, 12, 3)}`),
  star: (id) => svg(`<defs>${grad(id, "#fff6b0", "#e08a00", true)}</defs>
    <circle cx="50" cy="50" r="44" fill="#1a2a6a" stroke="#7fb2ff" stroke-width="3"/>
    <path d="M50 10 L61 38 L91 39 L67 58 L76 88 L50 70 L24 88 L33 58 L9 39 L39 38 Z" fill="url(#${id})" stroke="#8a4a00" stroke-width="2.5" stroke-linejoin="round"/>
    ${shine(44, 34, 6, 4)}`),
  wild: (id) => svg(`<defs>${grad(id, "#7a3ad0", "#2a0a5a")}</defs>
    <rect x="4" y="16" width="92" height="68" rx="14" fill="url(#${id})" stroke="#ffd84a" stroke-width="5"/>
    <text x="50" y="62" text-anchor="middle" font-size="30" font-weight="900" fill="#ffd84a" stroke="#5a2a00" stroke-width="1.5" font-family="sans-serif">WILD</text>`),
  ruby: (id) => gem(id, "#ff8a9a", "#a3001e", "M50 10 L86 36 L74 86 L26 86 L14 36 Z"),
  jade: (id) => gem(id, "#9cf5c0", "#0a6a3a", "M30 12 L70 12 L90 50 L70 88 L30 88 L10 50 Z"),
  opal: (id) => gem(id, "#e6f4ff", "#6a8ad0", "M50 10 C78 10 90 30 90 50 C90 72 76 90 50 90 C24 90 10 72 10 50 C10 30 22 10 50 10 Z"),
  emerald: (id) => gem(id, "#6ef0a0", "#0a7a3e", "M32 12 L68 12 L88 32 L88 68 L68 88 L32 88 L12 68 L12 32 Z"),
  sapphire: (id) => gem(id, "#7fb2ff", "#143f9e", "M26 12 L74 12 Q88 12 88 26 L88 74 Q88 88 74 88 L26 88 Q12 88 12 74 L12 26 Q12 12 26 12 Z"),
  diamond: (id) => gem(id, "#f4fbff", "#7fb3d6", "M50 10 L86 40 L50 90 L14 40 Z"),
};

/** What a name means to the art: "Star (anywhere)" -> "star". */
export const artKey = (name) => String(name || "").replace(/\s*\(.*\)$/, "").trim().toLowerCase();

/** SVG markup for the symbol ``name`` (its name in words); unknown names get a plaque. */
export function symbolArt(name) {
  ids += 1;
  const draw = ART[artKey(name)];
  if (draw) return draw(`sym-${ids}`);
  const text = String(name || "?");
  const hue = symbolHue(text);
  const size = text.length > 6 ? 14 : text.length > 3 ? 20 : 34;
  return svg(`<rect x="8" y="20" width="84" height="60" rx="12" fill="hsl(${hue} 55% 32%)" stroke="hsl(${hue} 70% 70%)" stroke-width="4"/>` +
    `<text x="50" y="${50 + size / 3}" text-anchor="middle" font-size="${size}" font-weight="800" fill="#fff" font-family="sans-serif">${
      text.replace(/[<&>"]/g, "")}</text>`);
}

/** A gold coin (hold and respin); its value is written over it in the page's own text, not in the SVG. */
export function coinArt() {
  ids += 1;
  const id = `coin-${ids}`;
  return svg(`<defs>${grad(id, "#fff3a8", "#b57a00", true)}</defs>
    <circle cx="50" cy="50" r="45" fill="url(#${id})" stroke="#6a4400" stroke-width="3"/>
    <circle cx="50" cy="50" r="35" fill="none" stroke="#8a5a00" stroke-width="2.5" stroke-dasharray="4 3"/>${shine(36, 30, 12, 6)}`);
}

/** The vault door (the hold and respin lobby art and the Grand). */
export function vaultArt() {
  ids += 1;
  const id = `vault-${ids}`;
  const bolts = [0, 60, 120, 180, 240, 300].map((a) =>
    `<circle cx="50" cy="14" r="4" fill="#3a2a10" transform="rotate(${a} 50 50)"/>`).join("");
  return svg(`<defs>${grad(id, "#e8e0c8", "#6a6048")}</defs>
    <circle cx="50" cy="50" r="45" fill="url(#${id})" stroke="#2a2010" stroke-width="3"/>${bolts}
    <circle cx="50" cy="50" r="22" fill="#3a3020" stroke="#ffd84a" stroke-width="3"/>
    <path d="M50 30 L50 70 M30 50 L70 50 M36 36 L64 64 M64 36 L36 64" stroke="#ffd84a" stroke-width="4" stroke-linecap="round"/>
    <circle cx="50" cy="50" r="7" fill="#ffd84a"/>`);
}
