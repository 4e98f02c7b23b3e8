// A game's renderer: the one it ships in its own folder (``client`` in the games list: its ``client.js``,
// served by the server, with its ``client.css``), else the renderer of the presentation it declares (its
// genre: "lines", "hold_and_respin"), else the generic one. A game's client.js without ``create`` gives only its
// symbols' look (``symbols``: see generic.js), which the generic renderer draws. No game is named here.
import { S } from "../state.js";
import { el } from "../util.js";
import * as generic from "./generic.js";
import * as holdAndRespin from "./holdspin.js";
import * as lines from "./lines.js";

const OWN = {};
const loading = {};

/** Genre renderers by the presentation a game declares (``Game.presentation`` on the server). */
export const PRESENTATIONS = { lines, hold_and_respin: holdAndRespin };

/** Load the renderers (and stylesheets) that ``games`` (entries of ``GET /games``) ship in their folders. */
export function loadGameClients(games) {
  return Promise.all(games.map((g) => {
    const { renderer, style } = g.client || {};
    loading[g.id] ||= Promise.all([
      renderer ? import(renderer).then((module) => { OWN[g.id] = module.create ? module : generic.withLook(module); }) : null,
      style ? new Promise((resolve) => {  // drawn once its styles are there (a stylesheet that fails: unstyled)
        const link = el("link", { rel: "stylesheet", href: style, "data-game-style": g.id });
        link.onload = link.onerror = resolve;
        document.head.append(link);
      }) : null]);
    return loading[g.id];
  }));
}

export function rendererFor(gameId) {
  const entry = S.gamesById[gameId];
  return OWN[gameId] || (entry && PRESENTATIONS[entry.presentation]) || generic;
}
