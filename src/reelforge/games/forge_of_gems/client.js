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

import { formatNumber, locale, t, tn } from "/js/i18n.js";
import { play } from "/js/sound.js";
import { el, formatX, landed, replaySteps, showNewest } from "/js/util.js";
import { addX, makeGrid, nameOf, symbolSvg, teaseColumn } from "/js/games/gems.js";

// The FORGE REEL symbols: arrow, word on the tile, name, what it does (translated when shown).
const FORGE_ART = {
  VERTICAL_WILD: ["↕", "WILD", "Vertical Wild", "turns its reel WILD"],
  HORIZONTAL_WILD: ["↔", "WILD", "Horizontal Wild", "turns matching symbols on its row WILD"],
  VERTICAL_SPLITTER: ["↕", "SPLIT", "Vertical Splitter", "splits matching symbols on its reel"],
  HORIZONTAL_SPLITTER: ["↔", "SPLIT", "Horizontal Splitter", "is WILD and splits the symbols on its row"],
  MULTIPLIER: ["+1", "MULTI", "Multiplier", "raises the win multiplier"],
  BLANK: ["", "", "Blank", "does nothing"],
  SCATTER: ["", "", "Scatter", "adds a Scatter"],
};
// The board a game opens on: no symbol on the first three reels in a row.
const SHOWCASE = [["DIAMOND", "K", "TOPAZ"], ["A", "EMERALD", "Q"], ["SAPPHIRE", "J", "DIAMOND"],
  ["WILD", "TOPAZ", "K"], ["EMERALD", "SCATTER", "A"]];
const SHOWCASE_FORGE = ["MULTIPLIER", "VERTICAL_WILD", "BLANK", "HORIZONTAL_SPLITTER", "BLANK"];

function forgeTile(name) {
  const [arrow, word, title] = FORGE_ART[name] || ["?", "", t("FORGE REEL symbol")];
  const tile = el(`div.fog-forge.f-${String(name).toLowerCase()}`, { "data-forge": name, title });
  if (name === "SCATTER") tile.innerHTML = symbolSvg("SCATTER");
  else tile.append(el("b", { text: arrow }), el("small", { text: word }));
  return tile;
}

const forgeName = (name) => (FORGE_ART[name] ? FORGE_ART[name][2] : t("FORGE REEL symbol"));
const waysText = (n) => tn("{n} way", "{n} ways", n);
/** What a FORGE REEL symbol does, in the player's language. */
function forgeDoes(name) {
  switch (name) {
    case "VERTICAL_WILD": return t("turns its reel WILD");
    case "HORIZONTAL_WILD": return t("turns matching symbols on its row WILD");
    case "VERTICAL_SPLITTER": return t("splits matching symbols on its reel");
    case "HORIZONTAL_SPLITTER": return t("is WILD and splits the symbols on its row");
    case "MULTIPLIER": return t("raises the win multiplier");
    case "BLANK": return t("does nothing");
    case "SCATTER": return t("adds a Scatter");
    default: return "";
  }
}

/** Lobby artwork. */
/** The words of this game's own step kinds (the history's and the round page's step names). */
export const stepNames = { gembox: "GEMBOX" };

export function art() {
  return ["DIAMOND", "WILD", "SCATTER", "TOPAZ"].map((n) => `<span class="art-symbol">${symbolSvg(n)}</span>`).join("");
}

/** A symbol's picture for the help: board symbols, and FORGE REEL tiles as "forge:NAME". */
export function helpArt(key) {
  if (key.startsWith("forge:")) return forgeTile(key.slice(6));
  return symbolSvg(key);
}

export function create(root, ctx = {}) {
  const symbolNames = ctx.help && ctx.help.symbol_names;
  const words = (key) => nameOf(symbolNames, key);
  const grid = makeGrid(5, 3, "fog-board", symbolNames);
  const forgeRow = el("div.fog-forge-reel", { "data-testid": "fog-forge-reel" });
  const multBox = el("div.fog-counter.cascade-counter", { "data-testid": "fog-multiplier" });
  const spinsBox = el("div.fog-counter.cascade-counter", { "data-testid": "fog-free-spins" });
  const waysBox = el("div.fog-ways", { "data-testid": "fog-ways" });
  const banner = el("div.fog-banner.cascade-banner", { "data-testid": "fog-banner" });
  const winsList = el("ul.fog-wins.cascade-wins", { "data-testid": "fog-wins", "aria-label": t("Wins of this spin") });
  const gembox = el("div.fog-gembox", { "data-testid": "fog-gembox", hidden: true });
  root.append(el("div.fog.cascade", {},
    el("div.fog-top.cascade-top", {}, multBox, spinsBox),
    el("div.fit", {}, el("div.fog-frame", {}, el("div.fog-forge-label", { text: t("FORGE REEL") }), forgeRow, grid.root, waysBox)),
    el("div.fog-info.cascade-info", {}, gembox, banner),
    winsList));

  let multiplier = 1;
  let spinsLeft = 0;
  let inFeature = false;

  function showCounters() {
    multBox.replaceChildren(el("span", { text: t("Win multiplier") }), el("strong", { text: `x${multiplier}` }));
    multBox.dataset.value = String(multiplier);
    spinsBox.hidden = !inFeature;
    spinsBox.replaceChildren(el("span", { text: t("Free spins left") }), el("strong", { text: String(spinsLeft) }));
    spinsBox.dataset.value = String(spinsLeft);
    if (ctx.counters) ctx.counters();
  }
  const liveStatus = () => (inFeature ? t("Free spins left: {n}, win multiplier x{m}", { n: spinsLeft, m: multiplier }) : "");

  function setForge(reel) {
    forgeRow.replaceChildren(...reel.map(forgeTile));
    forgeRow.dataset.forge = reel.join(",");
  }

  function say(text, tone = "") { banner.textContent = text; banner.className = `fog-banner cascade-banner ${tone}`; }

  // Wins and prizes read in money at the round's bet, the multiple of the bet beside it.
  const money = (x) => (ctx.atBet ? ctx.atBet(x) : t("{x} the bet", { x: formatX(x) }));
  const pay = (x) => (ctx.winWords ? ctx.winWords(x) : t("{x} the bet", { x: formatX(x) }));
  let spinSum = "0";
  /** The list's first line: this spin's total so far, in money. */
  function spinTotal() {
    let total = winsList.querySelector("li.total");
    if (!total) { total = el("li.total", { "data-testid": "fog-spin-total" }); winsList.prepend(total); }
    total.textContent = t("This spin: {amount}", { amount: pay(spinSum) });
  }

  function rewardText(reward) {
    const parts = [];
    if (reward.prize_x && reward.prize_x !== "0") parts.push(money(reward.prize_x));
    if (reward.free_spins) parts.push(tn("{n} free spin", "{n} free spins", reward.free_spins).toLocaleUpperCase(locale()));
    return parts.join(" + ") || t("nothing");
  }

  function showGembox(scatters, reward) {
    gembox.hidden = false;
    gembox.classList.toggle("opened", !!reward);
    gembox.dataset.state = reward ? "opened" : "closed";
    const lid = el("div.fog-gembox-art", { html: symbolSvg("SCATTER") });
    if (!reward) {
      gembox.replaceChildren(lid, el("div", {}, el("strong", { text: "GEMBOX!" }),
        el("p", { text: t("{n} Scatters awarded the GEMBOX. Open it to reveal your reward.", { n: scatters }) })));
    } else {
      gembox.replaceChildren(lid, el("div", {}, el("strong", { text: t("The GEMBOX holds") }),
        el("p.fog-reward", { "data-testid": "fog-reward", text: rewardText(reward) })));
    }
  }

  const winText = (ev) => t("{symbol} on {n} reels: {amount} ({how})", { symbol: words(ev.symbol), n: ev.length,
    amount: money(ev.win_x),
    how: `${waysText(ev.ways)} × ${formatX(ev.pay_x)}${ev.multiplier > 1 ? ` × ${ev.multiplier}` : ""} = ${formatX(ev.win_x)}` });
  const landingText = (l) => t("{symbol} on reel {n} {does}", { symbol: forgeName(l.forge), n: l.column, does: forgeDoes(l.forge) }).trim();

  /** "FORGE REEL: 4 Multipliers, Horizontal Wild" (the replay caption tells each landing). */
  function landingSummary(landings) {
    const counts = new Map();
    for (const l of landings) if (l.forge !== "BLANK") counts.set(forgeName(l.forge), (counts.get(forgeName(l.forge)) || 0) + 1);
    const parts = [...counts].map(([name, n]) => (n > 1 ? `${formatNumber(n)} × ${name}` : name));
    return parts.length ? `${t("FORGE REEL")}: ${parts.join(", ")}` : "";
  }

  async function apply(step, anim) {
    for (const ev of step.events) {
      if (ev.type === "spin") {
        winsList.replaceChildren();
        spinSum = "0";
        grid.clear("win");
        grid.clear("boom");
        if (step.kind === "free_spin") inFeature = true;
        if (!inFeature) gembox.hidden = true;
        multiplier = ev.multiplier;
        setForge(ev.forge_reel);
        // Three Scatters award the GEMBOX: with two landed and a reel to go, the rest land later, lit.
        const teaseFrom = teaseColumn(ev.board, (n) => String(n).split("*")[0] === "SCATTER", 3);
        grid.set(ev.board, { drop: !anim.quiet, quick: anim.fast(), teaseFrom });
        if (teaseFrom !== null && !anim.quiet && !anim.still) play("tease");
        waysBox.textContent = waysText(ev.ways);
        if (ev.guaranteed_multiplier_position !== undefined && ev.guaranteed_multiplier_position !== null && !anim.still) {
          forgeRow.children[ev.guaranteed_multiplier_position].classList.add("flash");
        }
        say(step.kind === "free_spin" ? t("Free spin") : "");
        showCounters();
        await landed(anim, grid.root);
        await anim.wait(200);
      } else if (ev.type === "win") {
        // Winning cells add up over the cascade's wins: the symbol or WILD on reels 1..length.
        const hit = (c, r, sym) => c < ev.length && (sym === ev.symbol || sym === "WILD");
        grid.mark("win", (c, r, sym) => hit(c, r, sym) || grid.cell(c, r).classList.contains("win"));
        spinSum = addX(spinSum, ev.win_x);
        spinTotal();
        winsList.append(el("li", { text: winText(ev) }));
        showNewest(winsList);
        say(t("{symbol} pays {amount}", { symbol: words(ev.symbol), amount: money(ev.win_x) }), "win");
        await anim.wait(350);
      } else if (ev.type === "multiplier") {
        multiplier = ev.to;
        if (!anim.still) {
          multBox.classList.add("flash");
          setTimeout(() => multBox.classList.remove("flash"), 600);
        }
        showCounters();
      } else if (ev.type === "cascade") {
        const removed = new Set(ev.removed.map(([c, r]) => `${c - 1},${r - 1}`));
        if (!anim.still) grid.mark("boom", (c, r) => removed.has(`${c},${r}`));
        await anim.wait(300);
        grid.clear("win");
        grid.clear("boom");
        grid.set(ev.board, { drop: anim.quiet ? false : "changed", quick: anim.fast() });
        await landed(anim, grid.root);
        // Each landing is a small badge in its cell's corner that fades; a Blank lands nothing to see.
        for (const land of ev.landings) {
          if (land.forge === "BLANK") continue;
          const cell = grid.cell(land.column - 1, land.row - 1);
          cell.classList.add("landed");
          if (anim.still) cell.classList.add("still");
          cell.dataset.forge = land.forge;
          cell.append(forgeTile(land.forge));
        }
        setForge(ev.forge_reel);
        multiplier = ev.multiplier;
        waysBox.textContent = waysText(ev.ways);
        say(landingSummary(ev.landings) || t("Cascade {n}", { n: ev.number }));
        showCounters();
        await anim.wait(550);
      } else if (ev.type === "gembox_awarded") {
        grid.mark("win", (_c, _r, sym) => sym === "SCATTER");
        showGembox(ev.scatters, null);
        say(""); // the GEMBOX card says it
        if (ctx.moment && !anim.quiet) {
          await ctx.moment({ title: "GEMBOX!", text: t("{n} Scatters awarded the GEMBOX. Open it to reveal an instant prize, free spins, or both.", { n: ev.scatters }) });
        } else {
          await anim.wait(500);
        }
      } else if (ev.type === "gembox_reward") {
        // The opening moment: the lid comes off, then the card tells what it held (the banner does not repeat it).
        if (!anim.still) gembox.classList.add("opening");
        showGembox(null, ev);
        say("");
        if (ctx.moment && !anim.quiet) {
          const prize = ev.prize_x && ev.prize_x !== "0" ? money(ev.prize_x) : "";
          await ctx.moment(ev.free_spins
            ? { title: t("GEMBOX OPENED"), kind: "gembox", sound: "feature", amount: tn("{n} free spin", "{n} free spins", ev.free_spins).toLocaleUpperCase(locale()),
              sub: prize ? t("and {prize}", { prize }) : t("The free spins play by themselves: {stop} pauses them", { stop: t("STOP") }),
              text: t("The win multiplier never resets during the free spins.") }
            : { title: t("GEMBOX OPENED"), kind: "gembox", sound: "feature", amount: prize, text: t("An instant prize of {amount}.", { amount: pay(ev.prize_x) }) });
        } else {
          await anim.wait(700);
        }
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
        say(t("Maximum win reached: {amount}", { amount: pay(ev.cap_x) }), "big");
        await anim.wait(600);
      }
      if (anim.frame) await anim.frame(ev, step);
    }
  }

  function describe(ev) {
    if (ev.type === "spin") {
      return t("The board and the FORGE REEL: {ways}, win multiplier x{m}.", { ways: waysText(ev.ways), m: ev.multiplier });
    }
    if (ev.type === "win") return `${winText(ev)}.`;
    if (ev.type === "cascade") {
      const lands = ev.landings.map(landingText);
      return t("Cascade {n}: the winning symbols are removed and the symbols fall.", { n: ev.number }) +
        (lands.length ? ` ${lands.join("; ")}.` : "") + ` ${t("Now {ways}, win multiplier x{m}.", { ways: waysText(ev.ways), m: ev.multiplier })}`;
    }
    if (ev.type === "gembox_awarded") return t("{n} Scatters award the GEMBOX.", { n: ev.scatters });
    if (ev.type === "gembox_reward") return t("The GEMBOX is opened: it holds {reward}.", { reward: rewardText(ev) });
    if (ev.type === "cap") return t("The maximum win of {x} the bet is reached.", { x: formatX(ev.cap_x) });
    return null;
  }

  return {
    newRound() {
      multiplier = 1;
      spinsLeft = 0;
      inFeature = false;
      gembox.hidden = true;
      // Nothing of the round before stays: its wins and its banner.
      winsList.replaceChildren();
      spinSum = "0";
      showCounters();
      say("");
    },
    showcase() {
      setForge(SHOWCASE_FORGE);
      grid.set(SHOWCASE);
      waysBox.textContent = waysText(243);
      say(t("Wins pay left to right on up to {ways}", { ways: waysText(36288) }));
    },
    playStep(step, _round, anim) { return apply(step, anim); },
    apply,
    describe,
    restore(round) {
      this.newRound(round);
      return replaySteps(round.steps, apply);
    },
    /** The feature is over: its cards and counters go; the next paid spin starts at x1. */
    finish(round) {
      if (inFeature && round) say(t("Free spins complete: {amount} in all", { amount: pay(round.total_win_x) }), "big");
      else if (banner.textContent === t("Free spin")) say("");
      inFeature = false;
      gembox.hidden = true;
      multiplier = 1;
      showCounters();
    },
    nextLabel(round) { return round.next_step === "gembox" ? t("OPEN GEMBOX") : t("FREE SPIN"); },
    nextAction(round) { return round.next_step === "gembox" ? "open" : null; },
    status(round) {
      if (!round || round.status !== "open") return "";
      if (round.next_step === "gembox") return t("The GEMBOX is waiting to be opened");
      return liveStatus();
    },
    liveStatus,
  };
}
