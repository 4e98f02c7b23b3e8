"""The HTML of one round for people: the support page (``/support/rounds/{id}``: everything support needs for a
player's question) and the read-only replay a signed link opens (``/replay/{id}``: what the player may see).

The page is written here, complete without scripts: the round's facts, every step (its kind, the player's
choice, its win, the numbers drawn, its events), the fair data, and for support the player, brand and the
round's money (the seamless wallet's calls, or the ledger's entries). The boards are drawn in the browser by the
client's own game renderers (``web/js/round-page.js`` reads the round's JSON from the page), the same that draw
the player's game and history replay.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import Any

from reelforge.server.revenue import decimal_text

STYLES = ("/style.css", "/genres.css", "/support.css")


def _money(minor: int | None, currency: str, decimals: int) -> str:
    return "—" if minor is None else f"{decimal_text(minor, decimals)} {currency}"


def _words(key: str | None) -> str:
    """An internal key in words (``free_spin`` → ``Free spin``)."""
    return "—" if not key else key.replace("_", " ").capitalize()


def _times(x: str) -> str:
    """A multiple of the bet in words (``1/20`` → ``0.05× the bet``; ``1/3`` stays a fraction: exact)."""
    value = Fraction(x)
    if (value * 10 ** 6).denominator == 1:  # a decimal of at most 6 places: written exactly as one
        x = format(Decimal(value.numerator) / value.denominator, "f")
    return f"{x}× the bet"


def _when(text: str | None) -> str:
    """An API timestamp as people read it (UTC, to the second)."""
    return "—" if not text else text.replace("T", " ")[:19] + " UTC"


def _facts(rows: list[tuple[str, str]], testid: str) -> str:
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    return f'<dl class="sp-facts" data-testid="{testid}">{items}</dl>'


def _table(head: list[str], rows: list[list[str]], testid: str, empty: str) -> str:
    if not rows:
        return f'<p class="sp-muted" data-testid="{testid}">{escape(empty)}</p>'
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    # each cell names its column: a phone shows a row as a list of labelled lines (support.css)
    body = "".join("<tr>" + "".join(f'<td data-label="{escape(h)}">{escape(c)}</td>' for h, c in zip(head, row))
                   + "</tr>" for row in rows)
    return f'<table class="sp-table" data-testid="{testid}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _steps(r: dict[str, Any], money: Any) -> str:
    rows = []
    for s in r["steps"]:
        events = ", ".join(_words(e.get("type")) for e in s["events"] if isinstance(e, dict))
        rows.append([str(s["index"] + 1), _words(s["kind"]), _words(s["action"]) if s["action"] else "—",
                     f'{money(s["win"])} ({_times(s["win_x"])})', ", ".join(map(str, s["draws"])), events,
                     _when(s["created_at"])])
    return _table(["Step", "Kind", "Player's choice", "Win", "Random numbers drawn", "Events", "Shown at"], rows,
                  "steps", "No step is revealed yet.")


def _fair(r: dict[str, Any]) -> str:
    fair = r.get("fair")
    if not fair:
        return '<p class="sp-muted" data-testid="fair">Drawn from the server\'s secure random source (not a provably ' \
               'fair round): there is no seed pair to show.</p>'
    revealed = fair["server_seed"] or "not revealed yet: the player's seed pair is still active (revealed when " \
                                      "the player changes it)"
    return _facts([("Server seed hash (SHA-256)", fair["server_seed_sha256"]), ("Client seed", fair["client_seed"]),
                   ("Nonce", str(fair["nonce"])), ("Server seed", revealed), ("Seed pair", str(fair["seed_pair"])),
                   ("Algorithm", fair["algorithm"])], "fair")


def _money_calls(r: dict[str, Any], money: Any) -> str:
    if r.get("wallet_calls") is not None:
        rows = [[c["transaction_id"], _words(c["kind"]), money(c["amount"]), _words(c["status"]),
                 str(c["attempts"]), c["reference_transaction_id"] or "—", c["last_error"] or "—",
                 _when(c["created_at"]), _when(c["updated_at"])] for c in r["wallet_calls"]]
        return "<h2>Wallet calls (operator's seamless wallet)</h2>" + _table(
            ["Transaction id", "Call", "Amount", "Status", "Failed attempts", "Rolls back", "Last error", "Written",
             "Settled or retried"], rows, "wallet-calls", "No wallet call was made for this round.")
    rows = [[str(e["entry"]), _words(e["kind"]), money(e["amount"]), money(e["balance_after"]), _when(e["created_at"])]
            for e in r.get("ledger") or []]
    return "<h2>Balance entries (transfer wallet)</h2>" + _table(
        ["Entry", "Kind", "Amount", "Balance after", "Time"], rows, "ledger", "No balance entry for this round.")


def round_page(r: dict[str, Any], title: str, support: bool) -> str:
    """The page of round ``r`` (:func:`reelforge.server.support.round_details`); ``support``: with the player,
    brand and money calls (the support page), else the player's read-only replay."""
    currency, decimals = r["currency"], r["decimals"]

    def money(minor: int | None) -> str:
        return _money(minor, currency, decimals)

    status = {"open": "Unfinished", "finished": "Finished", "void": "Void"}.get(r["status"], r["status"])
    total = r["total_win"] if r["status"] == "open" else r["paid"]
    facts = [("Round", str(r["id"])), ("Game", title), ("Build", f'{r["build"]}, version {r["build_version"]}'),
             ("Mode", "Paid spin" if r["mode"] == "paid" else "Feature buy" if r["mode"] == "buy" else _words(r["mode"])),
             ("Currency", f"{currency} ({decimals} decimals)"),
             ("Bet", money(r["bet"]) + (f' (asked {money(r["requested_bet"])})' if r["bet_adjusted"] else "")),
             ("Stake", money(r["cost"])), ("Status", status),
             ("Win so far" if r["status"] == "open" else "Total win", f'{money(total)} ({_times(r["total_win_x"])})'),
             ("Started", _when(r["created_at"])), ("Finished", _when(r["finished_at"]))]
    if support:
        facts[1:1] = [("Player", r["player"]), ("Brand", r["brand"])]
    if r["void_reason"]:
        facts.append(("Void reason", r["void_reason"]))
    if r["completed_on_expiry"]:
        facts.append(("Completed", "on expiry (the player left it unfinished)"))
    if r.get("wallet_settlement"):
        facts.append(("Win credited", _words(r["wallet_settlement"]["status"])))
    heading = f'{"Support · " if support else ""}Round {r["id"]} · {title}'
    data = json.dumps({"round": r, "title": title, "support": support}).replace("</", "<\\/")
    links = "".join(f'<link rel="stylesheet" href="{href}">' for href in STYLES)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(heading)} · reelforge</title><link rel="icon" href="data:,">{links}
<script type="module" src="/js/round-page.js"></script>
</head>
<body class="sp-body" data-page="{"support" if support else "replay"}">
<header class="sp-top"><span class="sp-brand">reel<b>forge</b> {"support" if support else "round replay"}</span>
<span class="sp-note">{"Read-only: nothing on this page changes a round or moves money." if support
                        else "A read-only replay of one round, shared by the operator."}</span></header>
<main class="sp-main">
<h1 data-testid="round-title">{escape(heading)}</h1>
<div class="sp-row">
<section class="sp-panel"><h2>The round</h2>{_facts(facts, "facts")}</section>
<section class="sp-panel"><h2>Provably fair data</h2>{_fair(r)}</section>
</div>
<section class="sp-panel"><h2>Board after each step</h2>
<div class="sp-boards" id="boards" data-testid="boards"><p class="sp-muted">The boards are drawn by the game's own
renderer (scripts needed); the steps below say the same in words.</p></div></section>
<section class="sp-panel"><h2>Steps</h2>{_steps(r, money)}</section>
{f'<section class="sp-panel">{_money_calls(r, money)}</section>' if support else ""}
</main>
<script type="application/json" id="round-data">{data}</script>
</body>
</html>
"""


def refusal_page(status: int, message: str) -> str:
    """The page of a replay link that opens nothing (expired, altered), with what to do."""
    title = "Replay link expired" if status == 410 else "Replay link not valid"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · reelforge</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/support.css"></head>
<body class="sp-body"><main class="sp-main"><h1>{title}</h1>
<p class="sp-refusal" data-testid="refusal">{escape(message)}</p></main></body></html>
"""
