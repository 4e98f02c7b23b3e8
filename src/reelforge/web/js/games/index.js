// One renderer module per game, keyed by game id; unknown games get the generic one.
import * as generic from "./generic.js";
import * as forgeOfFortunes from "./forge-of-fortunes.js";
import * as forgeOfGems from "./forge-of-gems.js";
import * as gemstonesGold from "./gemstones-gold.js";

export const RENDERERS = {
  "forge-of-fortunes": forgeOfFortunes,
  "gemstones-gold": gemstonesGold,
  "forge-of-gems": forgeOfGems,
};

export function rendererFor(gameId) {
  return RENDERERS[gameId] || generic;
}
