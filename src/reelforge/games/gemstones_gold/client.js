// Gemstones Gold: the 6x6 tumbling board, the multiplier reel under it (one lane
// per column: a value under blockers), the revealed values and their sum, free
// spins remaining and the persistent total multiplier M.
// Driven by games/gemstones_gold/rules.py events:
//   spin {kind, stops, board:[6 strings, reel top->bottom], multiplier_reel:[{lane, value, blockers}]}
//   cascade {index, board (as evaluated), wins:[{symbol,count,tier,coins,amount_x}], cascade_win_x,
//            columns_with_wins, blockers:[{lane,value,removed,remaining,revealed_now}]}
//   spin_result {kind, final_board, cascades, revealed_values, multiplier_sum, win_before_multiplier_x, win_x,
//                scatters, total_multiplier_before/after, multiplier_applied}
//   free_spins_awarded {scatters, awarded, remaining}, free_spins_remaining {played, remaining, total_multiplier_*}
//   cap_reached {win_x, forfeited_spins}, round_end {total_win_x, ...}

import { lang, locale, t, tn } from "/js/i18n.js";
import { play } from "/js/sound.js";
import { el, formatX, landed, replaySteps, showNewest } from "/js/util.js";
import { addX, makeGrid, nameOf, symbolSvg, teaseColumn } from "/js/games/gems.js";

const CHARS = { G: "GOLD_NUGGET", R: "RUBY", A: "AMETHYST", S: "SAPPHIRE", E: "EMERALD", B: "BRONZE_ORE",
  P: "PINK_STONE", L: "BLUE_STONE", X: "SCATTER" };
const REELS = 6;
// The board a game opens on: every symbol, no win of 8 and no 3 Scatters.
const SHOWCASE = ["GRASEB", "PLGRXA", "SEBPLG", "RASEBP", "LGRASE", "BPLGRA"];

/** Event boards are strings per reel ("GRPPPP"); the grid takes names per cell. */
function names(board) {
  return board.map((reel) => Array.from(reel, (ch) => CHARS[ch] || ch));
}

/** Lobby artwork. */
export function art() {
  return ["RUBY", "GOLD_NUGGET", "SAPPHIRE", "AMETHYST", "EMERALD"].map((n) => `<span class="art-symbol">${symbolSvg(n)}</span>`).join("");
}

/** A symbol's picture for the help (the board's own art). */
export function helpArt(key) { return symbolSvg(key); }


export function create(root, ctx = {}) {
  const words = (key) => nameOf(ctx.help && ctx.help.symbol_names, key);
  const grid = makeGrid(REELS, 6, "gg-board", ctx.help && ctx.help.symbol_names);
  const lanes = Array.from({ length: REELS }, (_, i) => el("div.gg-lane", { "data-lane": i + 1, "data-testid": `gg-lane-${i + 1}` }));
  const laneRow = el("div.gg-lanes", { "data-testid": "gg-lanes" }, ...lanes);
  const spinsBox = el("div.gg-counter.cascade-counter", { "data-testid": "gg-free-spins" });
  const multBox = el("div.gg-counter.cascade-counter", { "data-testid": "gg-total-multiplier" });
  const sumBox = el("div.gg-sum", { "data-testid": "gg-sum" });
  const banner = el("div.gg-banner.cascade-banner", { "data-testid": "gg-banner" });
  const winsList = el("ul.gg-wins.cascade-wins", { "data-testid": "gg-wins", "aria-label": t("Wins of this spin") });
  root.append(el("div.gg.cascade", {},
    el("div.gg-top.cascade-top", {}, spinsBox, multBox),
    el("div.fit", {}, el("div.gg-frame", {}, grid.root, laneRow)),
    el("div.gg-info.cascade-info", {}, sumBox, banner),
    winsList));

  let spinsLeft = 0;
  let totalM = 0;
  let inFeature = false;
  let spinSum = "0";

  /** What the revealed values do to this spin's win, in words (a free spin revealing none is paid as it is). */
  function multiplierWords(ev) {
    const revealed = ev.revealed_values || [];
    const sum = revealed.map((v) => v + "x").join(" + ");
    if (ev.kind === "free") {
      if (revealed.length) return t("Revealed {sum} = {total}x, added to the total multiplier: now {after}x, which multiplies this spin's win", { sum, total: ev.multiplier_sum, after: ev.total_multiplier_after });
      if (!ev.cascades) return "";
      return ev.total_multiplier_after
        ? t("Nothing revealed this spin: its win is paid as it is (the total multiplier {after}x applies only to spins that reveal a value)", { after: ev.total_multiplier_after })
        : t("Nothing revealed this spin: its win is paid as it is");
    }
    if (revealed.length) return t("Revealed {sum} = {total}x: the spin's win is multiplied by {total}", { sum, total: ev.multiplier_sum });
    return ev.cascades ? t("No multiplier revealed: the spin's win is paid as it is") : "";
  }
  function showCounters() {
    spinsBox.hidden = !inFeature;
    multBox.hidden = !inFeature;
    spinsBox.replaceChildren(el("span", { text: t("Free spins left") }), el("strong", { text: String(spinsLeft) }));
    multBox.replaceChildren(el("span", { text: t("Total multiplier") }), el("strong", { text: totalM ? `${totalM}x` : "—" }));
    spinsBox.dataset.value = String(spinsLeft);
    multBox.dataset.value = String(totalM);
    if (ctx.counters) ctx.counters();
  }
  const liveStatus = () => (inFeature
    ? (totalM ? t("Free spins left: {n}, total multiplier {m}x", { n: spinsLeft, m: totalM })
      : t("Free spins left: {n}, no multiplier revealed yet", { n: spinsLeft })) : "");

  /** A lane: its value under ``blockers`` blockers ("?" while covered, unless ``open``: the replay shows it). */
  function setLane(i, value, blockers, open = false) {
    const lane = lanes[i];
    lane.className = "gg-lane";
    lane.dataset.value = value === null ? "" : String(value);
    lane.dataset.blockers = blockers === null ? "" : String(blockers);
    if (value === null) { lane.replaceChildren(el("span.gg-lane-empty", { text: "·" })); return; }
    if (blockers > 0) {
      lane.classList.add("blocked");
      lane.replaceChildren(el("span.gg-lane-value", { text: open ? `${value}x` : "?" }),
        el("span.gg-blockers", { title: tn("{n} blocker", "{n} blockers", blockers) },
          ...Array.from({ length: blockers }, () => el("i")), el("b", { text: String(blockers) })));
    } else {
      lane.classList.add("revealed");
      lane.replaceChildren(el("span.gg-lane-value", { text: `${value}x` }));
    }
  }

  function say(text, tone = "") { banner.textContent = text; banner.className = `gg-banner cascade-banner ${tone}`; }
  const many = (name) => (name.endsWith("y") ? `${name.slice(0, -1)}ies` : `${name}s`); // "8 Rubies", "9 Pink Stones"
  // Wins read in money at the round's bet, the multiple of the bet beside it.
  const pay = (x) => (ctx.winWords ? ctx.winWords(x) : formatX(x));
  const money = (x) => (ctx.atBet ? ctx.atBet(x) : formatX(x));
  // "8 Rubies pay €1.00": the English plural of a symbol's name is English only; other languages count "8 × Ruby".
  const winText = (w) => t("{count} {symbols} pay {amount}", { count: w.count,
    symbols: lang() === "en" ? many(words(w.symbol)) : words(w.symbol), amount: pay(w.amount_x) });
  /** The list's first line: this spin's total so far, in money. */
  function spinTotal(x) {
    let total = winsList.querySelector("li.total");
    if (!total) { total = el("li.total", { "data-testid": "gg-spin-total" }); winsList.prepend(total); }
    total.textContent = t("This spin: {amount}", { amount: pay(x) });
  }

  async function apply(step, anim) {
    for (const ev of step.events) {
      if (ev.type === "spin") {
        if (ev.kind === "free") inFeature = true;
        winsList.replaceChildren();
        spinSum = "0";
        sumBox.textContent = "";
        grid.clear("win");
        grid.clear("boom");
        const board = names(ev.board);
        // Three Scatters start the free spins: with two landed and a column to go, the rest land later, lit.
        const teaseFrom = teaseColumn(board, (n) => n === "SCATTER", 3);
        grid.set(board, { drop: !anim.quiet, quick: anim.fast(), teaseFrom });
        if (teaseFrom !== null && !anim.quiet && !anim.still) play("tease");
        const byLane = new Map(ev.multiplier_reel.map((m) => [m.lane - 1, m]));
        for (let i = 0; i < REELS; i++) {
          const m = byLane.get(i);
          setLane(i, m ? m.value : null, m ? m.blockers : null, !!anim.still);
        }
        say(ev.kind === "free" ? t("Free spin") : "");
        showCounters();
        await landed(anim, grid.root);
        await anim.wait(200);
      } else if (ev.type === "cascade") {
        // The refill of the cascade before (the first cascade is the spin's own board): new symbols fall in.
        grid.set(names(ev.board), { drop: anim.quiet ? false : "changed", quick: anim.fast() });
        await landed(anim, grid.root);
        const winners = new Set(ev.wins.map((w) => w.symbol));
        grid.mark("win", (_c, _r, sym) => winners.has(sym));
        spinSum = addX(spinSum, ev.cascade_win_x);
        spinTotal(spinSum);
        winsList.append(...ev.wins.map((w) => el("li", { text: t("Cascade {n}: {win}", { n: ev.index, win: winText(w) }) })));
        showNewest(winsList);
        say(t("Cascade {n}: {win}", { n: ev.index, win: money(ev.cascade_win_x) }), "win");
        await anim.wait(500);
        if (!anim.still) grid.mark("boom", (_c, _r, sym) => winners.has(sym));
        for (const b of ev.blockers) {
          setLane(b.lane - 1, b.value, b.remaining, !!anim.still);
          if (b.removed && !anim.still) lanes[b.lane - 1].classList.add(b.revealed_now ? "flash-reveal" : "flash-hit");
        }
        await anim.wait(350);
      } else if (ev.type === "spin_result") {
        grid.clear("win");
        grid.set(names(ev.final_board), { drop: !anim.quiet && ev.cascades > 0 ? "changed" : false, quick: anim.fast() });
        await landed(anim, grid.root);
        const revealed = ev.revealed_values || [];
        sumBox.dataset.sum = String(ev.multiplier_sum);
        sumBox.textContent = multiplierWords(ev);
        if (ev.kind === "free" && ev.multiplier_sum > 0) totalM = ev.total_multiplier_after;
        const before = ev.win_before_multiplier_x;
        if (ev.win_x !== "0") {
          const applied = ev.kind === "free" ? ev.multiplier_applied : (ev.multiplier_sum || 1);
          if (ev.cascades) spinTotal(ev.win_x);
          say(applied > 1 ? `${money(before)} × ${applied} = ${money(ev.win_x)}` : t("Spin win {amount}", { amount: money(ev.win_x) }), "big");
        } else {
          say(ev.scatters >= 3 ? "" : t("No win"));
        }
        showCounters();
        await anim.wait(ev.win_x !== "0" ? 500 : 150);
      } else if (ev.type === "free_spins_awarded") {
        grid.mark("win", (_c, _r, sym) => sym === "SCATTER");
        const retrigger = inFeature;
        inFeature = true;
        spinsLeft = ev.remaining;
        const spins = tn("{n} free spin", "{n} free spins", ev.awarded);
        say(retrigger ? t("{n} Scatters: +{spins}!", { n: ev.scatters, spins }) : t("{n} Scatters: {spins}!", { n: ev.scatters, spins }), "big");
        showCounters();
        if (ctx.moment && !anim.quiet) {
          await ctx.moment(retrigger
            ? { title: t("RETRIGGER!"), amount: `+${spins.toLocaleUpperCase(locale())}`, text: t("{n} Scatters in a free spin: {left} left.", { n: ev.scatters, left: tn("{n} free spin", "{n} free spins", ev.remaining) }) }
            : { title: t("FREE SPINS!"), amount: spins.toLocaleUpperCase(locale()), text: t("{n} Scatters triggered the feature. Revealed multipliers now add up for the whole feature.", { n: ev.scatters }) });
        } else {
          await anim.wait(700);
        }
      } else if (ev.type === "free_spins_remaining") {
        spinsLeft = ev.remaining;
        totalM = ev.total_multiplier_after;
        showCounters();
      } else if (ev.type === "cap_reached") {
        say(t("Maximum win reached: {amount}", { amount: pay(ev.win_x) }), "big");
        await anim.wait(600);
      }
      if (anim.frame) await anim.frame(ev, step);
    }
  }

  /** A replay caption for an event, or null when the event draws nothing new. */
  function describe(ev, step) {
    if (ev.type === "spin") {
      const lanes = ev.multiplier_reel.map((m) => t("{value}x under column {n}", { value: m.value, n: m.lane })).join(", ");
      return ev.kind === "free"
        ? t("The starting board. Every column has a value under 2 blockers: {lanes}.", { lanes })
        : t("The starting board. The multiplier reel holds {lanes}, each under 3 blockers.", { lanes });
    }
    if (ev.type === "cascade") {
      const hits = ev.blockers.filter((b) => b.removed).map((b) => (b.remaining === 0
        ? t("column {n} reveals {value}x", { n: b.lane, value: b.value }) : t("column {n} loses a blocker ({left} left)", { n: b.lane, left: b.remaining })));
      return t("Cascade {n}: {wins}, {amount} in all.", { n: ev.index, wins: ev.wins.map(winText).join("; "), amount: pay(ev.cascade_win_x) }) +
        (hits.length ? ` ${t("Then {what}.", { what: hits.join(", ") })}` : "");
    }
    if (ev.type === "spin_result") {
      const revealed = ev.revealed_values || [];
      const sum = revealed.length ? `${t("Revealed {sum} = {total}x.", { sum: revealed.map((v) => v + "x").join(" + "), total: ev.multiplier_sum })} ` : "";
      const total = ev.kind !== "free" ? "" : ev.total_multiplier_after
        ? ` ${t("Total multiplier {m}x.", { m: ev.total_multiplier_after })}` : ` ${t("Total multiplier: none revealed yet.")}`;
      if (ev.win_x === "0") return `${sum}${t("The spin pays nothing.")}${total}`;
      const applied = ev.kind === "free" ? ev.multiplier_applied : (ev.multiplier_sum || 1);
      return `${sum}${t("The spin pays {amount}.", { amount: `${applied > 1 ? `${money(ev.win_before_multiplier_x)} × ${applied} = ` : ""}${pay(ev.win_x)}` })}${total}`;
    }
    if (ev.type === "free_spins_awarded") {
      const spins = tn("{n} free spin", "{n} free spins", ev.awarded);
      return step.kind === "free_spin" ? t("{n} Scatters retrigger: +{spins} ({left} left).", { n: ev.scatters, spins, left: ev.remaining })
        : t("{n} Scatters award {spins}.", { n: ev.scatters, spins });
    }
    if (ev.type === "cap_reached") return t("The maximum win of {x} is reached; {spins} are forfeited.", { x: formatX(ev.win_x), spins: tn("{n} free spin", "{n} free spins", ev.forfeited_spins) });
    return null;
  }

  return {
    newRound(round) {
      spinsLeft = 0;
      totalM = 0;
      inFeature = !!(round && round.mode && round.mode !== "paid");
      if (round && round.state && round.state.spins_left) spinsLeft = round.state.spins_left;
      // Nothing of the round before stays: its wins, its sum, its banner.
      winsList.replaceChildren();
      sumBox.textContent = "";
      spinSum = "0";
      showCounters();
      say("");
    },
    showcase() {
      grid.set(names(SHOWCASE));
      for (let i = 0; i < REELS; i++) setLane(i, null, null);
      winsList.replaceChildren();
      sumBox.textContent = "";
      say(t("8 or more of a kind anywhere win"));
      showCounters();
    },
    playStep(step, _round, anim) { return apply(step, anim); },
    apply,
    describe,
    restore(round) {
      this.newRound(round);
      return replaySteps(round.steps, apply);
    },
    /** A bought feature's intro: every free spin bought (the counter shows them all before the first). */
    buyIntro(round) {
      const events = round.steps[0].events;
      const left = events.find((e) => e.type === "free_spins_remaining");
      const retrigger = events.find((e) => e.type === "free_spins_awarded");
      const bought = left ? left.played + left.remaining - (retrigger ? retrigger.awarded : 0) : 0;
      if (!bought) return null;
      inFeature = true;
      spinsLeft = bought;
      showCounters();
      return tn("{n} free spin", "{n} free spins", bought).toLocaleUpperCase(locale());
    },
    /** The feature is over: its counters go, the last spin's wins stay; the banner says the feature's total. */
    finish(round) {
      if (inFeature && round) say(t("Free spins complete: {amount} in all", { amount: pay(round.total_win_x) }), "big");
      inFeature = false;
      showCounters();
      sumBox.textContent = "";
    },
    nextLabel() { return t("FREE SPIN"); },
    nextAction() { return null; },
    liveStatus,
    status(round) { return round && round.status === "open" ? liveStatus() : ""; },
  };
}
