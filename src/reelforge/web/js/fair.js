// Provably fair rounds in the browser (docs/FAIRNESS.md): the player's seed pair (the SHA-256 of the
// secret server seed, shown before any bet; the client seed; rotation, which reveals the server seed)
// and a verifier that recomputes a round's draws from the revealed server seed, the client seed and the
// nonce with Web Crypto, without trusting the server:
//   block i = HMAC-SHA256(key = server seed bytes, "<client seed>:<nonce>:<i>"), eight big-endian 32-bit
//   words per block, used in order; a word x maps to [0, n) as floor(x * n / 2^32) with Lemire's
//   rejection step (the server's draws.lemire_map), so no result is more likely than another.
// Plain ES module, no dependency. Hooks: mountSeedPanel(container, api) and showRoundFairness(container,
// round); nothing else of the client depends on it.

import { lang, t, tn } from "./i18n.js";
import { el } from "./util.js";

const TWO32 = 1n << 32n;
const encoder = new TextEncoder();

const hexToBytes = (hex) => new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
const bytesToHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** SHA-256 (hex) of a server seed's 32 bytes: the commitment the player saw before the round. */
export async function commitmentOf(serverSeedHex) {
  return bytesToHex(await crypto.subtle.digest("SHA-256", hexToBytes(serverSeedHex)));
}

/** Lemire's map of a raw 32-bit word to [0, n): [value, accepted]. */
export function lemireMap(x, n) {
  const m = BigInt(x) * BigInt(n);
  const low = m & 0xFFFFFFFFn;
  if (low < BigInt(n) && low < (TWO32 - BigInt(n)) % BigInt(n)) return [0, false];
  return [Number(m >> 32n), true];
}

/** The draws of round `nonce` of a seed pair for the given ranges, in order. */
export async function fairDraws(serverSeedHex, clientSeed, nonce, ranges) {
  const key = await crypto.subtle.importKey("raw", hexToBytes(serverSeedHex), { name: "HMAC", hash: "SHA-256" },
    false, ["sign"]);
  let words = [];
  let block = 0;
  let pos = 0;
  const next = async () => {
    if (pos >= words.length) {
      const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${clientSeed}:${nonce}:${block}`));
      const view = new DataView(mac);
      words = Array.from({ length: 8 }, (_, i) => view.getUint32(i * 4, false));
      block += 1;
      pos = 0;
    }
    return words[pos++];
  };
  const out = [];
  for (const n of ranges) {
    for (;;) {
      const [value, ok] = lemireMap(await next(), n);
      if (ok) { out.push(value); break; }
    }
  }
  return out;
}

/**
 * Verify a round's record (GET /rounds/{id}) from its seeds: the revealed server seed against the
 * commitment, then every recorded draw against the draw recomputed here.
 * @returns {{ok: boolean|null, reason?: string, steps?: number, draws?: number, differences?: string[]}}
 *   ok null: nothing to verify yet (a plain CSPRNG round, or the server seed still secret).
 */
export async function verifyRound(round) {
  const fair = round.fair;
  if (!fair) return { ok: null, reason: t("This round was drawn from the server's plain random-number generator, not from a seed pair.") };
  if (!fair.server_seed) {
    return { ok: null, reason: t("The server seed of this round is still secret. Rotate your seed pair (when no round is unfinished) to reveal it, then verify.") };
  }
  if (!(globalThis.crypto && crypto.subtle)) {
    return { ok: null, reason: t("This browser offers no Web Crypto here (it needs a secure https page); use the offline command {command} on the exported round.", { command: "`reelforge verify-fair`" }) };
  }
  const differences = [];
  const hash = await commitmentOf(fair.server_seed);
  if (hash !== fair.server_seed_sha256) {
    differences.push(t("The revealed server seed hashes to {hash}, not to the commitment {commitment} shown before the round.", { hash, commitment: fair.server_seed_sha256 }));
    return { ok: false, steps: 0, draws: 0, differences };
  }
  const steps = round.steps || [];
  const ranges = [];
  for (const s of steps) {
    if (!Array.isArray(s.ranges) || s.ranges.length !== s.draws.length) {
      differences.push(t("Step {n}: its draws have no matching ranges.", { n: s.index + 1 }));
      return { ok: false, steps: 0, draws: 0, differences };
    }
    ranges.push(...s.ranges);
  }
  const fresh = await fairDraws(fair.server_seed, fair.client_seed, fair.nonce, ranges);
  let at = 0;
  for (const s of steps) {
    const mine = fresh.slice(at, at + s.draws.length);
    const bad = s.draws.findIndex((v, i) => v !== mine[i]);
    if (bad >= 0) differences.push(t("Step {n}, draw {draw}: the record says {stored}, the seeds give {computed}.", { n: s.index + 1, draw: bad + 1, stored: s.draws[bad], computed: mine[bad] }));
    at += s.draws.length;
  }
  return { ok: !differences.length, steps: steps.length, draws: fresh.length, differences };
}

// -- the seed-pair panel ----------------------------------------------------------------------------------
/** A refusal's words: the server's technical detail in English, its message for the player otherwise. */
const refusal = (err) => (lang() === "en" ? err.detail || err.message : err.message || err.detail);
const short = (hex) => (hex && hex.length > 20 ? `${hex.slice(0, 12)}…${hex.slice(-8)}` : hex || "");

function pairFacts(pair) {
  return el("dl.fair-facts", {},
    el("dt", { text: t("Server seed hash (SHA-256)") }),
    el("dd.fair-hex", { "data-testid": "fair-commitment", title: pair.server_seed_sha256, text: pair.server_seed_sha256 }),
    el("dt", { text: t("Client seed") }), el("dd.fair-hex", { "data-testid": "fair-client-seed", text: pair.client_seed }),
    el("dt", { text: t("Next round's nonce") }), el("dd", { "data-testid": "fair-next-nonce", text: String(pair.next_nonce) }));
}

/** The player's seed pair with a rotation form, drawn into `container` (fetched from the server). */
export async function mountSeedPanel(container, api) {
  const body = el("div.fair-body");
  const revealed = el("div.fair-revealed", { "data-testid": "fair-revealed", hidden: true });
  const message = el("p.fair-message", { "data-testid": "fair-message", role: "status" });
  const input = el("input", { "data-testid": "fair-new-client-seed", maxlength: 64, placeholder: t("new client seed (optional)"),
    pattern: "[!-~]{1,64}", autocomplete: "off", spellcheck: "false" });
  const rotate = el("button.ghost", { type: "button", "data-testid": "fair-rotate", text: t("Rotate seed pair") });
  container.replaceChildren(el("h2", { text: t("Provably fair") }),
    el("p.muted", { text: t("Every round is drawn from your seed pair: the server's seed, fixed before your bets and shown here only as its hash, and your client seed. Rotating reveals the server seed, so you can check every round played with it.") }),
    body, el("div.fair-rotate", {}, input, rotate), message, revealed);
  container.hidden = false;
  const draw = (info) => {
    body.replaceChildren(pairFacts(info.current),
      info.enabled ? "" : el("p.muted", { text: t("This server currently draws rounds from its plain random-number generator; the pair is kept for when it is switched back on.") }));
  };
  try {
    draw(await api.request("GET", "/fair"));
  } catch (err) {
    message.textContent = t("The seed pair could not be loaded: {reason}", { reason: refusal(err) });
    return;
  }
  rotate.addEventListener("click", async () => {
    const seed = input.value.trim();
    if (seed && !/^[!-~]{1,64}$/.test(seed)) {
      message.textContent = t("A client seed is 1-64 printable characters without spaces.");
      return;
    }
    rotate.disabled = true;
    message.textContent = "";
    try {
      const info = await api.request("POST", "/fair/rotate", { body: seed ? { client_seed: seed } : {}, retry: false });
      draw(info);
      input.value = "";
      const old = info.revealed;
      if (old) {
        const ok = (await commitmentOf(old.server_seed)) === old.server_seed_sha256;
        revealed.replaceChildren(el("h3", { text: t("Revealed server seed") }),
          el("p.fair-hex", { "data-testid": "fair-revealed-seed", text: old.server_seed }),
          el("p", { "data-testid": "fair-revealed-check", dataset: { ok: String(ok) },
            text: ok ? tn("Its SHA-256 is {hash}, the hash you were shown: it was fixed before your {n} round with it.",
              "Its SHA-256 is {hash}, the hash you were shown: it was fixed before your {n} rounds with it.", old.rounds,
              { hash: short(old.server_seed_sha256) })
              : t("Its SHA-256 does NOT match the hash you were shown.") }));
        revealed.hidden = false;
      }
      message.textContent = t("New seed pair in use. Rounds you played with the old one can now be verified in your history.");
    } catch (err) {
      message.textContent = refusal(err);
    } finally {
      rotate.disabled = false;
    }
  });
}

// -- one round: its seeds, the browser's verification, the export for the offline command -------------------
/** The fairness facts of `round` with a "Verify draws" button and a JSON export, drawn into `container`. */
export function showRoundFairness(container, round) {
  const fair = round.fair;
  if (!fair) { container.hidden = true; container.replaceChildren(); return; }
  const result = el("div.verify-result", { "data-testid": "fair-result", hidden: true });
  const button = el("button.ghost", { type: "button", "data-testid": "fair-verify", text: t("Verify draws from the seeds") });
  const exportLink = el("a.ghost", { "data-testid": "fair-export", download: `round-${round.id}.json`, text: t("Export round (JSON)") });
  exportLink.href = URL.createObjectURL(new Blob([JSON.stringify(round, null, 1)], { type: "application/json" }));
  container.replaceChildren(el("h3", { text: t("Provably fair") }),
    el("dl.fair-facts", {},
      el("dt", { text: t("Server seed hash") }), el("dd.fair-hex", { "data-testid": "fair-round-commitment", text: fair.server_seed_sha256 }),
      el("dt", { text: t("Server seed") }), el("dd.fair-hex", { "data-testid": "fair-round-seed",
        text: fair.server_seed || t("secret until you rotate your seed pair") }),
      el("dt", { text: t("Client seed") }), el("dd.fair-hex", { text: fair.client_seed }),
      el("dt", { text: t("Nonce") }), el("dd", { "data-testid": "fair-round-nonce", text: String(fair.nonce) })),
    el("div.fair-actions", {}, button, exportLink), result);
  container.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    result.hidden = false;
    result.className = "verify-result";
    result.textContent = t("Recomputing the draws from the seeds…");
    try {
      const v = await verifyRound(round);
      result.dataset.ok = v.ok === null ? "" : String(v.ok);
      result.className = `verify-result ${v.ok ? "ok" : v.ok === false ? "bad" : ""}`;
      result.replaceChildren(el("strong", { text: v.ok === null ? v.reason : v.ok
        ? tn("Fair: all {draws} draws of the {n} step follow from the revealed server seed, your client seed and nonce {nonce}.",
          "Fair: all {draws} draws of the {n} steps follow from the revealed server seed, your client seed and nonce {nonce}.",
          v.steps, { draws: v.draws, nonce: fair.nonce })
        : t("NOT fair: the record differs from the draws of the seeds.") }),
      el("ul", { hidden: !(v.differences || []).length }, ...(v.differences || []).map((d) => el("li", { text: d }))),
      el("p.muted", { hidden: !v.ok, text: t("“{verify}” above replays these draws through the game rules; {command} does both offline on the exported round.", { verify: t("Verify"), command: "`reelforge verify-fair`" }) }));
    } catch (err) {
      result.className = "verify-result bad";
      result.textContent = t("The verification could not run: {reason}", { reason: err.message || err });
    } finally {
      button.disabled = false;
    }
  });
}
