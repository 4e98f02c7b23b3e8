"""``reelforge rng-report``: the RNG description and test report a certification package carries."""

from __future__ import annotations

from pathlib import Path

import typer

from reelforge.cli.common import Count, fail
from reelforge.cli.output import console

SAMPLES = Count("--samples")


def rng_report(
    out: str = typer.Option(None, "--out", "-o", metavar="DIR", help="The folder to write the report into."),
    quick: bool = typer.Option(False, "--quick", help="A few dieharder tests at 10 p-samples each (minutes, not "
                               "hours); the report says it is quick."),
    samples: int = typer.Option(None, "--samples", metavar="N", parser=SAMPLES,
                                help="Draws per test of the engine's battery (default 1,000,000; 20,000 with --quick)."),
    dieharder: bool = typer.Option(None, "--dieharder/--no-dieharder",
                                   help="Require dieharder (fail without it), or skip it (default: run it where "
                                        "installed, else the report says it did not run)."),
) -> None:
    """The RNG description and test report (the engine's battery and dieharder, every p-value) that a
    certification package carries.

    It describes the generator, its seeding and the mapping of draws to outcomes, then runs the engine's own
    battery and dieharder on the live, provably fair and simulation streams (rng_report.json and
    rng_report.md in --out). `reelforge certify --rng-report DIR` puts it in a package."""
    from reelforge.ops.rng_report import RngReportError, build_report, write_report

    if out is None:
        fail("give --out DIR (the folder for rng_report.json and rng_report.md)")
    mode = "auto" if dieharder is None else "require" if dieharder else "off"
    try:
        report = build_report(samples or (20_000 if quick else 1_000_000), mode, quick,
                              log=lambda line: console.print(line))
    except RngReportError as exc:
        fail(str(exc))
    paths = write_report(Path(out), report)
    failed = [n for n, s in report["engine_battery"]["streams"].items() if not s["passed"]]
    console.print(f"RNG report ({report['mode']}) written to {paths[1]} and {paths[0].name}; engine battery: "
                  f"{'FAILED on ' + ', '.join(failed) if failed else 'all passed'}; dieharder: "
                  f"{'ran' if report['dieharder']['ran'] else report['dieharder']['note']}")
