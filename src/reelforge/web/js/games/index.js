// One renderer module per game, keyed by game id; unknown games get the generic one.
import * as generic from "./generic.js";
import * as forgeOfFortunes from "./forge-of-fortunes.js";

export const RENDERERS = {
  "forge-of-fortunes": forgeOfFortunes,
};

export function rendererFor(gameId) {
  return RENDERERS[gameId] || generic;
}
