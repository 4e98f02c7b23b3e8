"""The checks after a seamless wallet soak (:mod:`reelforge.ops.wallet_soak`): every player's money on both
sides, the reconciliation of our calls against the wallet's ledger, and the replay of every round."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from reelforge.server.reconcile import reconcile
from reelforge.server.schema import players, rounds
from reelforge.server.verify import verify_round_row

if TYPE_CHECKING:
    from reelforge.ops.refwallet_process import WalletProcess
    from reelforge.ops.wallet_soak import SoakPlayer, Tally

OPENING_BALANCE = 10_000_000
"""What every soak player's wallet account opens with."""


def merge_checks(checks: list[dict[str, Any]], brand_ids: list[str]) -> dict[str, Any]:
    """One brand's checks as they are; several brands' summed, with the reconciliation per brand beside."""
    if len(checks) == 1:
        return checks[0]
    merged: dict[str, Any] = {"problems": [p for c in checks for p in c["problems"]][:50]}
    for key in ("lost_or_duplicated_money", "rounds_verified", "verify_failures", "reconcile_differences",
                "wallet_calls", "operator_transactions"):
        merged[key] = sum(c[key] for c in checks)
    merged["per_brand"] = {b: {k: c[k] for k in ("reconcile_differences", "wallet_calls", "operator_transactions",
                                                 "rounds_verified", "lost_or_duplicated_money")}
                           for b, c in zip(brand_ids, checks, strict=True)}
    return merged


def money_checks(engine: Any, wallet: WalletProcess, roster: list[SoakPlayer], tally: Tally,
           brand: str | None = None) -> dict[str, Any]:
    """The money checks, the reconciliation (of ``brand``'s calls against its wallet) and the replay of every
    round."""
    problems: list[str] = []
    lost = 0
    theirs = wallet.ledger()
    report = reconcile(engine, theirs, brand)
    problems += [f"{brand}: the wallet holds a call for {t['player']!r}, not a player of this brand"
                 for t in theirs if brand is not None and t["player"] not in {p.name for p in roster}]
    problems += [f"reconcile: {d}" for d in report["differences"]]
    applied: dict[str, int] = Counter()
    per_round: dict[int, Counter] = {}
    for t in theirs:
        applied[t["player"]] += t["applied"]
        if t["status"] in ("applied", "rolled_back") and t["round_id"] is not None:
            c = per_round.setdefault(t["round_id"], Counter())
            if t["kind"] == "debit" and t["status"] == "applied":
                c["debit"] += t["amount"]
            elif t["kind"] == "credit":
                c["credit"] += t["amount"]
    from reelforge.server.roundids import RoundIds
    from reelforge.server.store import round_ids_key

    ids = RoundIds(round_ids_key(engine))
    verified = failures = 0
    campaign_of = {t["transaction_id"]: t.get("campaign_id") for t in theirs}
    with engine.connect() as conn:
        for p in roster:
            free_won = free_credited = 0
            rows = conn.execute(select(rounds).join(players, players.c.id == rounds.c.player_id)
                                .where(players.c.name == p.name)).all()
            ours = sum(r.cost for r in rows if r.status != "void")
            won = sum(r.win for r in rows if r.status == "finished")
            balance = wallet.balance(p.name)
            expected = OPENING_BALANCE - ours + won
            if balance != expected:
                problems.append(f"{p.name}: operator balance {balance}, our rounds say {expected}")
                lost += abs(balance - expected)
            if balance != OPENING_BALANCE - p.costs + p.wins:
                problems.append(f"{p.name}: operator balance {balance}, the player's answers say "
                                f"{OPENING_BALANCE - p.costs + p.wins}")
                lost += abs(balance - (OPENING_BALANCE - p.costs + p.wins))
            if balance != OPENING_BALANCE + applied[p.name]:
                problems.append(f"{p.name}: the wallet's balance {balance} is not its ledger's sum")
                lost += abs(balance - OPENING_BALANCE - applied[p.name])
            for r in rows:
                c = per_round.get(ids.public(r.id), Counter())
                want_debit = 0 if r.status == "void" else r.cost
                if r.campaign_id is not None:  # a free round: no debit; its credits are its campaign's
                    free_won += r.win if r.status == "finished" else 0
                    free_credited += c["credit"]
                    if c["debit"]:
                        problems.append(f"round {ids.public(r.id)}: a free round debited {c['debit']}")
                        lost += c["debit"]
                elif c["debit"] != want_debit or c["credit"] != (r.win if r.status == "finished" else 0):
                    problems.append(f"round {ids.public(r.id)}: the wallet holds debit {c['debit']} / credit "
                                    f"{c['credit']}, the round {r.status} cost {r.cost} won {r.win}")
                    lost += abs(c["debit"] - want_debit) + abs(c["credit"] - r.win)
                if r.status == "open":
                    problems.append(f"round {ids.public(r.id)} left open")
                diffs = verify_round_row(conn, r)
                verified += 1
                if diffs:
                    failures += 1
                    problems.append(f"round {ids.public(r.id)} does not verify: {diffs[:2]}")
            if free_credited != free_won:
                problems.append(f"{p.name}: the wallet credited {free_credited} for free rounds that won {free_won}")
                lost += abs(free_credited - free_won)
            wrong = [t["transaction_id"] for t in theirs if t["player"] == p.name and t["kind"] == "credit"
                     and t["round_id"] in {ids.public(r.id) for r in rows if r.campaign_id is not None}
                     and not campaign_of.get(t["transaction_id"])]
            if wrong:
                problems.append(f"{p.name}: free-round credits without their campaign id: {wrong[:3]}")
    return {"problems": problems[:50], "lost_or_duplicated_money": lost, "rounds_verified": verified,
            "verify_failures": failures, "reconcile_differences": len(report["differences"]),
            "wallet_calls": report["ours"], "operator_transactions": report["theirs"]}
