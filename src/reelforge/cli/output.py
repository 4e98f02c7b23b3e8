"""The commands' text output: the Game Rules Summary as tables, and the simulation progress bar."""

from __future__ import annotations

import math
import sys
import time
from contextlib import contextmanager, nullcontext
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()


def pct(x: float | None) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:.4f}%"


def print_summary(s: dict[str, Any]) -> None:
    """A Game Rules Summary as a readable table (the report's figures, in words, with intervals)."""
    from reelforge.analysis.figures import bucket_words, figure_rows, interval_text
    from reelforge.core.numbers import one_in, pct

    pid = s.get("published_id", s.get("game_id"))
    title = f"{s['title']} ({'game id ' + str(pid) if pid else 'no published game id'}, v{s['version']}) - build {s['build']}"
    if s.get("mode", "paid") != "paid":
        title += f" - mode {s['mode']}"
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column("figure", style="bold", ratio=3)
    t.add_column("value", ratio=4)
    t.add_column("99% interval", ratio=4)
    if s["method"] == "exact":
        method = "exact"
    elif s["method"] == "stratified":
        method = (f"stratified estimate, {s['rounds']:,} paid spins + {s.get('feature_rounds', 0):,} features "
                  f"(seed {s.get('seed')})")
    else:
        method = f"simulation, {s['rounds']:,} rounds (seed {s.get('seed')})"
    t.add_row("method", method, "")
    est = s.get("estimator")
    if est:
        t.add_row("estimator", f"{est['used']}: {est['reason']}", "")
        if "precision_reached" in est:
            t.add_row("precision", f"99% half-width {s['rtp_ci99_half_width_pp']:.4f} pp, asked "
                      f"{est['requested_precision_pp']} pp ({'reached' if est['precision_reached'] else 'NOT reached'})",
                      "")
    for label, value, interval in figure_rows(s):
        t.add_row(label, value, interval)
    console.print(t)
    if not s["distribution"]:
        return
    exact = s["method"] == "exact"
    d = Table(title="Win distribution (per round, x total bet)", title_justify="left")
    d.add_column("round win")
    d.add_column("probability", justify="right")
    d.add_column("99% interval" + ("" if exact else " (exact binomial)"), justify="right")
    d.add_column("1 in", justify="right")
    for row in s["distribution"]:
        p = row["probability"]
        d.add_row(bucket_words(row, s["max_win_x"]), pct(p, 6), "exact" if exact else interval_text(row.get("ci99"), 6),
                  one_in(p).removeprefix("1 in "))
    console.print(d)


def progress_bar(total_rounds: int | None):
    """A context giving a rich progress callback (rounds, rounds/s, running RTP and interval), or None
    off a terminal."""
    if not sys.stdout.isatty():
        return nullcontext(None)
    return _progress(total_rounds)


@contextmanager
def _progress(total_rounds: int | None):
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(TextColumn("[bold]simulating"), BarColumn(), TextColumn("{task.fields[done]}"),
                        TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[rtp]}"), TimeRemainingColumn(),
                        console=console, transient=True)
    task = progress.add_task("sim", total=total_rounds, rate="", rtp="", done="")
    of = f"/{total_rounds:,}" if total_rounds else ""
    t0 = time.perf_counter()

    def update(acc) -> None:
        lo, hi = acc.rtp_ci99()
        rate = acc.rounds / max(time.perf_counter() - t0, 1e-9)
        progress.update(task, completed=acc.rounds, done=f"{acc.rounds:,}{of} rounds", rate=f"{rate:,.0f} rounds/s",
                        rtp=f"RTP {acc.rtp * 100:.4f}% [{lo * 100:.4f}, {hi * 100:.4f}]")

    with progress:
        yield update
