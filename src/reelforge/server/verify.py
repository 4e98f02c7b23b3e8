"""Audit replay: a stored round's draws go back through the rules engine and the
result must match what was stored and paid.

Every round is replayed with the build version it was played with (``rounds.build_version``,
its content hash checked against ``rounds.build_hash``), whatever version is current.

Rounds are decided at the stake and revealed step by step. An unfinished
round is checked as far as it is revealed (its unrevealed steps are neither
replayed nor reported: a player's verify must not disclose them); a finished
one in full, every step revealed.

Checked for every round: each replayed step's kind, events, win, finished
flag, next step and state against the stored step; the round's total win;
and the money: the stake (or feature-buy price) debited once, the win
credited once as ``floor(bet * total_win_x)`` for a finished round, the cost
refunded and nothing paid for a void round, nothing paid yet for an open one. A
seamless wallet's round is checked the same way on its wallet calls (its debit,
its credit and its rollback, delivered or still in the outbox) instead of
ledger entries.

A provably fair round is also drawn again from its seed pair and nonce: its
stored draws and their ranges must be the seeds' (docs/FAIRNESS.md). The
answer never shows the server seed, revealed or not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, Engine

from reelforge.game.contract import BuildError
from reelforge.games.registry import UnknownGame, get_game
from reelforge.server import store
from reelforge.server.db import read_transaction
from reelforge.server.fair_verify import compare_steps, replay_fair, seed_differences
from reelforge.server.round_json import dumps, money


def _canon(raw: str) -> Any:
    return json.loads(raw)


def verify_round_row(conn: Connection, rnd: Any) -> list[str]:
    """Differences between a stored round (a :class:`~reelforge.server.store.RoundRow`, or any row with
    its fields) and its replay (empty: the round verifies)."""
    diffs: list[str] = []
    # Of an open round, what is revealed, nothing more.
    step_rows = store.round_steps(conn, rnd.id, rnd.step_count if rnd.status == "open" else None)
    if [s.idx for s in step_rows] != list(range(len(step_rows))):
        diffs.append(f"step indices are not 0..{len(step_rows) - 1}: {[s.idx for s in step_rows]}")
    if len(step_rows) != rnd.step_count:
        diffs.append(f"round says {rnd.step_count} steps revealed, {len(step_rows)} are")
    if any(s.revealed_at is None for s in step_rows):
        diffs.append("a step the round counts as revealed was never revealed")
    try:
        game = get_game(rnd.game)
        build = game.load_build(rnd.build, rnd.build_version or None)
    except (UnknownGame, BuildError) as exc:
        return diffs + [f"cannot load {rnd.game} build {rnd.build} version {rnd.build_version}: {exc}"]
    if rnd.build_hash is not None and build.identity.content_hash != rnd.build_hash:
        diffs.append(f"{rnd.game} build {build.identity.label} has content hash {build.identity.content_hash[:12]}, "
                     f"the round was played with {rnd.build_hash[:12]}: the build changed under its version")

    replayed: list[Any] = []
    if step_rows:
        try:
            result = game.replay(build, rnd.mode, [json.loads(s.draws) for s in step_rows],
                                 [s.action for s in step_rows])
            replayed = result.steps
        except Exception as exc:  # noqa: BLE001 - any failure to replay is a finding, not a crash
            diffs.append(f"replay failed: {type(exc).__name__}: {exc}")

    for stored, step in zip(step_rows, replayed, strict=False):
        where = f"step {stored.idx}"
        if step.kind != stored.kind:
            diffs.append(f"{where}: kind {stored.kind!r} stored, {step.kind!r} replayed")
        if _canon(dumps(step.events)) != _canon(stored.events):
            diffs.append(f"{where}: events differ from the replay")
        if str(Fraction(step.win)) != stored.win_x:
            diffs.append(f"{where}: win {stored.win_x} stored, {Fraction(step.win)} replayed")
        if str(Fraction(step.total_win)) != stored.total_win_x:
            diffs.append(f"{where}: total win {stored.total_win_x} stored, {Fraction(step.total_win)} replayed")
        if bool(step.finished) != bool(stored.finished):
            diffs.append(f"{where}: finished {bool(stored.finished)} stored, {step.finished} replayed")
        if step.next_step != stored.next_step:
            diffs.append(f"{where}: next step {stored.next_step!r} stored, {step.next_step!r} replayed")
        if _canon(dumps(step.state)) != _canon(stored.state):
            diffs.append(f"{where}: state differs from the replay")

    if rnd.fair_seed_id is not None:
        diffs += _fair_differences(conn, rnd, step_rows) + _nonce_differences(conn, rnd)

    last_finished = bool(step_rows) and bool(step_rows[-1].finished)
    total_x = Fraction(step_rows[-1].total_win_x) if step_rows else Fraction(0)
    if rnd.total_win_x != str(total_x):
        diffs.append(f"round total win {rnd.total_win_x} but its last step says {total_x}")

    entries = store.round_entries(conn, rnd.id) or store.round_wallet_calls(conn, rnd.id, rnd.mode)
    by_kind: dict[str, list[int]] = {}
    for kind, amount in entries:
        by_kind.setdefault(kind, []).append(amount)
    debit_kind = "stake" if rnd.mode == "paid" else "feature_buy"
    free = getattr(rnd, "campaign_id", None) is not None  # a campaign's free round: nothing debited
    if by_kind.pop(debit_kind, []) != ([] if free else [-rnd.cost]):
        diffs.append(f"expected one {debit_kind} entry of {-rnd.cost}, found {[(k, a) for k, a in entries]}")
    wins, refunds = by_kind.pop("win", []), by_kind.pop("refund", [])
    if free:  # its win is credited by its campaign (the total may come on a later round): campaign_differences
        wins = [money(rnd.bet, total_x)] if rnd.status == "finished" and money(rnd.bet, total_x) else []
    if by_kind:
        diffs.append(f"unexpected ledger entries for the round: {by_kind}")
    try:
        price = Fraction(0) if free else Fraction(rnd.bet) * game.stake_x(build, rnd.mode)
    except Exception as exc:  # noqa: BLE001 - a mode the build does not have is a finding
        diffs.append(f"the build has no price for mode {rnd.mode!r}: {exc}")
    else:
        if rnd.cost != price:
            diffs.append(f"cost {rnd.cost} stored, the build prices a {rnd.mode} round at bet {rnd.bet} at {price}")
    if rnd.status == "finished":
        expected = money(rnd.bet, total_x)
        if not last_finished:
            diffs.append("round is finished but its last step is not")
        if rnd.win != expected:
            diffs.append(f"round paid {rnd.win}, floor(bet * {total_x}) is {expected}")
        if sum(wins) != expected or len(wins) > 1 or (expected and not wins):
            diffs.append(f"ledger credited {wins} for a win of {expected}")
        if refunds:
            diffs.append(f"finished round has refunds {refunds}")
    elif rnd.status == "void":
        if rnd.win != 0 or wins:
            diffs.append(f"void round paid {rnd.win} / credited {wins}")
        if refunds != ([rnd.cost] if rnd.cost else []):
            diffs.append(f"void round should refund its cost {rnd.cost} once, refunds {refunds}")
        if not rnd.void_reason:
            diffs.append("void round has no reason recorded")
    elif rnd.status == "open":
        if last_finished:
            diffs.append("round is open but its last step finished it")
        if wins or refunds or rnd.win:
            diffs.append(f"open round already paid {wins} / refunded {refunds}")
    else:
        diffs.append(f"unknown status {rnd.status!r}")
    return diffs


def _fair_differences(conn: Connection, rnd: Any, step_rows: list[Any]) -> list[str]:
    """A provably fair round's stored draws and ranges against its seed pair's stream (the revealed steps)."""
    seed = store.fair_seed_of(conn, rnd.fair_seed_id)
    if seed is None:
        return [f"seed pair {rnd.fair_seed_id} of the round is missing"]
    server_seed, sha, client_seed = seed
    if (sha, client_seed) != (rnd.fair_server_seed_sha256, rnd.fair_client_seed):
        return ["the round's commitment or client seed is not its seed pair's"]
    diffs = seed_differences(server_seed, sha)
    if not diffs and rnd.status == "void":  # a malfunction voids a round; its seeds' round must show one
        try:
            replay_fair(rnd.game, rnd.build, rnd.mode, server_seed, client_seed, rnd.fair_nonce)
        except Exception:  # noqa: BLE001 - the rules failing on the seeds' round is the void's cause
            return diffs
        return ["recorded void, but its seeds' round plays to its end without a malfunction"]
    if diffs or not step_rows:
        return diffs
    stored = [{"index": s.idx, "draws": json.loads(s.draws), "ranges": json.loads(s.ranges or "null")}
              for s in step_rows]
    if any(s["ranges"] is None for s in stored):
        diffs.append("a provably fair step has no recorded ranges")
    try:
        fresh = replay_fair(rnd.game, rnd.build, rnd.mode, server_seed, client_seed, rnd.fair_nonce, len(step_rows))
    except Exception as exc:  # noqa: BLE001 - a finding, not a crash
        return diffs + [f"the seeds' round could not be played: {type(exc).__name__}"]
    return diffs + compare_steps(fresh, stored, outcomes=False)


def _nonce_differences(conn: Connection, rnd: Any) -> list[str]:
    """A provably fair round's nonce in its pair's sequence: each of the pair's nonces 0 .. next_nonce - 1
    draws exactly one round (no nonce used twice, none skipped, none past the pair's count)."""
    from sqlalchemy import func, select

    from reelforge.server.schema import fair_seeds, rounds

    next_nonce = conn.execute(select(fair_seeds.c.next_nonce).where(fair_seeds.c.id == rnd.fair_seed_id)).scalar()
    if next_nonce is None:
        return []  # named by the seed check
    n = rnd.fair_nonce
    counts = dict(conn.execute(select(rounds.c.fair_nonce, func.count()).where(
        rounds.c.fair_seed_id == rnd.fair_seed_id, rounds.c.fair_nonce.in_({n, n - 1, next_nonce - 1}))
        .group_by(rounds.c.fair_nonce)).all())
    diffs = []
    if not 0 <= n < next_nonce:
        diffs.append(f"nonce {n} is outside its seed pair's nonces 0..{next_nonce - 1}")
    if counts.get(n, 0) > 1:
        diffs.append(f"nonce {n} of seed pair {rnd.fair_seed_id} draws {counts[n]} rounds")
    if n > 0 and not counts.get(n - 1):
        diffs.append(f"nonce {n - 1} of seed pair {rnd.fair_seed_id} (before this round's) drew no round")
    if next_nonce > 0 and not counts.get(next_nonce - 1):
        diffs.append(f"the last nonce {next_nonce - 1} of seed pair {rnd.fair_seed_id} drew no round")
    return diffs


def verify_round(engine: Engine, round_id: int, player_id: int | None = None) -> dict[str, Any] | None:
    """``{"round": id, "ok", "differences"}`` for one round (None when missing or not the player's)."""
    with read_transaction(engine) as conn:
        rnd = store.round_by_id(conn, round_id)
        if rnd is None or (player_id is not None and rnd.player_id != player_id):
            return None
        diffs = verify_round_row(conn, rnd)
    return {"round": round_id, "ok": not diffs, "differences": diffs}


def verify_all(engine: Engine, batch: int = 500) -> Iterator[dict[str, Any]]:
    """Verify every stored round, oldest first."""
    last = 0
    while True:
        with read_transaction(engine) as conn:
            rows = store.rounds_after(conn, last, batch)
            results = [{"round": r.id, "ok": not (d := verify_round_row(conn, r)), "differences": d} for r in rows]
        yield from results
        if len(rows) < batch:
            return
        last = rows[-1].id


def campaign_differences(engine: Engine) -> list[str]:
    """Every player's free-round campaign checked against their rounds and credits: rounds played as counted,
    the total won as their finished rounds' wins, what was paid as the credits on their rounds (ledger
    entries, or wallet calls delivered or in the outbox), and once settled (or per win) all of it paid."""
    from sqlalchemy import func, select

    from reelforge.server.schema import campaign_players, campaigns, ledger, players, rounds
    from reelforge.server.schema import wallet_transactions as wt

    diffs = []
    with read_transaction(engine) as conn:
        for cid, key, credit, name, played, won, paid, settled in conn.execute(select(
                campaigns.c.id, campaigns.c.campaign_key, campaigns.c.credit, campaign_players.c.player,
                campaign_players.c.played, campaign_players.c.won, campaign_players.c.paid,
                campaign_players.c.settled_at).join(campaign_players, campaign_players.c.campaign_id == campaigns.c.id)):
            mine = select(rounds.c.id).join(players, players.c.id == rounds.c.player_id).where(
                rounds.c.campaign_id == cid, players.c.name == name)
            n = conn.execute(select(func.count()).where(rounds.c.id.in_(mine), rounds.c.status != "void")).scalar_one()
            finished_wins = conn.execute(select(func.coalesce(func.sum(rounds.c.win), 0)).where(
                rounds.c.id.in_(mine), rounds.c.status == "finished")).scalar_one()
            credited = conn.execute(select(func.coalesce(func.sum(ledger.c.amount), 0)).where(
                ledger.c.round_id.in_(mine), ledger.c.kind == "win")).scalar_one() + conn.execute(
                select(func.coalesce(func.sum(wt.c.amount), 0)).where(
                    wt.c.round_id.in_(mine), wt.c.kind == "credit", wt.c.campaign_id == key)).scalar_one()
            where = f"campaign {key!r}, player {name!r}"
            if n != played:
                diffs.append(f"{where}: {played} rounds counted, {n} stored")
            if finished_wins != won:
                diffs.append(f"{where}: won {won} recorded, its finished rounds won {finished_wins}")
            if credited != paid:
                diffs.append(f"{where}: paid {paid} recorded, {credited} credited")
            if (settled is not None or credit == "each_win") and paid != won:
                diffs.append(f"{where}: {'settled' if settled is not None else 'paid per win'} but paid {paid} "
                             f"of {won} won")
    return diffs
