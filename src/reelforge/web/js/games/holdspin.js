// The "hold_and_respin" genre renderer: a board of cells that show a blank, a symbol or a coin with
// its value; coins stick through the respins, each new coin resets the respins, a full board wins the
// Grand (Golden Vault, and any game that declares the presentation "hold_and_respin"). Driven by events:
//   board {board: [reel 1..n: [cell, top to bottom]], landed?, respins?}   a cell: "" (blank), a symbol
//        name ("Ruby") or a coin's value as a multiple of the total bet ("2.5x")
//   win {pay: "<count> <Symbol>" | "Coins collected" | "Grand (full board)", win_x}
//   hold_and_respin {coins, respins}; cap {cap_x}
// The respins' reset value comes from the help's extra.respins, the Grand from extra.grand_x.

import { t, tn } from "../i18n.js";
import { play } from "../sound.js";
import { QUICK, el, formatX, landed, stepsRenderer } from "../util.js";
import { DROP, addX, teaseColumn } from "./gems.js";
import { parsePay } from "./lines.js";
import { coinArt, symbolArt, vaultArt } from "./symbols.js";

/** A coin cell's value as an exact multiple of the bet ("2.5x" -> "5/2"), or null for another cell. */
export function coinValue(cell) {
  const m = /^(\d+)(?:\.(\d+))?x$/.exec(String(cell || ""));
  if (!m) return null;
  const frac = m[2] || "";
  return frac ? `${Number(m[1] + frac)}/${10 ** frac.length}` : m[1];
}

/** Lobby artwork: the vault between coins. */
export function art() {
  return `<span class="art-symbol">${coinArt()}</span><span class="art-symbol hr-art-vault">${vaultArt()}</span>` +
    `<span class="art-symbol">${coinArt()}</span>`;
}

/** A symbol's picture for the help. */
export function helpArt(key) { return /coin/i.test(key) ? coinArt() : symbolArt(key); }

export function create(root, ctx = {}) {
  const extra = (ctx.help && ctx.help.extra) || {};
  const resetTo = Number(extra.respins || 3);
  const money = (x) => (ctx.atBet ? ctx.atBet(x) : `${formatX(x)} the bet`);

  const respinsBox = el("div.hr-counter.hr-respins", { "data-testid": "hr-respins" });
  const coinsBox = el("div.hr-counter", { "data-testid": "hr-coins" });
  const totalBox = el("div.hr-counter", { "data-testid": "hr-collected" });
  const grid = el("div.hr-grid", { "data-testid": "hr-board" });
  const frame = el("div.hr-frame", { "data-testid": "hr-frame" }, grid);
  const banner = el("div.hr-banner", { "data-testid": "hr-banner", "aria-live": "polite" });
  const winsList = el("ul.hr-wins", { "data-testid": "hr-wins", "aria-label": "Wins of this spin" });
  root.append(el("div.hr", {}, el("div.hr-top", {}, respinsBox, coinsBox, totalBox),
    el("div.fit", {}, frame, banner), winsList));

  let cells = [];
  function build(cols, rows) {
    grid.replaceChildren();
    grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
    cells = Array.from({ length: cols }, () => []);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const cell = el("div.hr-cell", { "data-col": c, "data-row": r });
        cells[c][r] = cell;
        grid.append(cell);
      }
    }
    frame.style.setProperty("--cols", cols);
    frame.style.setProperty("--rows", rows);
  }
  build(5, 3);

  let board = [];
  let inFeature = false;
  let respins = 0;
  let collectedX = "0";
  let coins = 0;

  /** Draw one cell; ``held`` marks a coin kept from before, ``landed`` one that just arrived. */
  function drawCell(cell, content, { held = false, landed = false, drop = false } = {}) {
    const value = coinValue(content);
    cell.className = `hr-cell${value ? " coin" : content ? " symbol" : " blank"}${held ? " held" : ""}${landed ? " landed" : ""}${drop ? " drop" : ""}`;
    cell.dataset.cell = content;
    delete cell.dataset.value;
    if (value) {
      cell.dataset.value = value;
      cell.title = t("Coin: {amount} ({x} the bet)", { amount: money(value), x: formatX(value) });
      cell.replaceChildren(el("span.hr-coin", { html: coinArt() }),
        el(`span.hr-value${money(value).length > 6 ? ".long" : ""}`, {}, el("b", { text: money(value) }), el("small", { text: formatX(value) })));
    } else if (content) {
      cell.title = content;
      cell.replaceChildren(el("span.hr-symbol", { html: symbolArt(content) }));
    } else {
      cell.title = inFeature ? "Empty: spins again" : "";
      cell.replaceChildren();
    }
  }

  /** Draw a board; ``drop``: it falls in column by column, left to right, the columns after a near trigger
   * (one coin short of Hold and Respin) later and lit. */
  function showBoard(next, { respin = false, drop = false, quick = false } = {}) {
    if (next.length !== cells.length || next[0].length !== cells[0].length) build(next.length, next[0].length);
    const teaseFrom = drop ? teaseColumn(next, (content) => !!coinValue(content), Number(extra.trigger || 6)) : null;
    next.forEach((reel, c) => reel.forEach((content, r) => {
      const had = board[c] && coinValue(board[c][r]);
      drawCell(cells[c][r], content, { held: respin && !!had, landed: respin && !had && !!coinValue(content), drop });
      const tease = teaseFrom !== null && c >= teaseFrom;
      cells[c][r].classList.toggle("tease", tease);
      const ms = c * Math.round(DROP.spread / Math.max(1, next.length - 1)) + r * DROP.row + (tease ? (c - teaseFrom + 1) * DROP.tease : 0);
      cells[c][r].style.animationDelay = drop ? `${Math.round(ms * (quick ? QUICK : 1))}ms` : "";
    }));
    if (teaseFrom !== null) play("tease");
    board = next;
    grid.dataset.board = next.map((reel) => reel.join(",")).join("|");
    coins = next.flat().filter(coinValue).length;
    collectedX = next.flat().map(coinValue).filter(Boolean).reduce((a, b) => addX(a, b), "0");
  }

  function counter(box, label, value, data) {
    box.replaceChildren(el("span", { text: label }), value instanceof Node ? value : el("strong", { text: value }));
    box.dataset.value = String(data);
  }
  function showCounters() {
    frame.classList.toggle("feature", inFeature);
    const total = cells.length * (cells[0] || []).length;
    if (inFeature) {
      const pips = el("strong.hr-pips", { "aria-label": tn("{n} respin left", "{n} respins left", respins) },
        ...Array.from({ length: resetTo }, (_, i) => el(`i${i < respins ? ".on" : ""}`)), el("em", { text: String(respins) }));
      counter(respinsBox, t("Respins"), pips, respins);
      counter(coinsBox, t("Coins"), t("{n} of {total}", { n: coins, total }), coins);
      counter(totalBox, t("Collected"), money(collectedX), collectedX);
    } else {
      counter(respinsBox, t("Hold and Respin"), t("{n}+ coins", { n: extra.trigger || 6 }), 0);
      counter(coinsBox, t("Coins"), String(coins), coins);
      counter(totalBox, t("Grand"), extra.grand_x ? money(extra.grand_x) : t("Full board"), extra.grand_x || "");
    }
    if (ctx.counters) ctx.counters(inFeature ? { prizeX: collectedX } : {});
  }
  const liveStatus = () => (inFeature
    ? t("Hold and Respin: {respins}, {coins} worth {amount}", { respins: tn("{n} respin left", "{n} respins left", respins),
      coins: tn("{n} coin", "{n} coins", coins), amount: money(collectedX) }) : "");
  function flash(box) { box.classList.remove("flash"); void box.offsetWidth; box.classList.add("flash"); }
  function say(text, tone = "") { banner.textContent = text; banner.className = `hr-banner ${tone}`; }
  function winWords(ev) {
    const { count, symbol } = parsePay(ev.pay);
    if (count) return t("{count} {symbol} anywhere pays {amount}", { count: ev.pay.split(" ")[0], symbol, amount: money(ev.win_x) });
    if (/grand/i.test(ev.pay)) return t("GRAND! A full board pays {amount}", { amount: money(ev.win_x) });
    if (/coin/i.test(ev.pay)) return tn("{n} coin collected pays {amount}", "{n} coins collected pay {amount}", coins, { amount: money(ev.win_x) });
    return t("{symbol} pays {amount}", { symbol: ev.pay, amount: money(ev.win_x) });
  }
  function markGems(symbol) {
    cells.flat().forEach((cell) => cell.classList.toggle("win", cell.dataset.cell === symbol));
  }

  async function apply(step, anim) {
    const respin = step.kind === "respin";
    winsList.replaceChildren();
    for (const ev of step.events) {
      if (ev.type === "board") {
        if (respin) {
          respins = Number(ev.respins ?? respins);
          if (!anim.quiet) { grid.classList.add("spinning"); await anim.wait(700); grid.classList.remove("spinning"); }
        }
        showBoard(ev.board, { respin, drop: !respin && !anim.quiet && !anim.still, quick: anim.fast() });
        await landed(anim, grid);
        if (respin && coins === cells.length * cells[0].length) {
          say(t("Every cell holds a coin: the board is full!"), "big");
        } else if (respin && ev.landed) {
          flash(respinsBox);
          say(tn("{n} new coin! The respins reset to {reset}", "{n} new coins! The respins reset to {reset}", ev.landed, { reset: resetTo }), "win");
        } else if (respin) {
          say(respins ? t("No new coin: {respins}", { respins: tn("{n} respin left", "{n} respins left", respins) })
            : t("No new coin: the last respin is played"), respins ? "" : "bad");
        } else {
          say(coins ? tn("{n} coin on the board", "{n} coins on the board", coins) : t("Good luck!"));
        }
        showCounters();
        await anim.wait(respin ? 380 : 500);
      } else if (ev.type === "win") {
        const { count, symbol } = parsePay(ev.pay);
        if (count) markGems(symbol);
        if (/coin/i.test(ev.pay)) cells.flat().forEach((cell) => cell.classList.toggle("win", !!cell.dataset.value));
        say(winWords(ev), /grand/i.test(ev.pay) ? "big" : "win");
        winsList.append(el("li", { text: winWords(ev) }));
        if (/grand/i.test(ev.pay) && ctx.moment && !anim.quiet) {
          frame.classList.add("grand");
          await ctx.moment({ title: t("GRAND!"), kind: "intro", amount: money(ev.win_x), sub: t("Every cell holds a coin"),
            text: t("A full board wins the Grand: {x} your bet, added to the coins.", { x: formatX(ev.win_x) }) });
        } else {
          if (/grand/i.test(ev.pay)) frame.classList.add("grand");
          await anim.wait(600);
        }
      } else if (ev.type === "hold_and_respin") {
        inFeature = true;
        respins = Number(ev.respins || resetTo);
        cells.flat().forEach((cell) => { if (cell.dataset.value) cell.classList.add("held"); else drawCell(cell, ""); });
        board = board.map((reel) => reel.map((content) => (coinValue(content) ? content : "")));
        showCounters();
        say(t("{coins}: Hold and Respin with {respins}!", { coins: tn("{n} coin", "{n} coins", ev.coins), respins: tn("{n} respin", "{n} respins", respins) }), "big");
        if (ctx.moment && !anim.quiet) {
          await ctx.moment({ title: t("HOLD AND RESPIN"), kind: "intro", amount: money(collectedX),
            sub: `${tn("{n} coin held", "{n} coins held", ev.coins)} · ${tn("{n} respin", "{n} respins", respins)}`,
            text: t("The coins stay. Every new coin stays too and resets the respins to {reset}. Fill the board for the Grand.", { reset: resetTo }) });
        } else {
          await anim.wait(600);
        }
      } else if (ev.type === "cap") {
        say(t("Maximum win reached: {amount}. The round ends here.", { amount: money(ev.cap_x) }), "big");
        await anim.wait(600);
      }
      if (anim.frame) await anim.frame(ev, step);
    }
  }

  function describe(ev, step) {
    if (ev.type === "board") {
      const n = ev.board.flat().filter(coinValue).length;
      if (!step || step.kind !== "respin") return tn("The board shows {n} coin.", "The board shows {n} coins.", n);
      const held = tn("{n} coin held", "{n} coins held", n);
      return ev.landed ? tn("{n} new coin lands: {held}, the respins reset to {reset}.", "{n} new coins land: {held}, the respins reset to {reset}.", ev.landed, { held, reset: ev.respins })
        : t("No new coin: {held}, {respins}.", { held, respins: tn("{n} respin left", "{n} respins left", ev.respins) });
    }
    if (ev.type === "win") return `${winWords(ev)}.`;
    if (ev.type === "hold_and_respin") return t("{coins} start Hold and Respin with {respins}.", { coins: tn("{n} coin", "{n} coins", ev.coins), respins: tn("{n} respin", "{n} respins", ev.respins) });
    if (ev.type === "cap") return t("The maximum win of {amount} is reached; the round ends.", { amount: money(ev.cap_x) });
    return null;
  }

  function showcase() {
    const gems = Object.values((ctx.help && ctx.help.symbol_names) || {});
    // A board of the paid game a few coins short of the feature.
    const pool = ["2x", gems[0] || "", "", gems[2] || "", gems[1] || "", "5x", "", gems[2] || "", "1x", ""];
    showBoard(Array.from({ length: 5 }, (_, c) => Array.from({ length: 3 }, (_, r) => pool[(c * 3 + r * 4) % pool.length])));
    showCounters();
    say(t("Land {n} or more coins to start Hold and Respin. Fill the board for the Grand.", { n: extra.trigger || 6 }));
  }

  return {
    newRound() {
      inFeature = false;
      respins = 0;
      board = [];
      frame.classList.remove("grand");
      winsList.replaceChildren();
      showCounters();
    },
    showcase,
    ...stepsRenderer(apply),
    describe,
    nextLabel(round) { return round.next_step === "respin" ? t("RESPIN") : t("CONTINUE"); },
    liveStatus,
    status(round) { return round && round.status === "open" ? liveStatus() : ""; },
    /** The coins on the board are what the feature holds now (a multiple of the bet). */
    currentPrize(round) { return round && round.status === "open" && inFeature ? collectedX : null; },
    finish() {
      const collected = tn("{n} coin collected", "{n} coins collected", coins);
      if (inFeature) say(frame.classList.contains("grand") ? t("Hold and Respin complete: {collected} and the Grand", { collected })
        : t("Hold and Respin complete: {collected}", { collected }), "big");
    },
  };
}
