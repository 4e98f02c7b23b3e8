// The game server's HTTP API (/api/v1). Money-changing requests carry an
// Idempotency-Key; when the connection is lost (no answer, a gateway error, a
// timeout) the SAME request is retried with the SAME key, so the server plays
// the step once and returns its first answer to the retry.

const BASE = "/api/v1";
const TIMEOUT_MS = 15000;
// Retried at most a second apart: a round goes on within about a second of the server being back.
const RETRY_DELAYS_MS = [300, 600, 1000];
const MAX_ATTEMPTS = 150;

export class ApiError extends Error {
  /** ``message``: the server's words for the player, in the session's language (``detail``: its technical words). */
  constructor(status, code, detail, message) {
    super(message || detail || code);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

export class NetworkError extends Error {
  constructor(message) {
    super(message);
    this.code = "network";
  }
}

export function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Api {
  /** @param {{onRetry?: (attempt:number, err:Error)=>void, onRecovered?: ()=>void}} hooks */
  constructor(hooks = {}) {
    this.token = localStorage.getItem("rf.token") || null;
    this.hooks = hooks;
    this.language = null; // the player's language: refusals of a session without one speak it
  }

  setToken(token) {
    this.token = token;
    if (token) localStorage.setItem("rf.token", token);
    else localStorage.removeItem("rf.token");
  }

  async once(method, path, body, key) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (key) headers["Idempotency-Key"] = key;
    if (this.language) headers["Accept-Language"] = this.language;
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
    let res;
    try {
      res = await fetch(BASE + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: ctrl.signal,
        cache: "no-store",
      });
    } catch (err) {
      throw new NetworkError(err && err.name === "AbortError" ? "the server did not answer in time" : "connection lost");
    } finally {
      clearTimeout(timer);
    }
    let data = null;
    const text = await res.text().catch(() => "");
    if (text) {
      try { data = JSON.parse(text); } catch { data = null; }
    }
    if (!res.ok) {
      // A gateway or proxy failing is a lost connection, not an answer.
      if ([502, 503, 504].includes(res.status) || (res.status >= 500 && !data)) {
        throw new NetworkError(`the server is unreachable (HTTP ${res.status})`);
      }
      throw new ApiError(res.status, (data && data.error) || `http_${res.status}`, (data && data.detail) || res.statusText,
        data && data.message);
    }
    return data;
  }

  /** A request retried on connection loss; retries reuse the idempotency key. */
  async request(method, path, { body, key, retry = true } = {}) {
    for (let attempt = 1; ; attempt++) {
      try {
        const data = await this.once(method, path, body, key);
        if (attempt > 1 && this.hooks.onRecovered) this.hooks.onRecovered();
        return data;
      } catch (err) {
        if (!(err instanceof NetworkError) || !retry || attempt >= MAX_ATTEMPTS) throw err;
        if (this.hooks.onRetry) this.hooks.onRetry(attempt, err);
        await sleep(RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]);
      }
    }
  }

  // -- endpoints -------------------------------------------------------------
  openSession(player) { return this.request("POST", "/sessions", { body: { player } }); }
  launch(token, lang = null) { return this.request("POST", "/launch", { body: lang ? { token, lang } : { token } }); }
  /** The player's language for the session (kept with it on the server). */
  chooseLanguage(lang) { return this.request("PUT", "/settings/language", { body: { lang } }); }
  wallet() { return this.request("GET", "/wallet"); }
  games() { return this.request("GET", "/games"); }
  help(game, lang = "en") { return this.request("GET", `/games/${encodeURIComponent(game)}/help?lang=${encodeURIComponent(lang)}`); }

  settings() { return this.request("GET", "/settings"); }
  /** The player's answer to a reality check the server asked for (409 reality_check_due). */
  acknowledgeRealityCheck() { return this.request("POST", "/reality-check", { body: {}, key: newKey() }); }

  /** The player's unfinished rounds (of one game), each in full; an empty list when there is none. */
  async unfinished(game = null) {
    const q = game ? `?game=${encodeURIComponent(game)}` : "";
    return (await this.request("GET", `/rounds/unfinished${q}`)).rounds;
  }

  startRound(game, { bet, autoAdjust = false, buyFeature = false }, key = newKey()) {
    const body = { bet, auto_adjust_bet: !!autoAdjust };
    if (buyFeature) body.buy_feature = true;
    return this.request("POST", `/games/${encodeURIComponent(game)}/rounds`, { body, key });
  }

  /** One of the player's free rounds of a campaign, at its bet (nothing staked); played on like any round. */
  startFreeRound(game, { campaign, bet }, key = newKey()) {
    return this.request("POST", `/games/${encodeURIComponent(game)}/free-rounds`, { body: { campaign, bet }, key });
  }

  playStep(roundId, action = null, key = newKey()) {
    return this.request("POST", `/rounds/${roundId}/steps`, { body: action ? { action } : {}, key });
  }

  rounds(limit = 20, before = null) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (before) q.set("before", String(before));
    return this.request("GET", `/rounds?${q}`);
  }

  round(id) { return this.request("GET", `/rounds/${id}`); }
  /** The player's free-round campaigns (their bet in the player's currency, rounds left, won so far). */
  campaigns() { return this.request("GET", "/campaigns"); }
  verify(id) { return this.request("GET", `/rounds/${id}/verify`); }
}
