// The operator page: the figures of GET /api/v1/operator/overview (operator key), redrawn every few seconds.
import { el, makeMoney } from "./util.js";

const KEY = "rf.operatorKey";
const REFRESH_MS = 5000;
const SVG = "http://www.w3.org/2000/svg";
let money = makeMoney("EUR");
let timer = null;

const $ = (id) => document.getElementById(id);
const pct = (x) => (x === null || x === undefined ? "–" : `${(x * 100).toFixed(2)}%`);
const count = (n) => Number(n).toLocaleString("en");
// An RTP is never below 0: a lower limit under it (few rounds, a wide band) is shown as 0.
const limits = (r) => `${pct(Math.max(0, r.lower_limit))} – ${pct(r.upper_limit)}`;

function age(seconds) {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

const STATES = { ok: "inside", low: "ALARM: low", high: "ALARM: high", warming_up: "warming up", no_figures: "no SD figure" };
const label = (b) => `${b.game} ${b.build} v${b.build_version}${b.mode === "paid" ? "" : ` (${b.mode})`}`;

async function load() {
  const key = sessionStorage.getItem(KEY);
  const headers = key ? { "X-Operator-Key": key } : {};
  let res;
  try {
    res = await fetch("/api/v1/operator/overview", { headers, cache: "no-store" });
  } catch {
    $("status").textContent = "server unreachable; retrying";
    return;
  }
  if (res.status === 401 || res.status === 403) {
    if (key) $("key-error").textContent = "that key was refused";
    sessionStorage.removeItem(KEY);
    $("key-form").hidden = false;
    $("main").hidden = true;
    $("status").textContent = "operator key needed";
    return;
  }
  if (!res.ok) {
    $("status").textContent = `the server answered ${res.status}; retrying`;
    return;
  }
  render(await res.json());
}

function render(data) {
  money = makeMoney(data.currency);
  $("key-form").hidden = true;
  $("main").hidden = false;
  const m = data.monitor;
  $("status").textContent = `updated ${new Date(data.now * 1000).toLocaleTimeString()}`;
  $("monitor-settings").textContent = `RTP monitor: ${(m.confidence * 100).toFixed(1)}% limits (z ${m.z}), ` +
    `judged from ${count(m.min_rounds)} rounds, since ${m.since ? new Date(m.since).toLocaleString() : "the first round"}`;
  renderAlarms(data.alarms);
  renderBuilds(data.builds);
  renderCharts(data.builds);
  renderOpen(data.open_rounds);
  renderWallet(data.wallet);
  document.body.dataset.loaded = "1";
}

function renderAlarms(alarms) {
  const box = $("alarms");
  box.replaceChildren();
  box.className = `op-alarms ${alarms.length ? "loud" : "quiet"}`;
  if (!alarms.length) {
    box.append("No alarms: every monitored build's observed RTP is inside its control limits.");
    return;
  }
  box.append(el("strong", { text: `${alarms.length} RTP alarm${alarms.length > 1 ? "s" : ""}` }));
  box.append(el("ul", {}, alarms.map((a) => el("li", { "data-testid": "alarm" },
    `${label(a)}: observed RTP ${pct(a.observed_rtp)} after ${count(a.rounds)} rounds is ${a.state === "low" ? "below" : "above"} ` +
    `its limits ${limits(a)} (expected ${pct(a.expected_rtp)}), since ` +
    `${new Date(a.since * 1000).toLocaleTimeString()}`))));
}

function renderBuilds(builds) {
  $("builds-body").replaceChildren(...builds.map((b) => {
    const r = b.monitor;
    const state = r ? r.state : "warming_up";
    return el(`tr${r && r.alarm ? ".alarm" : ""}`, { "data-testid": "build-row", "data-state": state },
      el("td", { text: b.game }), el("td", { text: `${b.build} v${b.build_version}` }), el("td", { text: b.mode }),
      el("td.num", { text: count(b.rounds_started) }), el("td.num", { text: count(b.rounds_open) }),
      el("td.num", { text: count(b.rounds_voided) }), el("td.num", { text: count(b.rounds_completed_on_expiry) }),
      el("td.num", { text: money(b.stakes) }), el("td.num", { text: money(b.wins) }),
      el("td.num", { text: money(b.ggr), "data-testid": "ggr" }),
      el("td.num", { text: pct(r ? r.observed_rtp : b.rtp_all_time) }),
      el("td.num", { text: r && r.lower_limit !== null ? `${limits(r)} (${pct(r.expected_rtp)})` : "–" }),
      el("td", {}, el(`span.badge.${state}`, { text: STATES[state] || state })));
  }));
}

function renderCharts(builds) {
  $("charts").replaceChildren(...builds.filter((b) => b.history.length).map((b) => {
    const r = b.monitor;
    const box = el(`div.chart${r && r.alarm ? ".alarm" : ""}`, { "data-testid": "chart" },
      el("h3", { text: label(b) }),
      el("div.sub", { text: r ? `${count(r.rounds)} rounds: observed ${pct(r.observed_rtp)}, expected ` +
        `${pct(r.expected_rtp)}, ${STATES[r.state] || r.state}` : "" }));
    box.append(chart(b.history, r ? r.expected_rtp : null));
    return box;
  }));
}

function node(name, attrs) {
  const n = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
}

/** Observed RTP over time with its control band (shaded) and the expected RTP (dashed). */
function chart(points, expected) {
  const W = 400, H = 170, L = 44, R = 8, T = 8, B = 22;
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "observed RTP and its control band" });
  const obs = points.map((p) => p.observed);
  const centre = expected ?? obs[obs.length - 1];
  // The band is very wide over the first rounds: the scale follows the observed RTP (and the expected one),
  // with the band cut at the plot's edge.
  const spread = Math.max(0.1, ...obs.map((o) => Math.abs(o - centre) * 1.6));
  const lo = Math.max(0, centre - spread), hi = centre + spread;
  const t0 = points[0].t, t1 = points[points.length - 1].t;
  const x = (t) => (t1 === t0 ? (L + W - R) / 2 : L + ((t - t0) / (t1 - t0)) * (W - L - R));
  const y = (v) => T + (1 - (Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * (H - T - B);
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    svg.append(node("line", { class: "axis", x1: L, x2: W - R, y1: y(v), y2: y(v), opacity: i ? 0.35 : 1 }));
    const text = node("text", { class: "tick", x: L - 4, y: y(v) + 3, "text-anchor": "end" });
    text.textContent = `${(v * 100).toFixed(0)}%`;
    svg.append(text);
  }
  for (const [t, anchor] of [[t0, "start"], [t1, "end"]]) {
    const text = node("text", { class: "tick", x: t1 === t0 ? x(t) : x(t) + (anchor === "start" ? 0 : 0), y: H - 6, "text-anchor": t1 === t0 ? "middle" : anchor });
    text.textContent = new Date(t * 1000).toLocaleTimeString();
    svg.append(text);
  }
  const banded = points.filter((p) => p.lower !== null && p.upper !== null);
  if (banded.length > 1) {
    const top = banded.map((p) => `${x(p.t)},${y(p.upper)}`);
    const bottom = banded.slice().reverse().map((p) => `${x(p.t)},${y(p.lower)}`);
    svg.append(node("polygon", { class: "band", points: [...top, ...bottom].join(" ") }));
    svg.append(node("polyline", { class: "limit", points: top.join(" ") }));
    svg.append(node("polyline", { class: "limit", points: banded.map((p) => `${x(p.t)},${y(p.lower)}`).join(" ") }));
  }
  if (expected !== null) svg.append(node("line", { class: "expected", x1: L, x2: W - R, y1: y(expected), y2: y(expected) }));
  svg.append(node("polyline", { class: "observed", points: points.map((p) => `${x(p.t)},${y(p.observed)}`).join(" ") }));
  const last = points[points.length - 1];
  svg.append(node("circle", { class: "dot", cx: x(last.t), cy: y(last.observed), r: 3 }));
  return svg;
}

function renderOpen(open) {
  const games = Object.entries(open.per_game);
  $("open-per-game").replaceChildren(games.length
    ? el("div.per-game", {}, games.map(([g, v]) => el("span", {}, `${g}: `, el("strong", { text: count(v.count) }),
      ` open, oldest ${age(v.oldest_age_seconds)}`)))
    : el("div.per-game", { text: "No round is open." }));
  $("open-body").replaceChildren(...open.oldest.map((r) => el("tr", { "data-testid": "open-round" },
    el("td", { text: r.round }), el("td", { text: r.player }), el("td", { text: `${r.game} ${r.build}` }),
    el("td.num", { text: money(r.bet) }), el("td.num", { text: age(r.age_seconds) }))));
}

function renderWallet(wallet) {
  const body = $("wallet-body");
  if (!wallet) {
    body.replaceChildren(el("p", { text: "Transfer wallet: this server holds the balances; there are no wallet " +
      "calls to watch. A seamless wallet's health (call latency and failures, outbox depth) shows here." }));
    return;
  }
  body.replaceChildren(el("dl.kv", {}, Object.entries(wallet).flatMap(([k, v]) =>
    [el("dt", { text: k.replaceAll("_", " ") }), el("dd", { text: typeof v === "object" ? JSON.stringify(v) : String(v) })])));
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY, $("key").value);
  $("key").value = "";
  $("key-error").textContent = "";
  load();
});

load();
timer = setInterval(load, REFRESH_MS);
window.addEventListener("beforeunload", () => clearInterval(timer));
