"""The ``reelforge`` command line: one Typer app whose commands are imported only when they run.

:data:`COMMANDS` is the table of every command (name, ``module:attribute``, one-line help); adding a
command, or a whole Typer sub-app such as ``reelforge design GAME ...``, is one line there. Importing
this package imports Typer alone (no numpy, numba, scipy, FastAPI or SQLAlchemy), so ``reelforge
--help`` is quick.
"""

from __future__ import annotations

import sys

import typer

from reelforge.cli.lazy import SETTINGS, LazyCommand, LazyGroup

COMMANDS: tuple[LazyCommand, ...] = (
    LazyCommand("games", "reelforge.cli.analysis:games", "List the games and their builds."),
    LazyCommand("summary", "reelforge.cli.analysis:summary",
                "The Game Rules Summary of a build: exact where the game allows, else simulated."),
    LazyCommand("exact", "reelforge.cli.exact:exact",
                "Exact figures of an enumerable game: RTP and its split, hit rate, feature frequency, SD, the largest "
                "reachable win and its probability, the full win distribution (every outcome counted, no sample)."),
    LazyCommand("simulate", "reelforge.cli.analysis:simulate",
                "Simulate a build with the fast kernel; the same seed gives the same totals for any --workers or "
                "backend."),
    LazyCommand("bench", "reelforge.cli.bench:bench",
                "Kernel rounds per second per core, with this machine's raw random-number rate from the same run "
                "(or, with --server, the game server's paid rounds per second through HTTP)."),
    LazyCommand("monitor-figures", "reelforge.cli.analysis:monitor_figures",
                "Write a game's live-monitor figures beside its builds (its RTP and SD per build and mode: exact "
                "where the game allows, else a kernel simulation)."),
    LazyCommand("compare", "reelforge.cli.analysis:compare",
                "All builds of a game side by side (exact where the game allows, else simulated)."),
    LazyCommand("certify", "reelforge.cli.certify:certify",
                "A certification package a test lab signs: a build run to a stated precision (resumable), its "
                "report, tallies and manifest, signed with --key; --verify DIR checks one; --record DIR records a "
                "verified package's RTP interval beside its game for the help and the lobby; keygen --out DIR "
                "makes a signing key."),
    LazyCommand("rng-report", "reelforge.cli.rng_report:rng_report",
                "The RNG description and test report (the engine's battery and dieharder, every p-value) that a "
                "certification package carries."),
    LazyCommand("export", "reelforge.cli.export:app",
                "Export a game for another platform (stake: Stake Engine's static math files)."),
    LazyCommand("tune", "reelforge.cli.tune:tune",
                "Calibrate a build toward targets and write its data file (the generic tuner of tuning.py)."),
    LazyCommand("serve", "reelforge.server.commands:serve",
                "Run the game server (FastAPI under uvicorn), or with --stake DIR a local Stake RGS."),
    LazyCommand("verify", "reelforge.server.commands:verify",
                "Replay stored rounds through the rules engine and report every mismatch (exit 1 if any)."),
    LazyCommand("verify-fair", "reelforge.server.commands:verify_fair",
                "Verify provably fair rounds offline from their seeds alone: the server seed against the commitment, "
                "then every draw made again and the round replayed through the rules engine (exit 1 if any round "
                "differs)."),
    LazyCommand("expire", "reelforge.server.commands:expire",
                "Complete every round unfinished longer than the expiry: its remaining steps revealed, its "
                "decided win credited (never refunded: rounds are decided when staked); each logged as a round "
                "event."),
    LazyCommand("reconcile", "reelforge.server.commands:reconcile",
                "Compare a brand's seamless wallet ledger with our rounds and wallet calls of that brand; name "
                "every difference and every call unsettled longer than --max-pending-seconds (exit 1 if any)."),
    LazyCommand("revenue", "reelforge.server.commands:revenue",
                "The daily revenue report per brand, game, currency and kind of round (the figures of /metrics), "
                "converted into a reporting currency at the operator's rates; CSV or JSON."),
    LazyCommand("wallet-soak", "reelforge.ops.commands:wallet_soak",
                "Seamless wallet soak: the game server and the reference operator wallet killed during play, "
                "faults injected; 0 money lost or duplicated on either side, the outbox drained, reconciliation "
                "clean."),
    LazyCommand("wallet-check", "reelforge.ops.commands:wallet_check",
                "Conformance check of an operator's seamless wallet: every call, retry and fault path of the wallet "
                "protocol (docs/WALLET_PROTOCOL.md); prints each thing the wallet does wrong, one line each."),
    LazyCommand("soak", "reelforge.ops.commands:soak",
                "Load and crash soak: start the server, drive it over loopback, reconcile the ledger and verify "
                "every round."),
    LazyCommand("design", "reelforge.cli.design:app",
                "Design and calibrate a game's builds (the commands that made the shipped files)."),
)


class ReelforgeGroup(LazyGroup):
    lazy_commands = COMMANDS


app = typer.Typer(cls=ReelforgeGroup, no_args_is_help=True, **SETTINGS,
                  help="reelforge: slot-game mathematics engine and game server.")


@app.callback()
def _root() -> None:
    """reelforge: slot-game mathematics engine and game server."""


def main() -> None:
    """Entry point: bad input is one line on stderr and exit status 2."""
    from reelforge.cli.common import CliError

    try:
        app()
    except CliError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
