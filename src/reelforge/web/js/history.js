// History: the player's rounds, and one round as a replay a player can follow (board and controls first,
// a scrubber and a jump to any step), with the audit record in words under it.

import { mountSeedPanel, showRoundFairness } from "./fair.js";
import { rendererFor } from "./games/index.js";
import { gameHelp } from "./help.js";
import { turboOn } from "./moments.js";
import { $, S, api, explain, notice } from "./state.js";
import { rendererContext } from "./table.js";
import { el, formatX, parseFraction, words } from "./util.js";

function gameTitle(id) { return (S.gamesById[id] && S.gamesById[id].title) || id; }
function when(iso) { return iso ? new Date(iso).toLocaleString() : ""; }
const modeWords = (mode) => (mode === "paid" ? "" : mode === "buy" ? "Feature buy" : words(mode));

function historyRow(r) {
  const open = () => { location.hash = `#/round/${r.id}`; };
  return el("tr", { "data-round": r.id, "data-testid": `history-row-${r.id}`, tabindex: 0,
    onclick: open, onkeydown: (e) => { if (e.key === "Enter") open(); } },
  el("td", {}, el("a", { href: `#/round/${r.id}`, text: `#${r.id}` }),
    el("span.sub", { text: gameTitle(r.game) }), el("span.sub", { text: when(r.created_at) })),
  el("td.wide", { text: gameTitle(r.game) }),
  el("td.wide", { text: when(r.created_at) }),
  el("td", { "data-testid": "history-bet" }, S.money(r.cost ?? r.bet), modeWords(r.mode) ? el("span.sub.always", { text: modeWords(r.mode) }) : null),
  el("td", { "data-testid": "history-win", text: r.status === "open" ? "—" : S.money(r.paid ?? r.total_win ?? 0) }),
  el("td", { "data-testid": "history-status" }, el(`span.status.${r.status}`, { text: words(r.status === "open" ? "unfinished" : r.status) })));
}

export async function openHistory(token, more = false) {
  document.title = "Your rounds · reelforge";
  const body = $("history-rows");
  if (!more) { body.replaceChildren(); S.historyBefore = null; mountSeedPanel($("fair-panel-history"), api); }
  try {
    const page = await api.rounds(20, more ? S.historyBefore : null);
    if (token !== S.viewToken) return;
    if (!page.rounds.length && !more) body.append(el("tr", {}, el("td", { colspan: 6, text: "No rounds yet." })));
    body.append(...page.rounds.map(historyRow));
    S.historyBefore = page.next_before;
    $("history-more").hidden = !page.next_before;
  } catch (err) {
    notice(explain(err));
  }
}
$("history-more").addEventListener("click", () => openHistory(S.viewToken, true));

// -- the replay ----------------------------------------------------------------------------------------------------------
const REPLAY = { round: null, help: null, frames: [], index: 0, timer: null };
const STOP = Symbol("replay frame drawn");

function probeRenderer(r) {
  return rendererFor(r.game).create(el("div"), rendererContext(S.gamesById[r.game], REPLAY.help, () => r.bet));
}

/** Every picture of the round in order: one per event that draws something (a board, a cascade, a move). */
function replayFrames(r) {
  const probe = probeRenderer(r);
  const frames = [];
  let order = 0;
  r.steps.forEach((step) => step.events.forEach((ev) => {
    const caption = probe.describe ? probe.describe(ev, step) : null;
    if (caption) frames.push({ order, step, caption });
    order += 1;
  }));
  // A picture shows the events after it up to the next picture (counters, remaining spins) too.
  frames.forEach((f, i) => { f.until = i + 1 < frames.length ? frames[i + 1].order - 1 : order - 1; });
  return frames;
}

/** "Paid spin", "Free spin 3", "Re-spin 2", "GEMBOX": a step named and numbered among its kind. */
function stepWords(round, step) {
  if (step.kind === "paid_spin" || (!step.kind && step.index === 0)) return round.mode === "paid" ? "Paid spin" : "Bought feature";
  const same = round.steps.filter((s) => s.kind === step.kind);
  const name = { respin: "Re-spin", free_spin: "Free spin", gembox: "GEMBOX" }[step.kind] || words(step.kind);
  return same.length > 1 ? `${name} ${same.indexOf(step) + 1}` : name;
}

async function drawFrame(i) {
  const r = REPLAY.round;
  const frames = REPLAY.frames;
  if (!r || !frames.length) return;
  REPLAY.index = Math.max(0, Math.min(frames.length - 1, i));
  const frame = frames[REPLAY.index];
  const inner = el("div.stage-inner");
  $("replay-stage").replaceChildren(inner);
  const renderer = rendererFor(r.game).create(inner, rendererContext(S.gamesById[r.game], REPLAY.help, () => r.bet));
  renderer.newRound({ ...r, state: {} });
  let n = 0;
  // Replay the stored events up to this picture with nothing animated; each picture draws its own marks.
  const still = { fast: () => true, wait: async () => {}, still: true, quiet: true,
    frame: async () => { if (n++ === frame.until) throw STOP; } };
  try {
    for (const step of r.steps) await renderer.apply(step, still);
  } catch (e) {
    if (e !== STOP) throw e;
  }
  $("replay-pos").textContent = `Picture ${REPLAY.index + 1} of ${frames.length}`;
  $("replay-pos").dataset.index = String(REPLAY.index);
  $("replay-scrub").value = String(REPLAY.index);
  $("replay-jump").value = String(frame.step.index);
  const win = frame.step.win ? ` This step wins ${S.money(frame.step.win)} (${formatX(frame.step.win_x)} the bet).` : "";
  $("replay-caption").replaceChildren(el("b", { text: `${stepWords(r, frame.step)}: ` }), frame.caption + win);
  $("replay-prev").disabled = REPLAY.index === 0;
  $("replay-next").disabled = REPLAY.index === frames.length - 1;
}

function stopReplay() {
  clearInterval(REPLAY.timer);
  REPLAY.timer = null;
  $("replay-play").textContent = "Play";
  $("replay-play").dataset.playing = "false";
}

$("replay-prev").addEventListener("click", () => { stopReplay(); drawFrame(REPLAY.index - 1); });
$("replay-next").addEventListener("click", () => { stopReplay(); drawFrame(REPLAY.index + 1); });
$("replay-scrub").addEventListener("input", () => { stopReplay(); drawFrame(Number($("replay-scrub").value)); });
$("replay-jump").addEventListener("change", () => {
  stopReplay();
  const step = Number($("replay-jump").value);
  drawFrame(Math.max(0, REPLAY.frames.findIndex((f) => f.step.index === step)));
});
$("replay-play").addEventListener("click", () => {
  if (REPLAY.timer) { stopReplay(); return; }
  if (REPLAY.index >= REPLAY.frames.length - 1) drawFrame(0);
  $("replay-play").textContent = "Pause";
  $("replay-play").dataset.playing = "true";
  REPLAY.timer = setInterval(() => {
    if (document.body.dataset.view !== "round" || REPLAY.index >= REPLAY.frames.length - 1) { stopReplay(); return; }
    drawFrame(REPLAY.index + 1);
  }, turboOn() ? 500 : 1400);
});

function receipt(r) {
  const f = parseFraction(S.gamesById[r.game] && S.gamesById[r.game].feature_buy_price_x);
  const rows = [["Price", `${S.money(r.cost)}${f ? ` (${formatX(S.gamesById[r.game].feature_buy_price_x)} the total bet of ${S.money(r.bet)})` : ""}`],
    ["Total stake", S.money(r.cost)], ["Round", `#${r.id}`], ["Bought", when(r.created_at)]];
  return [el("h3", { text: "Feature Buy receipt" }), ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])];
}

/** The audit record in words: each step's events as the replay tells them, the numbers drawn, and the
 * whole record (JSON) to download for a complaint or an auditor. */
function auditSteps(r) {
  const probe = probeRenderer(r);
  return r.steps.map((s) => el("li.step", { "data-testid": `step-${s.index}` },
    el("div.step-head", {},
      el("strong", { text: `Step ${s.index + 1}: ${stepWords(r, s)}` }),
      s.action ? el("span", { text: ` (you chose: ${words(s.action)})` }) : null,
      el("span.step-win", { text: `win ${S.money(s.win)} (${formatX(s.win_x)})` })),
    el("div.draws", {}, el("b", { text: "Random numbers drawn: " }), (s.draws || []).join(", ")),
    el("ol.events", {}, ...s.events.map((ev) => el("li.event", { "data-type": ev.type },
      (probe.describe && probe.describe(ev, s)) || words(ev.type))))));
}

function download(r) {
  const blob = new Blob([JSON.stringify(r, null, 2)], { type: "application/json" });
  const a = el("a", { href: URL.createObjectURL(blob), download: `round-${r.id}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export async function openRound(id, token) {
  stopReplay();
  REPLAY.round = null;
  document.title = "Round replay · reelforge";
  $("round-title").textContent = `Round #${id}`;
  for (const box of ["verify-result", "round-resume", "round-receipt", "round-fair"]) $(box).hidden = true;
  for (const box of ["round-facts", "round-steps", "replay-stage", "replay-jump"]) $(box).replaceChildren();
  $("replay-caption").textContent = "";
  $("audit").open = false;
  $("verify").dataset.round = String(id);
  try {
    const r = await api.round(id);
    const help = await gameHelp(r.game).catch(() => ({}));
    if (token !== S.viewToken) return;
    $("round-title").textContent = `Round #${r.id} · ${gameTitle(r.game)}`;
    document.title = `Round replay · ${gameTitle(r.game)}`;
    $("round-resume").hidden = r.status !== "open";
    $("round-resume").href = `#/game/${r.game}`;
    if (r.mode !== "paid") {
      $("round-receipt").replaceChildren(...receipt(r));
      $("round-receipt").hidden = false;
    }
    const total = r.status === "open" ? r.total_win : r.paid;
    const facts = [
      ["Game", gameTitle(r.game)], ["Build", r.build_version ? `${r.build}, version ${r.build_version}` : r.build],
      ["Mode", modeWords(r.mode) || "Paid spin"],
      ["Bet", S.money(r.bet) + (r.bet_adjusted ? ` (asked ${S.money(r.requested_bet)}, auto adjusted)` : "")],
      ["Stake", S.money(r.cost)], ["Status", words(r.status === "open" ? "unfinished" : r.status)],
      [r.status === "open" ? "Win so far" : "Total win", `${S.money(total)} (${formatX(r.total_win_x)} the bet)`],
      ["Started", when(r.created_at)], ["Finished", when(r.finished_at) || "—"],
    ];
    if (r.void_reason) facts.push(["Void reason", r.void_reason]);
    $("round-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
    showRoundFairness($("round-fair"), r); // provably fair: seeds, nonce, the browser's verification
    REPLAY.round = r;
    REPLAY.help = help;
    $("round-steps").replaceChildren(...auditSteps(r));
    $("audit-download").onclick = () => download(r);
    REPLAY.frames = replayFrames(r);
    $("replay").hidden = !REPLAY.frames.length;
    $("replay-scrub").max = String(Math.max(0, REPLAY.frames.length - 1));
    $("replay-jump").replaceChildren(...r.steps.filter((s) => REPLAY.frames.some((f) => f.step === s))
      .map((s) => el("option", { value: String(s.index), text: stepWords(r, s) })));
    $("replay-jump").hidden = r.steps.length < 2;
    await drawFrame(0);
  } catch (err) {
    notice(explain(err));
  }
}

$("verify").addEventListener("click", async () => {
  const id = Number($("verify").dataset.round);
  const box = $("verify-result");
  $("verify").disabled = true;
  box.hidden = false;
  box.className = "verify-result";
  box.textContent = "Replaying the stored draws through the rules…";
  try {
    const v = await api.verify(id);
    box.dataset.ok = String(!!v.ok);
    box.className = `verify-result ${v.ok ? "ok" : "bad"}`;
    const diffs = v.differences || [];
    box.replaceChildren(
      el("strong", { text: v.ok ? "Verified: replaying the stored draws reproduces every step, event and payment."
        : "Verification FAILED: the replay differs from what was stored or paid." }),
      el("ul", { hidden: !diffs.length }, ...diffs.map((d) => el("li", { text: d }))));
  } catch (err) {
    box.className = "verify-result bad";
    box.textContent = explain(err);
  } finally {
    $("verify").disabled = false;
  }
});

export { stopReplay };
