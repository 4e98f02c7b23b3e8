// Forge of Fortunes: three reels on one payline and the 15-runner prize ladder.
// Driven by the step events of games/forge_of_fortunes/rules.py:
//   {type:"reels", symbols:[...3], strip_set, stops}
//   {type:"trigger", runner, runner_x}                      (paid spin, GOLD GOLD GOLD)
//   {type:"win", combination, symbol, reels, coins, win_x}  (two of a kind)
//   {type:"ladder", move:"advance|coal_back|coal_safe|nothing|slag_end|top_reached", from, to, from_x, to_x}
//   {type:"award", runner, win_x, respins}, {type:"round_end", total_win_x}

import { t, tn } from "/js/i18n.js";
import { play } from "/js/sound.js";
import { QUICK, REEL_TIMING, el, formatX, shuffled, sleep, stepsRenderer } from "/js/util.js";

// Every drawing of the Gold Nugget gets its own gradient id: an id repeated in the page (the lobby's
// hidden art) would make the browser resolve url(#...) to the first copy and draw the nugget hollow.
let gradients = 0;
const SYMBOLS = {
  GOLD: (id) => `<svg viewBox="0 0 100 100" aria-hidden="true"><defs><linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#fff3a8"/><stop offset=".45" stop-color="#f5c22b"/><stop offset="1" stop-color="#a86a08"/></linearGradient></defs>
      <path d="M18 58 L30 30 L55 20 L78 32 L86 58 L70 78 L40 82 Z" fill="url(#${id})" stroke="#7a4a00" stroke-width="3"/>
      <path d="M32 36 L52 28 L62 40 L44 50 Z" fill="#fff8cf" opacity=".7"/></svg>`,
  SLAG: () => `<svg viewBox="0 0 100 100" aria-hidden="true">
      <path d="M14 62 Q18 36 40 30 Q56 18 74 32 Q92 44 84 66 Q72 84 48 82 Q20 82 14 62 Z" fill="#5b5550" stroke="#2b2724" stroke-width="3"/>
      <path d="M30 52 L44 58 L52 48 L66 60" stroke="#d2691e" stroke-width="3" fill="none"/>
      <circle cx="40" cy="42" r="4" fill="#3b3632"/><circle cx="64" cy="46" r="5" fill="#3b3632"/></svg>`,
  COAL: () => `<svg viewBox="0 0 100 100" aria-hidden="true">
      <path d="M20 60 L28 34 L52 22 L76 34 L84 60 L64 80 L36 80 Z" fill="#1a1a1d" stroke="#000" stroke-width="3"/>
      <path d="M36 40 L52 30 L66 40 L52 50 Z" fill="#3a3a42"/>
      <path d="M34 66 L48 58 L62 68" stroke="#ff4a1c" stroke-width="3" fill="none" opacity=".9"/></svg>`,
  BLANK: () => `<svg viewBox="0 0 100 100" aria-hidden="true"><circle cx="50" cy="50" r="6" fill="#5a4636"/></svg>`,
};
const SPIN_SYMBOLS = ["GOLD", "BLANK", "SLAG", "BLANK", "GOLD", "COAL", "BLANK"];
const NAMES = { GOLD: "Gold Nugget", SLAG: "Slag", COAL: "Coal", BLANK: "Blank" };

function svgOf(name) {
  const draw = SYMBOLS[name] || SYMBOLS.BLANK;
  gradients += 1;
  return draw(`fof-gold-${gradients}`);
}

// ``m`` writes a multiple of the bet in money at the round's bet.
const MOVE_WORDS = {
  advance: (e, m) => t("Three Gold Nuggets: the marker climbs to {amount}", { amount: m(e.to_x) }),
  top_reached: (e, m) => t("The marker reaches the top runner: {amount}!", { amount: m(e.to_x) }),
  coal_back: (e, m) => t("Coal: the marker falls back from {from} to {to}", { from: m(e.from_x), to: m(e.to_x) }),
  coal_safe: (e, m) => t("Coal, but {amount} is a safe runner: the marker holds", { amount: m(e.from_x) }),
  slag_end: (e, m) => t("Slag: the feature ends on {amount}", { amount: m(e.to_x) }),
  nothing: () => t("No change: the re-spins go on"),
};

/** Lobby artwork: the winning line. */
export function art() {
  return ["GOLD", "GOLD", "GOLD"].map((n) => `<span class="art-symbol">${svgOf(n)}</span>`).join("");
}

/** A symbol's picture for the help (the reels' own art). */
export function helpArt(key) { return svgOf(key); }

function symbolCell(name) {
  return el("div.fof-symbol", { "data-symbol": name, title: NAMES[name] || "", html: svgOf(name) });
}

export function create(root, ctx = {}) {
  const extra = (ctx.help && ctx.help.extra) || {};  // the help's fields only this game has
  const ladder = (extra.ladder_x || []).map(String);
  const safe = new Set((extra.safe_runners_x || []).map(String));

  const reels = [0, 1, 2].map((i) => el("div.fof-reel", { "data-testid": `fof-reel-${i + 1}` }, symbolCell("BLANK")));
  const banner = el("div.fof-banner", { "data-testid": "fof-banner" });
  const payline = el("div.fof-payline");
  const machine = el("div.fof-machine", {}, el("div.fof-reels", {}, payline, ...reels), banner);
  const rungs = ladder.map((x, i) => el(
    `li.fof-runner${safe.has(x) ? ".safe" : ""}`,
    { "data-index": i, "data-x": x, "data-testid": `runner-${i}` },
    el("span.fof-runner-x", { text: formatX(x) }),
    el("span.fof-runner-money"),
    safe.has(x) ? el("span.fof-safe", { title: t("Safe runner: Coal cannot move the marker back"), text: t("SAFE") }) : null,
  ));
  const ladderEl = el("ol.fof-ladder", { "data-testid": "fof-ladder", "aria-label": t("Prize ladder") }, ...rungs.slice().reverse());
  const ladderBox = el("div.fof-ladder-box", {}, el("div.fof-ladder-title", { text: t("Prize ladder") }), ladderEl);
  const respins = el("div.fof-respins", { "data-testid": "fof-respins" });
  root.append(el("div.fof", {}, el("div.fit", {}, machine), el("div.fof-side", {}, ladderBox, respins)));

  let runner = null;
  let count = 0;
  // Prizes read in money at the round's bet, the multiple of the bet beside it.
  const money = (x) => (ctx.atBet ? ctx.atBet(x) : formatX(x));
  const pay = (x) => (ctx.winWords ? ctx.winWords(x) : t("{x} the bet", { x: formatX(x) }));

  function setMarker(index, flash, fast = false) {
    runner = index;
    ladderEl.classList.toggle("active", index !== null);
    rungs.forEach((r, i) => {
      r.classList.toggle("marker", i === index);
      r.classList.remove("flash-up", "flash-down", "flash-hold", "awarded");
    });
    if (index !== null && flash && !fast) rungs[index].classList.add(flash);
    ladderEl.dataset.marker = index === null ? "" : String(index);
    if (ctx.counters) ctx.counters(index !== null ? { prizeX: ladder[index] ?? "0" } : {});
  }

  function showReels(symbols) {
    symbols.forEach((s, i) => reels[i].replaceChildren(symbolCell(s)));
    root.querySelector(".fof-reels").dataset.symbols = symbols.join(" ");
  }

  /** The reels spin their own strips and stop left to right; two Gold Nuggets on reels 1 and 2 keep reel 3
   * spinning longer, lit (anticipation). Quick spin shortens it, never skips it. */
  async function spinReels(symbols, anim) {
    if (anim.quiet) { showReels(symbols); return; }
    const scale = anim.fast() ? QUICK : 1;
    const started = performance.now();
    reels.forEach((r, i) => {
      r.classList.remove("landed");
      r.classList.add("spinning");
      const strip = el("div.fof-strip", {}, ...shuffled(SPIN_SYMBOLS, i + 3).concat(shuffled(SPIN_SYMBOLS, i + 5)).map(symbolCell));
      strip.style.animationDelay = `-${i * 70}ms`;
      r.replaceChildren(strip);
    });
    let due = REEL_TIMING.first + 180;
    for (let i = 0; i < 3; i++) {
      const tease = i === 2 && symbols[0] === "GOLD" && symbols[1] === "GOLD";
      if (i > 0) due += REEL_TIMING.gap + 80 + (tease ? REEL_TIMING.tease + 250 : 0);
      if (tease && !anim.still) { reels[i].classList.add("anticipate"); play("tease"); }
      // SKIP pressed mid-spin lands the rest at once (anim.pause); a replay's anim has none and sleeps.
      await (anim.pause || sleep)(Math.max(0, started + due * scale - performance.now()));
      reels[i].classList.remove("spinning", "anticipate");
      reels[i].replaceChildren(symbolCell(symbols[i]));
      reels[i].classList.add("landed");
      reels[i].dataset.stoppedAt = String(Math.round(performance.now()));
      if (!anim.still) play("stop");
    }
    root.querySelector(".fof-reels").dataset.symbols = symbols.join(" ");
  }

  function say(text, tone = "") {
    banner.textContent = text;
    banner.className = `fof-banner ${tone}`;
  }

  function updateRespins() {
    respins.textContent = runner === null ? "" : t("Re-spins played: {n}", { n: count });
  }
  const liveStatus = () => (runner !== null
    ? (safe.has(ladder[runner]) ? t("Forging Re-Spins: the marker is on {amount} (safe)", { amount: pay(ladder[runner] ?? "0") })
      : t("Forging Re-Spins: the marker is on {amount}", { amount: pay(ladder[runner] ?? "0") })) : "");

  async function apply(step, anim) {
    for (const ev of step.events) {
      if (ev.type === "reels") {
        reels.forEach((r) => r.classList.remove("win", "coal"));
        await spinReels(ev.symbols, anim);
      } else if (ev.type === "trigger") {
        reels.forEach((r) => r.classList.add("win"));
        say(t("Three Gold Nuggets! Forging Re-Spins: the marker starts on the first runner"), "big");
        count = 0;
        setMarker(Number(ev.runner ?? 0), "flash-up", anim.fast());
        if (ctx.moment && !anim.quiet) {
          await ctx.moment({ title: t("FORGING RE-SPINS!"), amount: money(ladder[Number(ev.runner ?? 0)] ?? ev.runner_x),
            sub: t("The re-spins play by themselves: {stop} pauses them", { stop: t("STOP") }),
            text: t("Three Gold Nuggets start the re-spins on the first runner. Gold climbs, Coal on reel 3 falls back, Slag ends.") });
        } else {
          await anim.wait(700);
        }
      } else if (ev.type === "win") {
        (ev.reels || [1, 2]).forEach((n) => reels[n - 1] && reels[n - 1].classList.add("win"));
        say(t("Two Gold Nuggets on reels 1 and 2 pay {amount}", { amount: pay(ev.win_x) }), "win");
        await anim.wait(400);
      } else if (ev.type === "ladder") {
        count += 1;
        reels.forEach((r) => r.classList.remove("win", "coal")); // each move marks only its own reels
        const flash = { advance: "flash-up", top_reached: "flash-up", coal_back: "flash-down", coal_safe: "flash-hold",
          slag_end: "flash-down" }[ev.move] || "";
        if (ev.move === "coal_back" || ev.move === "coal_safe") reels[2].classList.add("coal");
        else if (ev.move === "advance" || ev.move === "top_reached") reels.forEach((r) => r.classList.add("win"));
        setMarker(Number(ev.to), flash, anim.fast());
        say((MOVE_WORDS[ev.move] || (() => ev.move))(ev, money), ev.move === "slag_end" || ev.move === "coal_back" ? "bad" : "");
        await anim.wait(ev.move === "nothing" ? 150 : 550);
        if (!anim.still) reels[2].classList.remove("coal");
      } else if (ev.type === "award") {
        setMarker(Number(ev.runner), "awarded");
        rungs[Number(ev.runner)].classList.add("awarded");
        say(t("Forging Re-Spins pay {amount} after {respins}", { amount: pay(ev.win_x), respins: tn("{n} re-spin", "{n} re-spins", ev.respins) }), "big");
        await anim.wait(500);
      }
      updateRespins();
      if (anim.frame) await anim.frame(ev, step);
    }
  }

  const reelWords = (symbols) => symbols.map((s) => NAMES[s] || s).join(", ");
  function describe(ev) {
    if (ev.type === "reels") {
      return t("The reels show {symbols}.", { symbols: reelWords(ev.symbols) });
    }
    if (ev.type === "trigger") return t("Three Gold Nuggets trigger the Forging Re-Spins: the marker starts on the first runner.");
    if (ev.type === "win") return `${t("Two Gold Nuggets on reels 1 and 2 pay {amount}", { amount: pay(ev.win_x) })}.`;
    if (ev.type === "ladder") return t("Ladder: {move}.", { move: (MOVE_WORDS[ev.move] || (() => ev.move))(ev, money) });
    if (ev.type === "award") return t("The feature pays the runner reached last: {amount}, after {respins}.", { amount: pay(ev.win_x), respins: tn("{n} re-spin", "{n} re-spins", ev.respins) });
    return null;
  }

  /** Each runner's prize in money at the bet now (the bet may have changed since the last round). */
  function refreshLadder() {
    rungs.forEach((r) => { r.querySelector(".fof-runner-money").textContent = ctx.atBet ? money(r.dataset.x) : ""; });
  }

  return {
    newRound() {
      refreshLadder();
      setMarker(null);
      count = 0;
      reels.forEach((r) => r.classList.remove("win", "coal"));
      say(t("Good luck!"));
      updateRespins();
    },
    showcase() {
      refreshLadder();
      showReels(["GOLD", "BLANK", "SLAG"]);
      say(t("Three Gold Nuggets start the Forging Re-Spins"));
    },
    ...stepsRenderer(apply),
    describe,
    nextLabel(round) { return round.next_step === "respin" ? t("RE-SPIN") : t("CONTINUE"); },
    liveStatus,
    status(round) { return round && round.status === "open" ? liveStatus() : ""; },
    /** The prize the re-spins hold now (the marker's runner, a multiple of the bet), or null. */
    currentPrize(round) { return round && round.status === "open" && runner !== null ? ladder[runner] ?? null : null; },
  };
}
