"""``check_game(game)``: one conformance suite every game must pass, in the spirit of
scikit-learn's ``check_estimator``.

Each check is a function of its own (``check_kernel_matches_reference(game)`` runs one), named
in :data:`CHECKS`, and raises :class:`ConformanceError` whose message names the game, the build,
the mode and, where rounds are compared, the first round that differs. :func:`check_game` runs
them all and reports every failure at once. The checks share the reference rounds they play
through a :class:`Context`, so the whole suite plays each build's rounds once.

What is checked (the contract is :mod:`reelforge.game.contract`):

* every build loads and keeps the :class:`~reelforge.game.contract.Build` protocol; an unknown build name
  raises :class:`~reelforge.game.contract.BuildError` naming the valid ones;
* help is a :class:`~reelforge.game.help.GameHelp` with every field present and of its type;
* declared capabilities match behaviour (exact figures consistent and near a simulation; the
  Feature Buy present exactly when declared; undeclared methods raise NotImplementedError);
* the kernel and the reference engine give identical rounds on the same seeded stream, for
  every build and every mode (on the shared rounds, and streamed in depth);
* replaying recorded rounds (per-step draws and actions) reproduces every step exactly;
* every win is a whole number of win units and the cap holds;
* a finished round refuses another step, an undeclared step action and an unknown mode are
  refused, and nothing is drawn for a refused step;
* a simulated chunk's totals are those of the kernel's rounds, and simulation totals do not
  depend on the number of worker processes;
* the published figures are the game's: the declared RTP within its tolerance of the exact RTP or of a
  simulation sized from the build's SD to decide at 99%; the help's volatility the exact SD's, or the one a
  simulation's SD interval proves (near a bolt's edge, a recorded larger run's); the stated maximum win reached (exactly, or by a
  constructed round under a bound from the rules) and never passed; the win distribution's top bucket the cap.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from reelforge.conformance.context import (
    DEPTH_ROUNDS,
    EXACT_ROUNDS,
    KERNEL_ROUNDS,
    REPLAY_ROUNDS,
    ROUNDS,
    RTP_ROUNDS,
    SEEDS,
    ConformanceError,
    Context,
)
from reelforge.conformance.contract import (
    check_builds_load,
    check_capabilities_match_behaviour,
    check_declarations_typed,
    check_help_typed,
)
from reelforge.conformance.figures import (
    check_max_win_reachable,
    check_rtp_declared,
    check_top_bucket_is_the_cap,
    check_volatility_declared,
)
from reelforge.conformance.rounds import (
    check_kernel_matches_reference,
    check_kernel_matches_reference_in_depth,
    check_refuses_bad_steps,
    check_replay_reproduces_rounds,
    check_wins_whole_units_within_cap,
)
from reelforge.conformance.simulation import (
    check_simulation_independent_of_workers,
    check_simulation_matches_kernel_rounds,
)
from reelforge.game.contract import Game

__all__ = [
    "CHECKS", "ConformanceError", "Context", "check_game", "check_builds_load", "check_capabilities_match_behaviour",
    "check_declarations_typed", "check_help_typed", "check_kernel_matches_reference", "check_kernel_matches_reference_in_depth", "check_refuses_bad_steps",
    "check_replay_reproduces_rounds", "check_simulation_independent_of_workers",
    "check_simulation_matches_kernel_rounds", "check_wins_whole_units_within_cap", "check_rtp_declared",
    "check_max_win_reachable", "check_top_bucket_is_the_cap", "check_volatility_declared",
]

CHECKS: dict[str, Callable[[Game | Context], None]] = {
    "declarations_typed": check_declarations_typed,
    "builds_load": check_builds_load,
    "help_typed": check_help_typed,
    "capabilities_match_behaviour": check_capabilities_match_behaviour,
    "kernel_matches_reference": check_kernel_matches_reference,
    "kernel_matches_reference_in_depth": check_kernel_matches_reference_in_depth,
    "replay_reproduces_rounds": check_replay_reproduces_rounds,
    "wins_whole_units_within_cap": check_wins_whole_units_within_cap,
    "refuses_bad_steps": check_refuses_bad_steps,
    "simulation_matches_kernel_rounds": check_simulation_matches_kernel_rounds,
    "simulation_independent_of_workers": check_simulation_independent_of_workers,
    "rtp_declared": check_rtp_declared,
    "volatility_declared": check_volatility_declared,
    "max_win_reachable": check_max_win_reachable,
    "top_bucket_is_the_cap": check_top_bucket_is_the_cap,
}
"""Every check by name, in the order :func:`check_game` runs them."""


def check_game(game: Game, *, rounds: int = ROUNDS, seeds: tuple[int, ...] = SEEDS, replay_rounds: int = REPLAY_ROUNDS,
               kernel_rounds: int = KERNEL_ROUNDS, exact_rounds: int = EXACT_ROUNDS, depth_rounds: int = DEPTH_ROUNDS,
               rtp_rounds: int = RTP_ROUNDS, rtp_tolerance: Fraction | None = None,
               checks: list[str] | None = None) -> list[str]:
    """Run every check (or those named in ``checks``) on ``game``; return the names that passed.

    Raises :class:`ConformanceError` listing every failing check and its message.
    """
    unknown = sorted(set(checks or ()) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; checks: {', '.join(CHECKS)}")
    ctx = Context(game, rounds=rounds, seeds=tuple(seeds), replay_rounds=replay_rounds, kernel_rounds=kernel_rounds,
                  exact_rounds=exact_rounds, depth_rounds=depth_rounds, rtp_rounds=rtp_rounds, rtp_tolerance=rtp_tolerance)
    failures = []
    for name in checks or CHECKS:
        try:
            CHECKS[name](ctx)
        except Exception as exc:  # every failure is reported, a crash as much as a broken promise
            failures.append(f"{name}: {exc}" if isinstance(exc, ConformanceError) else f"{name}: crashed: {exc!r}")
    if failures:
        raise ConformanceError(f"{game.id} fails {len(failures)} check(s):\n" + "\n".join(failures))
    return list(checks or CHECKS)
