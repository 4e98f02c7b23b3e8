"""Verifying a provably fair round from its inputs alone (docs/FAIRNESS.md): the revealed server seed,
the client seed, the nonce, and the game, build and mode.

:func:`replay_fair` draws the round's stream again (:class:`~reelforge.core.draws.FairDraws`) and plays it
through the rules engine exactly as the server decided it at the stake; :func:`compare_steps` sets the
result beside a stored or exported record. The server's audit (:mod:`reelforge.server.verify`) uses
them for every provably fair round; ``reelforge verify-fair`` (:func:`verify_export`) uses them on a
round exported as JSON, with no server and no database.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reelforge.core.draws import FairDraws, RecordingDraws
from reelforge.game.contract import BuildError
from reelforge.game.results import StepResult
from reelforge.games.registry import UnknownGame, get_game
from reelforge.server.fair import commitment
from reelforge.server.round_json import dumps, money
from reelforge.server.rounds import MAX_ROUND_STEPS

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class ExportError(ValueError):
    """An exported round that cannot be checked at all (not a round, unknown game, no seed)."""


@dataclass(frozen=True)
class FairStep:
    """A step played again from the seeds: the rules' result, the draws it made and their ranges."""

    result: StepResult
    draws: list[int]
    ranges: list[int]


def replay_fair(game_id: str, build_name: str, mode: str, server_seed: str, client_seed: str, nonce: int,
                steps: int | None = None) -> list[FairStep]:
    """Play the round of ``nonce`` from the seeds through the rules, as the server decides it at the stake
    (no step actions), to its end or its first ``steps`` steps."""
    game = get_game(game_id)
    build = game.load_build(build_name)
    recorder = RecordingDraws(FairDraws(bytes.fromhex(server_seed), client_seed, nonce))
    state = game.start_round(build, mode)
    played: list[FairStep] = []
    while steps is None or len(played) < steps:
        step = game.play_step(build, state, recorder, None)
        values, ranges = recorder.take_with_ranges()
        played.append(FairStep(step, values, ranges))
        if step.finished or len(played) >= MAX_ROUND_STEPS:
            break
        state = step.state
    return played


def _same_json(a: Any, b: Any) -> bool:
    return json.loads(dumps(a)) == json.loads(dumps(b))


def compare_steps(replayed: list[FairStep], stored: list[dict[str, Any]], outcomes: bool = True) -> list[str]:
    """Differences between steps played again from the seeds and a record's steps (dicts as the API gives
    them): the draws and their ranges, and with ``outcomes`` also each step's kind, events, wins, finished
    flag, next step and state."""
    diffs: list[str] = []
    if len(replayed) < len(stored):
        diffs.append(f"the seeds' round has {len(replayed)} step(s), the record {len(stored)}")
    for fresh, step in zip(replayed, stored, strict=False):
        where = f"step {step.get('index', '?')}"
        if step.get("draws") != fresh.draws:
            first = next((i for i, (a, b) in enumerate(zip(step.get("draws") or [], fresh.draws)) if a != b),
                         min(len(step.get("draws") or []), len(fresh.draws)))
            diffs.append(f"{where}: the recorded draws differ from the seeds' draws from draw #{first + 1} "
                         f"({len(step.get('draws') or [])} recorded, {len(fresh.draws)} drawn)")
        if step.get("ranges") is not None and step["ranges"] != fresh.ranges:
            diffs.append(f"{where}: the recorded ranges differ from those the rules asked for")
        if not outcomes:
            continue
        r = fresh.result
        checks = [("kind", step.get("kind") == r.kind), ("events", _same_json(step.get("events"), r.events)),
                  ("win", step.get("win_x") == str(Fraction(r.win))),
                  ("total win", step.get("total_win_x") == str(Fraction(r.total_win))),
                  ("finished", bool(step.get("finished")) == bool(r.finished)),
                  ("next step", step.get("next_step") == r.next_step), ("state", _same_json(step.get("state"), r.state))]
        diffs += [f"{where}: {name} differs from the seeds' round" for name, ok in checks if not ok]
    return diffs


def seed_differences(server_seed: str, server_seed_sha256: str) -> list[str]:
    """Whether ``server_seed`` is the seed the commitment was made to."""
    if not _HEX64.fullmatch(server_seed or ""):
        return ["the server seed is not 64 lowercase hex digits"]
    if commitment(server_seed) != server_seed_sha256:
        return [f"SHA-256 of the server seed is {commitment(server_seed)}, the commitment shown before the round "
                f"was {server_seed_sha256}"]
    return []


def verify_export(data: Any, server_seed: str | None = None) -> dict[str, Any]:
    """Verify one exported round (the JSON of ``GET /api/v1/rounds/{id}``) from its seeds alone: the server
    seed (the round's revealed one, else ``server_seed``) against the commitment, then the whole round played
    again through the rules from the seeds and compared with the record, step by step, and its payment.
    Raises :class:`ExportError` when the round cannot be checked at all."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ExportError("not an exported round: expected the JSON of GET /api/v1/rounds/{id}")
    rid = data.get("id")
    proof = data.get("fair")
    if not isinstance(proof, dict):
        raise ExportError(f"round {rid} is not provably fair (it was drawn from the plain CSPRNG)")
    seed = proof.get("server_seed") or server_seed
    if not seed:
        raise ExportError(f"round {rid}: its server seed is not revealed yet; rotate the seed pair, then export "
                          "the round again or pass --server-seed")
    seed = seed.lower()
    try:
        nonce, client_seed, sha = int(proof["nonce"]), str(proof["client_seed"]), str(proof["server_seed_sha256"])
        game_id, build, mode, bet = str(data["game"]), str(data["build"]), str(data["mode"]), int(data["bet"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ExportError(f"round {rid}: missing or malformed field {exc}") from exc
    diffs = seed_differences(seed, sha)
    result = {"round": rid, "ok": False, "nonce": nonce, "steps_checked": 0, "draws_checked": 0,
              "differences": diffs}
    if diffs:
        return result
    stored = data["steps"]
    status = data.get("status")
    try:
        game = get_game(game_id)
        built = game.load_build(build, data.get("build_version") or None)
        price = Fraction(bet) * game.stake_x(built, mode)
    except (UnknownGame, BuildError) as exc:
        raise ExportError(f"round {rid}: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - a mode the build does not have is a finding
        price = None
        diffs.append(f"the build has no price for mode {mode!r}: {type(exc).__name__}: {exc}")
    if price is not None and data.get("cost") != price:
        diffs.append(f"cost {data.get('cost')} recorded, the build prices a {mode} round at bet {bet} at {price}")
    finished = status == "finished"
    try:
        replayed = replay_fair(game_id, build, mode, seed, client_seed, nonce,
                               None if finished or status == "void" else len(stored))
    except (UnknownGame, BuildError) as exc:
        raise ExportError(f"round {rid}: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - the rules refusing the seeds' round is a finding (or a void's cause)
        if status == "void" and not stored and data.get("paid") == 0:
            result.update(ok=not diffs, differences=diffs)  # its malfunction is the seeds' round's own
            return result
        result["differences"] = diffs + [f"the rules could not play the seeds' round: {type(exc).__name__}: {exc}"]
        return result
    if status == "void":  # a malfunction voids a round; the seeds' round playing to its end shows none
        total = Fraction(replayed[-1].result.total_win)
        diffs.append(f"recorded void, but its seeds' round plays to its end without a malfunction (total win "
                     f"{total}, paid {money(bet, total)} at bet {bet})")
        result.update(differences=diffs)
        return result
    diffs += compare_steps(replayed, stored)
    for step in stored:
        if "win" in step and "win_x" in step and step["win"] != money(bet, Fraction(str(step["win_x"]))):
            diffs.append(f"step {step.get('index', '?')}: win {step['win']} recorded, floor(bet {bet} x "
                         f"{step['win_x']}) is {money(bet, Fraction(str(step['win_x'])))}")
    if finished:
        if len(replayed) > len(stored):
            diffs.append(f"the seeds' round has {len(replayed)} step(s), the finished record {len(stored)}")
        total = Fraction(replayed[-1].result.total_win)
        if data.get("total_win_x") != str(total):
            diffs.append(f"round total win {data.get('total_win_x')} recorded, {total} from the seeds")
        if data.get("paid") != money(bet, total):
            diffs.append(f"round paid {data.get('paid')}, floor(bet {bet} x {total}) is {money(bet, total)}")
    elif status == "open":
        if data.get("paid") != 0:
            diffs.append(f"an open round has paid {data.get('paid')}: nothing is paid before its last step")
        if stored and stored[-1].get("finished"):
            diffs.append("recorded open, but its last step finished the round")
    else:
        diffs.append(f"unknown status {status!r}")
    result.update(ok=not diffs, steps_checked=min(len(replayed), len(stored)),
                  draws_checked=sum(len(s.draws) for s in replayed[:len(stored)]))
    return result


def nonce_differences(rounds: list[Any]) -> dict[int, list[str]]:
    """The nonce sequence of each seed pair among exported rounds (by position in ``rounds``): a pair's
    rounds use its nonces 0, 1, 2, ... once each, so a nonce used twice, or missing between two that are
    there, is named on the rounds concerned."""
    pairs: dict[tuple[Any, Any], dict[int, list[int]]] = {}
    for i, data in enumerate(rounds):
        proof = data.get("fair") if isinstance(data, dict) else None
        if not isinstance(proof, dict) or not isinstance(proof.get("nonce"), int):
            continue
        pair = (proof.get("server_seed_sha256"), proof.get("client_seed"))
        pairs.setdefault(pair, {}).setdefault(proof["nonce"], []).append(i)
    out: dict[int, list[str]] = {}
    for (sha, _client), used in pairs.items():
        ids = {n: [rounds[i].get("id") for i in at] for n, at in used.items()}
        for n, at in used.items():
            if len(at) > 1:
                for i in at:
                    out.setdefault(i, []).append(f"nonce {n} of seed pair {str(sha)[:12]}... is used by rounds "
                                                 f"{ids[n]}: each nonce draws one round")
        present = sorted(used)
        for before, after in zip(present, present[1:], strict=False):
            if after - before > 1:
                for i in used[after]:
                    out.setdefault(i, []).append(f"nonces {before + 1}..{after - 1} of seed pair {str(sha)[:12]}... "
                                                 "are missing between the exported rounds (export every round "
                                                 "of the pair)")
    return out


def rounds_of(data: Any) -> list[Any]:
    """The rounds of an export: one round, a list of rounds, or ``{"rounds": [...]}``."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("rounds"), list):
        return data["rounds"]
    return [data]
