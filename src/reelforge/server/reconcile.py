"""Reconciliation of a seamless wallet: the operator's ledger against our rounds and wallet calls
(``reelforge reconcile``; docs/OPERATORS.md, "Reconciliation").

The operator's ledger is read with the protocol's signed ``GET <wallet_url>/transactions?after=CURSOR``
(pages of transactions in their order, of whatever size the wallet chooses), from ``after=0`` to the
end by the wallet's own cursor: each page's ``next`` is the ``after`` of the next page, and ``null``
marks the last; a wallet that sends no ``next`` is read on with its last transaction's ``seq`` until a
page comes back empty. Every difference is named:

* a round of ours without its settled debit, or whose debit, credit or
  rollback does not match the round (cost, win, void);
* a call of ours the operator's wallet does not have as we expect it: a
  settled debit it does not hold as applied (or rolled back, for a void
  round), a delivered credit or rollback it lacks, an amount or currency or
  player that differs, a debit we rolled back or that it refused that it
  still holds as applied;
* a transaction of the operator's that is not ours.

Calls still in the outbox (``pending``) are listed apart: they are owed and
being delivered, not lost. One pending longer than the threshold
(``--max-pending-seconds``, default 300) is *overdue*: the wallet has not
acknowledged it for that long (it keeps failing, or nothing delivers it), and
the report is not clean while it is.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
from sqlalchemy import Engine, select

from reelforge.server.clock import utcnow
from reelforge.server.config import ServerConfig
from reelforge.server.db import read_transaction
from reelforge.server.roundids import RoundIds
from reelforge.server.schema import players, rounds, wallet_transactions
from reelforge.server.signing import signed_headers
from reelforge.server.store import parse_ts, round_ids_key
from reelforge.server.verify import campaign_differences


def operator_ledger(config: ServerConfig, brand: str | None = None) -> list[dict[str, Any]]:
    """Every transaction of ``brand``'s wallet (default: the default brand's), in its order (signed calls),
    page by page to the end."""
    operator = config.brand(brand).operator
    url = (operator.wallet_url or "").rstrip("/")
    base = urlsplit(url).path
    out: list[dict[str, Any]] = []
    cursor: str | None = "0"
    seen: set[str] = set()
    with httpx.Client(timeout=max(30.0, operator.wallet_timeout_seconds)) as http:
        while cursor is not None:
            if cursor in seen:
                raise ValueError(f"the wallet's ledger cursor {cursor!r} came back twice: its paging never ends")
            seen.add(cursor)
            query = f"after={quote(cursor, safe='')}"
            headers = signed_headers(operator.secret or "", "GET", f"{base}/transactions?{query}", b"")
            answer = http.get(f"{url}/transactions?{query}", headers=headers)
            answer.raise_for_status()
            body = answer.json()
            page = body["transactions"]
            out += page
            if "next" in body:
                cursor = None if body["next"] is None else str(body["next"])
            else:  # no cursor of its own: on from its last transaction until a page is empty
                cursor = str(page[-1]["seq"]) if page else None
    return out


def reconcile(engine: Engine, theirs: list[dict[str, Any]], brand: str | None = None,
              max_pending_seconds: float = 300.0, now: datetime | None = None) -> dict[str, Any]:
    """Compare the operator's ledger ``theirs`` with our rounds and wallet calls (of ``brand``: the brand whose
    wallet ``theirs`` is; None: every call, a database of one brand); every difference named, and every call
    pending longer than ``max_pending_seconds`` named overdue."""
    now = now or utcnow()
    ids = RoundIds(round_ids_key(engine))
    mine = select(wallet_transactions, players.c.name).join(players, players.c.id == wallet_transactions.c.player_id)
    if brand is not None:
        mine = mine.where(wallet_transactions.c.brand == brand)
    with read_transaction(engine) as conn:
        ours = conn.execute(mine).all()
        round_rows = {r.id: r for r in conn.execute(select(rounds.c.id, rounds.c.status, rounds.c.cost,
                                                           rounds.c.win, rounds.c.player_id, rounds.c.campaign_id)
                                                    .where(rounds.c.id.in_({o.round_id for o in ours}))).all()}
    by_id = {t["transaction_id"]: t for t in theirs}
    differences: list[str] = []
    pending: list[str] = []
    overdue: list[str] = []
    per_round: dict[int, dict[str, list[Any]]] = {}
    for o in ours:
        per_round.setdefault(o.round_id, {}).setdefault(o.kind, []).append(o)
        t = by_id.pop(o.id, None)
        what = f"{o.kind} {o.id} (round {o.public_round_id}, {o.amount} {o.currency}, ours {o.status})"
        if o.status == "pending":
            pending.append(what)
            age = (now - parse_ts(o.created_at)).total_seconds()
            if age > max_pending_seconds:
                overdue.append(f"{what}: unsettled for {age:.0f} s (attempts {o.attempts}, last error: "
                               f"{o.last_error or 'none'})")
            if o.kind != "debit":
                continue
        if t is not None and (t["amount"], t["currency"], t["player"]) != (o.amount, o.currency, o.name):
            differences.append(f"{what}: the operator has {t['amount']} {t['currency']} for {t['player']!r}")
            continue
        if t is not None and "campaign_id" in t and t["campaign_id"] != o.campaign_id:
            differences.append(f"{what}: the operator has it for campaign {t['campaign_id']!r}, ours "
                               f"{o.campaign_id!r}")
        if o.kind == "debit":
            rolled_back = o.status == "rolled_back" or any(
                r.reference == o.id for r in per_round.get(o.round_id, {}).get("rollback", []))
            applied = t is not None and t["status"] == "applied"
            if o.status == "done" and t is None:
                differences.append(f"{what}: the operator has no such debit")
            elif o.status in ("refused", "rolled_back") and applied:
                differences.append(f"{what}: the operator holds it as applied")
            elif o.status == "done" and applied and rolled_back and _delivered_rollback(ours, o.id):
                differences.append(f"{what}: rolled back by us, still applied at the operator")
            elif o.status == "done" and not applied and not rolled_back:
                differences.append(f"{what}: the operator holds it as {t['status'] if t else 'missing'}")
        elif o.status == "done" and (t is None or t["status"] != "applied"):
            differences.append(f"{what}: the operator has no such {o.kind} applied")
    for rid, calls in per_round.items():
        rnd = round_rows.get(rid)
        debits = [d for d in calls.get("debit", []) if d.status == "done"]
        if rnd is None:
            if debits:
                differences.append(f"round {ids.public(rid)}: a settled debit {debits[0].id} but no round stored")
            continue
        public = ids.public(rid)
        if rnd.campaign_id is not None:  # a free round: no debit; its credits are its campaign's (checked below)
            if debits:
                differences.append(f"round {public}: a free round with a settled debit {debits[0].id}")
            continue
        if len(debits) != 1 or debits[0].amount != rnd.cost:
            differences.append(f"round {public}: expected one settled debit of {rnd.cost}, found "
                               f"{[d.amount for d in debits]}")
        credits = sum(c.amount for c in calls.get("credit", []))
        if rnd.status == "finished" and credits != rnd.win:
            differences.append(f"round {public}: won {rnd.win}, credits {credits}")
        refunds = sum(r.amount for r in calls.get("rollback", []) if any(r.reference == d.id for d in debits))
        if rnd.status == "void" and refunds != rnd.cost:
            differences.append(f"round {public}: void, its debit of {rnd.cost} rolled back by {refunds}")
        if rnd.status != "void" and refunds:
            differences.append(f"round {public}: {rnd.status} but its debit was rolled back ({refunds})")
    for t in by_id.values():
        if t["kind"] == "debit" and t["status"] == "tombstone":
            continue  # a debit it never received, rolled back by us (ours is listed under our rollback)
        differences.append(f"the operator's {t['kind']} {t['transaction_id']} (round {t['round_id']}, {t['amount']} "
                           f"{t['currency']}, {t['player']!r}) is not ours")
    differences += campaign_differences(engine)  # each player's campaign total against its credits
    return {"ours": len(ours), "theirs": len(theirs), "pending": pending, "overdue": overdue,
            "max_pending_seconds": max_pending_seconds, "differences": differences,
            "clean": not differences and not overdue}


def _delivered_rollback(ours: list[Any], debit_id: str) -> bool:
    return any(o.kind == "rollback" and o.reference == debit_id and o.status == "done" for o in ours)


def print_report(report: dict[str, Any], as_json: bool, echo: Any) -> None:
    if as_json:
        echo(json.dumps(report, sort_keys=True))
        return
    echo(f"our wallet calls: {report['ours']}, the operator's transactions: {report['theirs']}")
    for line in report["pending"]:
        echo(f"pending (being delivered): {line}")
    for line in report["overdue"]:
        echo(f"OVERDUE (pending over {report['max_pending_seconds']:g} s): {line}")
    for line in report["differences"]:
        echo(f"DIFFERENCE: {line}")
    if report["clean"]:
        echo("reconciled: no difference")
    else:
        echo(f"{len(report['differences'])} difference(s), {len(report['overdue'])} overdue call(s)")
