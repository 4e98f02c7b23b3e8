// The "lines" genre renderer: reels and fixed paylines, a wild, scatter-triggered free spins with
// retriggers (Seven Lines, and any game that declares the presentation "lines"). Driven by events:
//   reels {window: [reel 1..n: [symbol names, top to bottom]], stops}
//   win {pay: "<count> <Symbol>", line?: 1-based line, multiplier, win_x}   (no line: a scatter pays anywhere)
//   free_spins_awarded {spins, retrigger}; cap {cap_x}
// The line table comes from the help's extra.lines (the row each line crosses on each reel, 0 top).

import { lang, locale, t, tn } from "../i18n.js";
import { play } from "../sound.js";
import { QUICK, REEL_TIMING, el, formatX, shuffled, sleep, stepsRenderer } from "../util.js";
import { addX } from "./gems.js";
import { symbolArt } from "./symbols.js";

const SVGNS = "http://www.w3.org/2000/svg";
const LINE_HUES = [48, 200, 330, 120, 20, 270, 170, 0, 90, 230, 300, 60];
const lineColour = (n) => `hsl(${LINE_HUES[(n - 1) % LINE_HUES.length]} 95% 60%)`;

/** "3 Cherry" -> {count: 3, symbol: "Cherry"}. */
export function parsePay(text) {
  const m = /^(\d+)\+?\s+(.+)$/.exec(String(text || ""));
  return m ? { count: Number(m[1]), symbol: m[2] } : { count: 0, symbol: String(text || "") };
}

/** Lobby artwork: three Sevens on a line. */
export function art() {
  return ["Cherry", "Seven", "Seven", "Seven", "Star"].map((n) => `<span class="art-symbol">${symbolArt(n)}</span>`).join("");
}

/** A symbol's picture for the help ("Star (anywhere)" draws the Star). */
export function helpArt(key) { return symbolArt(key); }

export function create(root, ctx = {}) {
  const help = ctx.help || {};
  const lines = (help.extra && help.extra.lines) || [];
  const names = Object.values(help.symbol_names || {});
  const nCols = lines.length ? lines[0].length : 5;
  const nRows = lines.length ? Math.max(...lines.flat()) + 1 : 3;
  const multiplierX = (help.extra && help.extra.free_spins_multiplier) || 1;
  // The scatter that starts the free spins: the paytable's row that pays anywhere, from its first tier.
  const pt = (help.page && help.page.paytable) || {};
  const scatterRow = (pt.rows || []).find((row) => /anywhere/i.test(row.name));
  const scatter = scatterRow ? { name: scatterRow.name.replace(/\s*\(.*\)$/, ""), count: Number((pt.tiers || ["3"])[0]) } : null;

  const spinsBox = el("div.ln-counter", { "data-testid": "ln-free-spins" });
  const multBox = el("div.ln-counter", { "data-testid": "ln-multiplier" });
  const totalBox = el("div.ln-counter", { "data-testid": "ln-feature-win" });
  const reelsBox = el("div.ln-reels", { "data-testid": "ln-board" });
  const overlay = document.createElementNS(SVGNS, "svg");
  overlay.setAttribute("class", "ln-lines");
  overlay.setAttribute("viewBox", `0 0 ${nCols * 100} ${nRows * 100}`);
  overlay.setAttribute("preserveAspectRatio", "none");
  overlay.setAttribute("aria-hidden", "true");
  const frame = el("div.ln-frame", { "data-testid": "ln-frame" }, el("div.ln-window", {}, reelsBox, overlay));
  const banner = el("div.ln-banner", { "data-testid": "ln-banner", "aria-live": "polite" });
  const winsList = el("ul.ln-wins", { "data-testid": "ln-wins", "aria-label": "Wins of this spin" });
  root.append(el("div.ln", {}, el("div.ln-top", {}, spinsBox, multBox, totalBox),
    el("div.fit", {}, frame, banner), winsList));

  // Cells addressed [reel][row], row 0 at the top.
  let cells = [];
  let reels = [];
  function build(cols, rows) {
    reels = [];
    cells = [];
    reelsBox.replaceChildren();
    reelsBox.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
    for (let c = 0; c < cols; c++) {
      const reel = el("div.ln-reel", { "data-testid": `ln-reel-${c + 1}` });
      reel.style.gridTemplateRows = `repeat(${rows}, minmax(0, 1fr))`;
      cells.push(Array.from({ length: rows }, (_, r) => {
        const cell = el("div.ln-cell", { "data-col": c, "data-row": r });
        reel.append(cell);
        return cell;
      }));
      reels.push(reel);
      reelsBox.append(reel);
    }
    frame.style.setProperty("--cols", cols);
    frame.style.setProperty("--rows", rows);
  }
  build(nCols, nRows);

  let windowNames = [];
  function showWindow(window) {
    if (window.length !== cells.length || window[0].length !== cells[0].length) build(window.length, window[0].length);
    windowNames = window;
    window.forEach((reel, c) => reel.forEach((name, r) => {
      const cell = cells[c][r];
      cell.className = "ln-cell";
      cell.dataset.symbol = name;
      cell.title = name;
      cell.innerHTML = symbolArt(name);
    }));
    reelsBox.dataset.board = window.map((reel) => reel.join(",")).join("|");
  }

  // Each reel spins its own strip: the symbols it landed lately, topped up with the game's symbols in that
  // reel's own order, so no two reels show the same blur or move in step.
  const landedOn = [];
  function stripOf(c) {
    const own = [...(landedOn[c] || []), ...shuffled(names, c + 1)].slice(0, 12);
    return el("div.ln-strip", { style: `animation-delay: -${(c * 37) % 160}ms; animation-duration: ${150 + c * 9}ms` },
      ...shuffled(own, c + 11).map((n) => el("div.ln-cell", { html: symbolArt(n) })));
  }
  function land(c, symbols) {
    landedOn[c] = [...symbols, ...(landedOn[c] || [])].slice(0, 9);
    reels[c].classList.remove("spinning", "anticipate");
    reels[c].querySelector(".ln-strip")?.remove();
    symbols.forEach((name, r) => {
      const cell = cells[c][r];
      cell.className = "ln-cell landed";
      cell.dataset.symbol = name;
      cell.title = name;
      cell.innerHTML = symbolArt(name);
    });
    reels[c].dataset.stoppedAt = String(Math.round(performance.now()));
  }

  /** The reels spin and stop left to right; with one Scatter short of the free spins, the reels still to stop
   * spin on longer, lit (anticipation). Quick spin shortens all of it, never skips it. */
  async function spinReels(window, anim) {
    if (anim.quiet || !names.length) { window.forEach((symbols, c) => { landedOn[c] = symbols.slice(); }); showWindow(window); return; }
    if (window.length !== cells.length || window[0].length !== cells[0].length) build(window.length, window[0].length);
    const scale = anim.fast() ? QUICK : 1;
    const started = performance.now();
    reels.forEach((reel, c) => { reel.classList.add("spinning"); reel.append(stripOf(c)); });
    let due = REEL_TIMING.first;
    let stars = 0;
    for (let c = 0; c < reels.length; c++) {
      const tease = !!scatter && stars >= scatter.count - 1;
      if (c > 0) due += REEL_TIMING.gap + (tease ? REEL_TIMING.tease : 0);
      if (tease && !anim.still) {
        reels[c].classList.add("anticipate");
        if (!reels[c - 1].classList.contains("anticipate")) play("tease");
      }
      // SKIP pressed mid-spin lands the rest at once (anim.pause); a replay's anim has none and sleeps.
      await (anim.pause || sleep)(Math.max(0, started + due * scale - performance.now()));
      land(c, window[c]);
      if (!anim.still) play("stop");
      if (scatter) stars += window[c].filter((n) => n === scatter.name).length;
    }
    showWindow(window);
  }

  // -- win lines ------------------------------------------------------------------------------
  const money = (x) => (ctx.atBet ? ctx.atBet(x) : `${formatX(x)} the bet`);
  /** The cells a win is made of: a line's first ``count`` reels, or every cell of a scatter. */
  function winCells(ev) {
    const { count, symbol } = parsePay(ev.pay);
    if (ev.line && lines[ev.line - 1]) return lines[ev.line - 1].slice(0, count).map((r, c) => [c, r]);
    const out = [];
    windowNames.forEach((reel, c) => reel.forEach((name, r) => { if (name === symbol) out.push([c, r]); }));
    return out;
  }
  function winWords(ev) {
    const { count, symbol } = parsePay(ev.pay);
    const mult = Number(ev.multiplier || 1) > 1 ? ` (x${ev.multiplier})` : "";
    if (!count) return t("{symbol} pays {amount}", { symbol: ev.pay, amount: money(ev.win_x) }) + mult;
    return (ev.line ? t("{count} {symbol} on line {line} pays {amount}", { count, symbol, line: ev.line, amount: money(ev.win_x) })
      : t("{count} {symbol} anywhere pays {amount}", { count, symbol, amount: money(ev.win_x) })) + mult;
  }
  function drawLine(n) {
    const rows = lines[n - 1];
    if (!rows) return;
    const pts = rows.map((r, c) => `${c * 100 + 50},${r * 100 + 50}`);
    pts.unshift(`0,${rows[0] * 100 + 50}`);
    pts.push(`${rows.length * 100},${rows[rows.length - 1] * 100 + 50}`);
    const line = document.createElementNS(SVGNS, "polyline");
    line.setAttribute("points", pts.join(" "));
    line.setAttribute("stroke", lineColour(n));
    line.setAttribute("class", "ln-line");
    line.dataset.line = String(n);
    overlay.append(line);
  }
  function clearMarks() {
    overlay.replaceChildren();
    cells.flat().forEach((cell) => cell.classList.remove("win", "dim"));
    delete reelsBox.dataset.lines;
  }
  /** Mark these wins on the reels: their lines drawn over the reels, their cells lit, the rest dimmed. */
  function markWins(wins) {
    clearMarks();
    if (!wins.length) return;
    const lit = new Set();
    for (const ev of wins) {
      if (ev.line) drawLine(ev.line);
      for (const [c, r] of winCells(ev)) lit.add(`${c},${r}`);
    }
    cells.forEach((reel, c) => reel.forEach((cell, r) => cell.classList.add(lit.has(`${c},${r}`) ? "win" : "dim")));
    reelsBox.dataset.lines = wins.filter((w) => w.line).map((w) => w.line).join(",");
  }

  // -- counters and the feature ----------------------------------------------------------------
  let awarded = 0;
  let played = 0;
  let roundX = "0"; // every win of the round so far: the feature's total, as the summary will say it
  let inFeature = false;
  let spinWins = [];
  let spinX = "0";
  const left = () => Math.max(0, awarded - played);
  function counter(box, label, value, data) {
    box.replaceChildren(el("span", { text: label }), el("strong", { text: value }));
    box.dataset.value = String(data ?? value);
  }
  function showCounters() {
    frame.classList.toggle("feature", inFeature);
    if (inFeature) {
      counter(spinsBox, t("Free spins left"), t("{n} of {total}", { n: left(), total: awarded }), left());
      counter(multBox, t("Free spin wins"), `x${multiplierX}`, multiplierX);
      counter(totalBox, t("Total win"), money(roundX), roundX);
    } else {
      counter(spinsBox, t("Lines"), String(lines.length || "—"), lines.length);
      counter(multBox, t("Free spins"), scatter ? `${scatter.count}+ ${scatters()}` : "—", 0);
      counter(totalBox, t("Feature win"), "—", "0");
    }
    if (ctx.counters) ctx.counters(inFeature ? { totalX: roundX } : {});
  }
  const liveStatus = () => (inFeature ? t("Free spins: {n} of {total} left, total win {amount}", { n: left(), total: awarded, amount: money(roundX) }) : "");
  // "Scatters", "Stars": the English plural of the scatter's name is English only; other languages keep the name.
  const scatters = () => (scatter ? (lang() === "en" ? `${scatter.name}s` : scatter.name) : t("Scatters"));
  function flash(box) { box.classList.remove("flash"); void box.offsetWidth; box.classList.add("flash"); }
  function say(text, tone = "") { banner.textContent = text; banner.className = `ln-banner ${tone}`; }
  function listWin(text) {
    let total = winsList.querySelector("li.total");
    if (!total) { total = el("li.total", { "data-testid": "ln-spin-total" }); winsList.prepend(total); }
    total.textContent = t("This spin: {amount}", { amount: money(spinX) });
    winsList.append(el("li", { text }));
  }

  async function award(ev, anim) {
    const spins = Number(ev.spins || 0);
    awarded += spins;
    const wasIn = inFeature;
    inFeature = true;
    showCounters();
    flash(spinsBox);
    const won = tn("{n} free spin", "{n} free spins", spins);
    const text = ev.retrigger || wasIn ? `+${won.toLocaleUpperCase(locale())}` : won.toLocaleUpperCase(locale());
    say(ev.retrigger ? t("Retrigger! +{spins}", { spins: won }) : t("{spins} won!", { spins: won }), "big");
    if (ctx.moment && !anim.quiet) {
      await ctx.moment({ title: text, kind: "intro",
        sub: ev.retrigger ? t("{spins} to play", { spins: tn("{n} free spin", "{n} free spins", left()) })
          : t("{symbols} start the free spins", { symbols: scatters() }),
        text: ev.retrigger ? t("The new free spins are added to those left.")
          : t("Free spin wins are multiplied by {m}. The spins play by themselves: {stop} pauses them.", { m: multiplierX, stop: t("STOP") }) });
    } else {
      await anim.wait(500);
    }
  }

  async function apply(step, anim) {
    const free = step.kind === "free_spin";
    if (free) { played += 1; inFeature = true; }
    spinWins = [];
    spinX = "0";
    winsList.replaceChildren();
    for (const ev of step.events) {
      if (ev.type === "reels") {
        clearMarks();
        showCounters();
        say(free ? t("Free spin {n} of {total}", { n: played, total: awarded }) : t("Good luck!"));
        await spinReels(ev.window, anim);
      } else if (ev.type === "win") {
        spinWins.push(ev);
        spinX = addX(spinX, ev.win_x);
        roundX = addX(roundX, ev.win_x);
        markWins([ev]);
        say(winWords(ev), "win");
        listWin(winWords(ev));
        showCounters();
        await anim.wait(650);
      } else if (ev.type === "free_spins_awarded") {
        await award(ev, anim);
      } else if (ev.type === "cap") {
        say(t("Maximum win reached: {amount}. The round ends here.", { amount: money(ev.cap_x) }), "big");
        await anim.wait(600);
      }
      if (anim.frame) await anim.frame(ev, step);
    }
    // The spin ends on every winning line at once.
    if (!anim.still) markWins(spinWins);
    if (spinWins.length > 1 && !anim.still) say(tn("{n} win pays {amount}", "{n} wins pay {amount}", spinWins.length, { amount: money(spinX) }), "win");
    else if (!spinWins.length && !anim.still && free) say(t("Free spin {n} of {total}: no win", { n: played, total: awarded }));
    showCounters();
  }

  function describe(ev, step) {
    if (ev.type === "reels") {
      return step && step.kind === "free_spin" ? t("The reels stop for the free spin.") : t("The reels stop.");
    }
    if (ev.type === "win") return `${winWords(ev)}.`;
    if (ev.type === "free_spins_awarded") {
      const spins = tn("{n} free spin", "{n} free spins", Number(ev.spins || 0));
      return ev.retrigger ? t("Retrigger: +{spins}.", { spins }) : t("{symbols} award {spins}.", { symbols: scatters(), spins });
    }
    if (ev.type === "cap") return t("The maximum win of {amount} is reached; the round ends.", { amount: money(ev.cap_x) });
    return null;
  }

  /** The board a game opens on: every symbol shown, no line won. */
  function showcase() {
    const pool = names.length ? names : ["Wild", "Star", "Seven", "Bell", "Grapes", "Lemon", "Cherry"];
    const window = Array.from({ length: nCols }, (_, c) => Array.from({ length: nRows }, (_, r) =>
      pool[(c * 2 + r * 3 + (c > 1 ? 1 : 0)) % pool.length]));
    showWindow(window);
    showCounters();
    say(`${lines.length ? `${tn("{n} line pays left to right.", "{n} lines pay left to right.", lines.length)} ` : ""}${
      scatter ? t("{n} or more {symbols} anywhere start the free spins.", { n: scatter.count, symbols: scatters() }) : ""}`);
  }

  return {
    newRound() {
      awarded = 0;
      played = 0;
      roundX = "0";
      inFeature = false;
      spinWins = [];
      winsList.replaceChildren();
      clearMarks();
      showCounters();
    },
    showcase,
    ...stepsRenderer(apply),
    describe,
    nextLabel(round) { return round.next_step === "free_spin" ? t("FREE SPIN") : t("CONTINUE"); },
    liveStatus,
    status(round) { return round && round.status === "open" ? liveStatus() : ""; },
    finish(round) {
      if (inFeature) say(t("Free spins complete: {n} played, {amount} won in all", { n: played, amount: money(round ? round.total_win_x : roundX) }), "big");
    },
  };
}
