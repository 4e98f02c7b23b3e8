// One renderer module per game, keyed by game id; a game without its own gets the renderer of the
// presentation it declares in the games list (its genre: "lines", "hold_and_respin"), else the generic one.
import { S } from "../state.js";
import * as generic from "./generic.js";
import * as forgeOfFortunes from "./forge-of-fortunes.js";
import * as forgeOfGems from "./forge-of-gems.js";
import * as gemstonesGold from "./gemstones-gold.js";
import * as holdAndRespin from "./holdspin.js";
import * as lines from "./lines.js";

export const RENDERERS = {
  "forge-of-fortunes": forgeOfFortunes,
  "gemstones-gold": gemstonesGold,
  "forge-of-gems": forgeOfGems,
};

/** Genre renderers by the presentation a game declares (``Game.presentation`` on the server). */
export const PRESENTATIONS = { lines, hold_and_respin: holdAndRespin };

export function rendererFor(gameId) {
  const entry = S.gamesById[gameId];
  return RENDERERS[gameId] || (entry && PRESENTATIONS[entry.presentation]) || generic;
}
