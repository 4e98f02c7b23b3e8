// Forge of Gems: the 5x3 ways grid with split cells, the FORGE REEL above it, the
// win multiplier, the GEMBOX the player opens, and free spins remaining.
// Driven by games/forge_of_gems/rules.py events:
//   spin {board:[5 columns of "NAME" or "NAME*n", top->bottom], ways, forge_reel:[5], multiplier, ...}
//   win {symbol, length, ways, pay_x, multiplier, win_x}          (before the cascade they cause)
//   multiplier {from, to}
//   cascade {number, removed:[[col,row] 1-based], landings:[{column,row,forge,target,effect,cells_changed}],
//            board, ways, forge_reel, multiplier}
//   gembox_awarded {scatters, scatter_class}; gembox_reward {scatter_class, reward, prize_x, free_spins}
//   free_spins_awarded {free_spins}; free_spins_remaining {played, remaining, multiplier}; cap; round_end

import { el, formatX, replaySteps } from "../util.js";
import { makeGrid, symbolSvg } from "./gems.js";

const FORGE_ART = {
  VERTICAL_WILD: ["↕", "WILD", "Vertical WILD"],
  HORIZONTAL_WILD: ["↔", "WILD", "Horizontal WILD"],
  VERTICAL_SPLITTER: ["↕", "SPLIT", "Vertical Splitter"],
  HORIZONTAL_SPLITTER: ["↔", "SPLIT", "Horizontal Splitter"],
  MULTIPLIER: ["+1", "MULTI", "Multiplier"],
  BLANK: ["", "", "Blank"],
  SCATTER: ["", "", "Scatter"],
};

function forgeTile(name) {
  const [arrow, word, title] = FORGE_ART[name] || ["?", name, name];
  const tile = el(`div.fog-forge.f-${String(name).toLowerCase()}`, { "data-forge": name, title });
  if (name === "SCATTER") tile.innerHTML = symbolSvg("SCATTER");
  else tile.append(el("b", { text: arrow }), el("small", { text: word }));
  return tile;
}

const pretty = (s) => String(s).replace(/_/g, " ");

/** Lobby artwork. */
export function art() {
  return ["DIAMOND", "WILD", "SCATTER", "TOPAZ"].map((n) => `<span class="art-symbol">${symbolSvg(n)}</span>`).join("");
}

export function create(root, _ctx) {
  const grid = makeGrid(5, 3, "fog-board");
  const forgeRow = el("div.fog-forge-reel", { "data-testid": "fog-forge-reel" });
  const multBox = el("div.fog-counter", { "data-testid": "fog-multiplier" });
  const spinsBox = el("div.fog-counter", { "data-testid": "fog-free-spins" });
  const waysBox = el("div.fog-ways", { "data-testid": "fog-ways" });
  const banner = el("div.fog-banner", { "data-testid": "fog-banner" });
  const winsList = el("ul.fog-wins", { "data-testid": "fog-wins" });
  const gembox = el("div.fog-gembox", { "data-testid": "fog-gembox", hidden: true });
  root.append(el("div.fog", {},
    el("div.fog-top", {}, multBox, spinsBox),
    el("div.fog-frame", {}, el("div.fog-forge-label", { text: "FORGE REEL" }), forgeRow, grid.root, waysBox),
    gembox, banner, winsList));

  let multiplier = 1;
  let spinsLeft = 0;
  let inFeature = false;

  function showCounters() {
    multBox.innerHTML = `<span>Win multiplier</span><strong>x${multiplier}</strong>`;
    multBox.dataset.value = String(multiplier);
    spinsBox.hidden = !inFeature;
    spinsBox.innerHTML = `<span>Free spins left</span><strong>${spinsLeft}</strong>`;
    spinsBox.dataset.value = String(spinsLeft);
  }

  function setForge(reel) {
    forgeRow.replaceChildren(...reel.map(forgeTile));
    forgeRow.dataset.forge = reel.join(",");
  }

  function say(text, tone = "") { banner.textContent = text; banner.className = `fog-banner ${tone}`; }

  function showGembox(scatters, reward) {
    gembox.hidden = false;
    gembox.classList.toggle("opened", !!reward);
    gembox.dataset.state = reward ? "opened" : "closed";
    const lid = el("div.fog-gembox-art", { html: symbolSvg("SCATTER") });
    if (!reward) {
      gembox.replaceChildren(lid, el("div", {}, el("strong", { text: "GEMBOX!" }),
        el("p", { text: `${scatters} SCATTERs awarded the GEMBOX. Open it to reveal your reward.` })));
    } else {
      const parts = [];
      if (reward.prize_x && reward.prize_x !== "0") parts.push(`${formatX(reward.prize_x)} the bet`);
      if (reward.free_spins) parts.push(`${reward.free_spins} FREE SPINS`);
      gembox.replaceChildren(lid, el("div", {}, el("strong", { text: "The GEMBOX holds" }),
        el("p.fog-reward", { "data-testid": "fog-reward", text: parts.join(" + ") || "nothing" })));
    }
  }

  async function apply(step, anim) {
    for (const ev of step.events) {
      if (ev.type === "spin") {
        winsList.replaceChildren();
        grid.clear("win");
        grid.clear("boom");
        if (step.kind === "free_spin") inFeature = true;
        if (!inFeature) gembox.hidden = true;
        multiplier = ev.multiplier;
        setForge(ev.forge_reel);
        grid.set(ev.board, { drop: !anim.fast() });
        waysBox.textContent = `${ev.ways.toLocaleString()} ways`;
        if (ev.guaranteed_multiplier_position !== undefined && ev.guaranteed_multiplier_position !== null) {
          forgeRow.children[ev.guaranteed_multiplier_position].classList.add("flash");
        }
        say(step.kind === "free_spin" ? "Free spin" : "");
        showCounters();
        await anim.wait(450);
      } else if (ev.type === "win") {
        // Winning cells add up over the cascade's wins: the symbol or WILD on reels 1..length.
        const hit = (c, r, sym) => c < ev.length && (sym === ev.symbol || sym === "WILD");
        grid.mark("win", (c, r, sym) => hit(c, r, sym) || grid.cell(c, r).classList.contains("win"));
        winsList.append(el("li", { text: `${pretty(ev.symbol)} on ${ev.length} reels, ${ev.ways} ways × ${formatX(ev.pay_x)}` +
          `${ev.multiplier > 1 ? ` × ${ev.multiplier}` : ""} = ${formatX(ev.win_x)}` }));
        say(`${pretty(ev.symbol)} pays ${formatX(ev.win_x)}`, "win");
        await anim.wait(350);
      } else if (ev.type === "multiplier") {
        multiplier = ev.to;
        multBox.classList.add("flash");
        setTimeout(() => multBox.classList.remove("flash"), 600);
        showCounters();
      } else if (ev.type === "cascade") {
        const removed = new Set(ev.removed.map(([c, r]) => `${c - 1},${r - 1}`));
        grid.mark("boom", (c, r) => removed.has(`${c},${r}`));
        await anim.wait(300);
        grid.clear("win");
        grid.clear("boom");
        grid.set(ev.board, { drop: !anim.fast() });
        for (const land of ev.landings) {
          const cell = grid.cell(land.column - 1, land.row - 1);
          cell.classList.add("landed");
          cell.dataset.forge = land.forge;
          cell.append(forgeTile(land.forge));
        }
        setForge(ev.forge_reel);
        multiplier = ev.multiplier;
        waysBox.textContent = `${ev.ways.toLocaleString()} ways`;
        const effects = ev.landings.filter((l) => l.forge !== "BLANK").map((l) => `${pretty(l.forge)}: ${l.effect}`);
        say(effects.length ? effects.join(" · ") : `Cascade ${ev.number}`);
        showCounters();
        await anim.wait(550);
      } else if (ev.type === "gembox_awarded") {
        grid.mark("win", (_c, _r, sym) => sym === "SCATTER");
        showGembox(ev.scatters, null);
        say(`${ev.scatters} SCATTERs: the GEMBOX is yours to open`, "big");
        await anim.wait(500);
      } else if (ev.type === "gembox_reward") {
        showGembox(null, ev);
        say(`GEMBOX: ${pretty(ev.reward)}`, "big");
        await anim.wait(700);
      } else if (ev.type === "free_spins_awarded") {
        inFeature = true;
        spinsLeft = ev.free_spins;
        multiplier = 1;
        showCounters();
      } else if (ev.type === "free_spins_remaining") {
        spinsLeft = ev.remaining;
        multiplier = ev.multiplier;
        showCounters();
      } else if (ev.type === "cap") {
        say(`Maximum win reached: ${formatX(ev.cap_x)} the bet`, "big");
        await anim.wait(600);
      }
    }
  }

  return {
    newRound() {
      multiplier = 1;
      spinsLeft = 0;
      inFeature = false;
      gembox.hidden = true;
      showCounters();
      say("");
    },
    playStep(step, _round, anim) { return apply(step, anim); },
    restore(round) {
      this.newRound(round);
      return replaySteps(round.steps, apply);
    },
    nextLabel(round) { return round.next_step === "gembox" ? "OPEN GEMBOX" : "FREE SPIN"; },
    nextAction(round) { return round.next_step === "gembox" ? "open" : null; },
    status(round) {
      if (!round || round.status !== "open") return "";
      if (round.next_step === "gembox") return "The GEMBOX is waiting to be opened";
      return `Free spins left: ${spinsLeft}, win multiplier x${multiplier}`;
    },
  };
}
