// History: the player's rounds, and one round as a replay a player can follow (board and controls first,
// a scrubber and a jump to any step), with the audit record in words under it.

import { mountSeedPanel, showRoundFairness } from "./fair.js";
import { rendererFor } from "./games/index.js";
import { gameHelp } from "./help.js";
import { turboOn } from "./moments.js";
import { formatDate, t } from "./i18n.js";
import { $, S, api, explain, notice } from "./state.js";
import { rendererContext } from "./table.js";
import { el, formatX, parseFraction, words } from "./util.js";

function gameTitle(id) { return (S.gamesById[id] && S.gamesById[id].title) || id; }
const when = formatDate;
const modeWords = (mode) => (mode === "paid" ? "" : mode === "buy" ? t("Feature buy") : words(mode));
function statusWords(status) {
  return { open: t("Unfinished"), finished: t("Finished"), void: t("Void") }[status] || words(status);
}

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
  el("td", { "data-testid": "history-status" }, el(`span.status.${r.status}`, { text: statusWords(r.status) })));
}

export async function openHistory(token, more = false) {
  document.title = `${t("Your rounds")} · reelforge`;
  const body = $("history-rows");
  if (!more) { body.replaceChildren(); S.historyBefore = null; mountSeedPanel($("fair-panel-history"), api); }
  try {
    const page = await api.rounds(20, more ? S.historyBefore : null);
    if (token !== S.viewToken) return;
    if (!page.rounds.length && !more) body.append(el("tr", {}, el("td", { colspan: 6, text: t("No rounds yet.") })));
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

/** "Paid spin", "Free spin 3", "Re-spin 2": a step named and numbered among its kind (a kind of the game's own
 * in the words its renderer gives, ``stepNames``). */
function stepWords(round, step) {
  if (step.kind === "paid_spin" || (!step.kind && step.index === 0)) return round.mode === "paid" ? t("Paid spin") : t("Bought feature");
  const same = round.steps.filter((s) => s.kind === step.kind);
  const n = same.indexOf(step) + 1;
  if (step.kind === "respin" && same.length > 1) return t("Re-spin {n}", { n });
  if (step.kind === "free_spin" && same.length > 1) return t("Free spin {n}", { n });
  const own = rendererFor(round.game).stepNames || {};
  const name = own[step.kind] || { respin: t("Re-spin"), free_spin: t("Free spin") }[step.kind] || words(step.kind);
  return same.length > 1 ? `${name} ${n}` : name;
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
  $("replay-pos").textContent = t("Picture {n} of {total}", { n: REPLAY.index + 1, total: frames.length });
  $("replay-pos").dataset.index = String(REPLAY.index);
  $("replay-scrub").value = String(REPLAY.index);
  $("replay-jump").value = String(frame.step.index);
  const win = frame.step.win ? ` ${t("This step wins {amount} ({x} the bet).", { amount: S.money(frame.step.win), x: formatX(frame.step.win_x) })}` : "";
  $("replay-caption").replaceChildren(el("b", { text: `${stepWords(r, frame.step)}: ` }), frame.caption + win);
  $("replay-prev").disabled = REPLAY.index === 0;
  $("replay-next").disabled = REPLAY.index === frames.length - 1;
}

function stopReplay() {
  clearInterval(REPLAY.timer);
  REPLAY.timer = null;
  $("replay-play").textContent = t("Play");
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
  $("replay-play").textContent = t("Pause");
  $("replay-play").dataset.playing = "true";
  REPLAY.timer = setInterval(() => {
    if (document.body.dataset.view !== "round" || REPLAY.index >= REPLAY.frames.length - 1) { stopReplay(); return; }
    drawFrame(REPLAY.index + 1);
  }, turboOn() ? 500 : 1400);
});

function receipt(r) {
  const f = parseFraction(S.gamesById[r.game] && S.gamesById[r.game].feature_buy_price_x);
  const rows = [[t("Price"), `${S.money(r.cost)}${f ? ` (${t("{x} the total bet of {bet}", { x: formatX(S.gamesById[r.game].feature_buy_price_x), bet: S.money(r.bet) })})` : ""}`],
    [t("Total stake"), S.money(r.cost)], [t("Round"), `#${r.id}`], [t("Bought"), when(r.created_at)]];
  return [el("h3", { text: t("Feature Buy receipt") }), ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])];
}

/** The audit record in words: each step's events as the replay tells them, the numbers drawn, and the
 * whole record (JSON) to download for a complaint or an auditor. */
function auditSteps(r) {
  const probe = probeRenderer(r);
  return r.steps.map((s) => el("li.step", { "data-testid": `step-${s.index}` },
    el("div.step-head", {},
      el("strong", { text: t("Step {n}: {name}", { n: s.index + 1, name: stepWords(r, s) }) }),
      s.action ? el("span", { text: ` ${t("(you chose: {action})", { action: words(s.action) })}` }) : null,
      el("span.step-win", { text: t("win {amount} ({x})", { amount: S.money(s.win), x: formatX(s.win_x) }) })),
    el("div.draws", {}, el("b", { text: `${t("Random numbers drawn:")} ` }), (s.draws || []).join(", ")),
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
  document.title = `${t("Round replay")} · reelforge`;
  $("round-title").textContent = t("Round #{id}", { id });
  for (const box of ["verify-result", "round-resume", "round-receipt", "round-fair"]) $(box).hidden = true;
  for (const box of ["round-facts", "round-steps", "replay-stage", "replay-jump"]) $(box).replaceChildren();
  $("replay-caption").textContent = "";
  $("audit").open = false;
  $("verify").dataset.round = String(id);
  try {
    const r = await api.round(id);
    const help = await gameHelp(r.game).catch(() => ({}));
    if (token !== S.viewToken) return;
    $("round-title").textContent = `${t("Round #{id}", { id: r.id })} · ${gameTitle(r.game)}`;
    document.title = `${t("Round replay")} · ${gameTitle(r.game)}`;
    $("round-resume").hidden = r.status !== "open";
    $("round-resume").href = `#/game/${r.game}`;
    if (r.mode !== "paid") {
      $("round-receipt").replaceChildren(...receipt(r));
      $("round-receipt").hidden = false;
    }
    const total = r.status === "open" ? r.total_win : r.paid;
    const facts = [
      [t("Game"), gameTitle(r.game)], [t("Build"), r.build_version ? t("{build}, version {version}", { build: r.build, version: r.build_version }) : r.build],
      [t("Mode"), modeWords(r.mode) || t("Paid spin")],
      [t("Bet"), S.money(r.bet) + (r.bet_adjusted ? ` ${t("(asked {amount}, auto adjusted)", { amount: S.money(r.requested_bet) })}` : "")],
      [t("Stake"), S.money(r.cost)], [t("Status"), statusWords(r.status)],
      [r.status === "open" ? t("Win so far") : t("Total win"), `${S.money(total)} (${t("{x} the bet", { x: formatX(r.total_win_x) })})`],
      [t("Started"), when(r.created_at)], [t("Finished"), when(r.finished_at) || "—"],
    ];
    if (r.void_reason) facts.push([t("Void reason"), r.void_reason]);
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
  box.textContent = t("Replaying the stored draws through the rules…");
  try {
    const v = await api.verify(id);
    box.dataset.ok = String(!!v.ok);
    box.className = `verify-result ${v.ok ? "ok" : "bad"}`;
    const diffs = v.differences || [];
    box.replaceChildren(
      el("strong", { text: v.ok ? t("Verified: replaying the stored draws reproduces every step, event and payment.")
        : t("Verification FAILED: the replay differs from what was stored or paid.") }),
      el("ul", { hidden: !diffs.length }, ...diffs.map((d) => el("li", { text: d }))));
  } catch (err) {
    box.className = "verify-result bad";
    box.textContent = explain(err);
  } finally {
    $("verify").disabled = false;
  }
});

export { stopReplay };
