"""``reelforge export stake``: a game as Stake Engine's static math files, and their check (docs/STAKE.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from reelforge.cli.common import BUILD_OPT, SEED, Count, fail, load
from reelforge.cli.lazy import SETTINGS

app = typer.Typer(no_args_is_help=True, **SETTINGS,
                  help="Export a game for another platform (stake: Stake Engine's static math files).")



@app.callback()
def _export() -> None:
    """Export a game for another platform (stake: Stake Engine's static math files)."""


class PerMode:
    """A count for every mode (``1e8``) or one per mode in --modes order (``1e9,1e8``)."""

    def __init__(self, option: str) -> None:
        self.count = Count(option)

    def __call__(self, value: str) -> list[int]:
        return [self.count(v) for v in value.split(",")]


ROUNDS = PerMode("--rounds")
BOOKS = PerMode("--books")
EXPORT_SEED = 2026
DEFAULT_ROUNDS = 10_000_000


def _print_check(result: object, as_json: bool) -> None:
    from reelforge.analysis.stake.format import CheckResult

    assert isinstance(result, CheckResult)
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        return
    for m in result.modes:
        f = m.to_json()
        one_in = f"1 in {f['max_win_one_in']:,.0f}" if f["max_win_one_in"] else "never"
        sys.stdout.write(f"{m.name} (cost {m.cost:g}): RTP {f['rtp']:.6%}, hit rate {f['hit_rate']:.4%}, "
                         f"max win {f['max_win_x']:,.1f}x ({one_in}), {m.books:,} books, "
                         f"{m.distinct_payouts:,} payouts, total weight {m.total_weight:,}\n")
    for rtp_a, rtp_b in zip(result.modes, result.modes[1:], strict=False):
        sys.stdout.write(f"{rtp_a.name} - {rtp_b.name}: {float(rtp_a.rtp - rtp_b.rtp) * 100:+.4f} pp\n")


@app.command("stake")
def stake(
    game: str = typer.Argument(None, metavar="GAME", help="Game id (see `reelforge games`)."),
    build: str = BUILD_OPT,
    out: str = typer.Option(None, "--out", "-o", metavar="DIR", help="The package folder to write."),
    modes: str = typer.Option(None, "--modes", metavar="LIST",
                              help="Stake modes, comma-separated: base (the paid spin), bonus (the Feature Buy); "
                                   "default every one the game has."),
    books: str = typer.Option(None, "--books", metavar="N[,N]",
                                    help="Books per mode, or one count per mode in --modes order (default: one per "
                                         "payout on the grid, the whole distribution)."),
    rounds: str = typer.Option(None, "--rounds", metavar="N[,N]",
                                     help="Rounds the kernel plays for each mode's win distribution, or one count per "
                                          "mode in --modes order (default 1e7)."),
    seed: int = typer.Option(None, "--seed", metavar="SEED", parser=SEED, help="Seed (default 2026)."),
    anchor: str = typer.Option(None, "--anchor", metavar="FILE",
                               help="Certified figures to meet exactly, per mode (JSON: {\"base\": {\"rtp\": ..., "
                                    "\"hit_rate\": ..., \"feature_rate\": ..., \"max_win_rate\": ...}})."),
    exact: bool = typer.Option(True, "--exact/--sample",
                               help="Anchor the paid mode to the game's exact figures where it has them (default), or "
                                    "keep the sample's own."),
    check: str = typer.Option(None, "--check", metavar="DIR",
                              help="Check a package as Stake's upload does; print each mode's figures "
                                   "(exit 2 with one line per rule broken)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
) -> None:
    """Export a game as Stake Engine's static math files: index.json, a lookup table and books per mode.

    The table is the game's win distribution on Stake's 0.1x grid (a win between two steps pays the step
    below or above with the chances that keep its mean), one book per payout: docs/STAKE.md."""
    from reelforge.analysis.stake.export import STAKE_MODES, export_stake, read_anchors
    from reelforge.analysis.stake.format import check as check_package
    from reelforge.analysis.stake.table import TableError

    if check is not None:
        if game is not None or out is not None or anchor is not None or modes is not None or books is not None:
            fail("--check DIR checks a package: give it alone (with --json if wanted)")
        if not Path(check).is_dir():
            fail(f"--check {check}: no such folder")
        result = check_package(Path(check))
        _print_check(result, as_json)
        for problem in result.problems:
            sys.stderr.write(f"error: {problem}\n")
        if not result.ok:
            raise typer.Exit(2)
        return
    if game is None or out is None:
        fail("give GAME and --out DIR (or --check DIR)")
    g, b = load(game, build)
    wanted = [m.strip() for m in modes.split(",")] if modes else [n for n, m in STAKE_MODES.items() if m in g.modes]

    def per_mode(text: str | None, option: str, default: int | None) -> dict[str, int | None]:
        if text is None:
            return dict.fromkeys(wanted, default)
        values = (ROUNDS if option == "--rounds" else BOOKS)(text)
        if len(values) not in (1, len(wanted)):
            fail(f"{option}: one count, or one per mode ({len(wanted)}: {', '.join(wanted)}), got {len(values)}")
        return dict(zip(wanted, values * len(wanted) if len(values) == 1 else values, strict=True))

    try:
        anchors = read_anchors(Path(anchor)) if anchor else {}
        done = export_stake(g, b, Path(out), wanted, per_mode(rounds, "--rounds", DEFAULT_ROUNDS),  # type: ignore[arg-type]
                            EXPORT_SEED if seed is None else seed, per_mode(books, "--books", None), anchors,
                            log=lambda line: sys.stderr.write(line + "\n"), use_exact=exact)
    except TableError as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps({"game": g.id, "build": b.name, "out": out,
                                     "modes": [m.to_json() for m in done]}, indent=2) + "\n")
        return
    for m in done:
        t = m.table
        sys.stdout.write(f"{m.name} ({m.game_mode}, cost {float(m.cost):g}): {m.books:,} books; table RTP {t['rtp']:.6%}, "
                         f"hit rate {t['hit_rate']:.4%}, feature {t['feature_rate']:.4%}, max win {t['max_win_x']:,.1f}x "
                         f"1 in {t['max_win_one_in']:,.0f}; sample of {m.sample['rounds']:,} rounds: RTP "
                         f"{m.sample['rtp']:.6%}\n")
