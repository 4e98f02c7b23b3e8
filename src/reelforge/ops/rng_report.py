"""The RNG test report a certification package carries: what generates the draws, how they are seeded and
mapped to outcomes (:data:`DESCRIPTION`, from :mod:`reelforge.core.draws`), and the tests they passed.

Three streams are tested, each as the engine uses it:

* **live**: :class:`~reelforge.core.draws.SecureDraws`, the operating system's CSPRNG (what a player's
  round draws from on a server without provably fair play);
* **provably fair**: :class:`~reelforge.ops.rng.FairRounds`, HMAC-SHA256 in counter mode, a fresh server
  seed and consecutive rounds of 40 draws (what a provably fair round draws from);
* **simulation**: :class:`~reelforge.core.draws.SeededDraws`, numpy's PCG64 from a fixed seed (what the
  certification runs draw from; deterministic, so its figures are the same on every run of the report).

Two batteries run on each: the engine's own (:func:`reelforge.ops.rng.run_battery`: chi-square uniformity
of the mapped draws for ten ranges, serial pairs, runs up and down, runs of a coin, the gap test; each
passes at p >= 0.01, a live stream's failure re-run once on fresh draws) and Debian's ``dieharder`` on
the raw 32-bit words (``dieharder -g 200 -Y 1`` reading the stream on its standard input: a WEAK result
is re-run by dieharder with more p-samples until it passes or fails, every row listed), where it is
installed. Without dieharder the report says it did not run (and why) rather than failing, unless the
caller asks for it (``require``). A dieharder test that does not finish within its time limit is reported
as not completed, never as passed.

The report is ``rng_report.json`` (every test, its sample size and p-value) and ``rng_report.md`` (the
same for a reader). :func:`attested_files` lists them for the package's manifest and :func:`reference`
gives what the package's identity cites (file names, SHA-256, verdicts).
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reelforge.core.draws import FAIR_ALGORITHM, MAX_N, SecureDraws, SeededDraws
from reelforge.ops.rng import ALPHA, FairRounds, run_battery, write_chunks, write_fair_raw, write_raw

FORMAT = "reelforge-rng-report/1"
JSON_NAME = "rng_report.json"
TEXT_NAME = "rng_report.md"
FOLDER = "rng"
"""Where a certification package keeps the report."""
SIMULATION_SEED = 2026
"""The seed of the simulation stream tested (any fixed seed: the report is then reproducible)."""

DESCRIPTION = {
    "draw": f"Every random decision of the rules is one uniform integer in [0, n), 1 <= n <= {MAX_N:,}.",
    "mapping": "A raw 32-bit word x gives floor(x * n / 2**32) (Lemire's multiply-shift), except that x is "
               "rejected and the next word taken when (x * n) mod 2**32 < (2**32 - n) mod n: the rejected words are "
               "exactly those that would make some results likelier than others, so every value of [0, n) has "
               "probability 1/n exactly (given uniform words). The readable rules and the numba kernels use the "
               "same mapping on the same words (tested draw for draw).",
    "generators": {
        "live": "The operating system's CSPRNG: each word is secrets.randbits(32), i.e. 4 bytes of os.urandom "
                "(Linux getrandom); nothing is seeded or stored by the engine; each round's draws are recorded "
                "with the round and replay it.",
        "provably_fair": f"{FAIR_ALGORITHM}: block i of round nonce is HMAC-SHA256(key = the 32-byte server seed, "
                         "message = '<client seed>:<nonce>:<i>'), giving eight big-endian 32-bit words; the server "
                         "seed comes from the OS CSPRNG and its SHA-256 is shown to the player before any bet "
                         "(docs/FAIRNESS.md).",
        "simulation": "numpy's PCG64 (128-bit LCG state, XSL-RR output), one 64-bit output per word, of which the "
                      "top 32 bits are the word. A certification run's integer seed gives each piece a 63-bit seed "
                      "(SeedSequence([seed, stream, piece])), and each piece's seed one stream per chunk of rounds "
                      "(SeedSequence(piece seed, spawn_key=(chunk,))): results depend on the seed and the sizes "
                      "only, never on the number of workers or machines.",
    },
}

QUICK_DIEHARDER = ((0, 10), (100, 10), (101, 10), (15, 10), (8, 10))
"""(dieharder test number, psamples) of the quick report: a few seconds each."""
STANDARD_DIEHARDER = tuple((d, None) for d in (0, 1, 3, 8, 9, 10, 11, 12, 13, 15, 16, 17, 100, 101, 102, 200,
                                              201, 202, 203, 204, 205))
"""The standard report: dieharder's tests rated Good, each at its own default number of p-samples."""
DIEHARDER_SECONDS = 300
"""Time limit of one dieharder test on one stream (a test past it is reported as not completed)."""


@dataclass(frozen=True)
class Stream:
    name: str
    title: str
    draws: Callable[[], Any]
    """A fresh draw source (for the engine's battery)."""
    raw: Callable[[int, Any], None]
    """``raw(nbytes, out)``: the stream's raw 32-bit words, little-endian, for dieharder."""
    fresh: bool
    """True where every run draws new numbers (a failing battery test is then re-run once)."""


def write_seeded_raw(nbytes: int, out=None, seed: int = SIMULATION_SEED) -> None:
    """The simulation stream's raw words (the top 32 bits of each PCG64 output, as SeededDraws takes them)."""
    bits = np.random.PCG64(seed)
    write_chunks(iter(lambda: (bits.random_raw(1 << 18) >> np.uint64(32)).astype("<u4").tobytes(), None), nbytes, out)


STREAMS = (
    Stream("live", "Live play: the OS CSPRNG (SecureDraws)", SecureDraws, write_raw, True),
    Stream("provably_fair", "Provably fair play: HMAC-SHA256 counter mode (fresh server seed, 40 draws a round)",
           FairRounds, write_fair_raw, True),
    Stream("simulation", f"Simulation: PCG64, seed {SIMULATION_SEED} (SeededDraws)",
           lambda: SeededDraws(SIMULATION_SEED), write_seeded_raw, False),
)


class RngReportError(RuntimeError):
    """The report cannot be made as asked (dieharder required but missing, unknown stream)."""


def dieharder_version() -> str | None:
    """dieharder's version where it is on the PATH, else None."""
    exe = shutil.which("dieharder")
    if exe is None:
        return None
    out = subprocess.run([exe, "-l"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"dieharder version (\S+)", out)
    return m.group(1) if m else "unknown"


_ROW = re.compile(r"^\s*(\S+)\|\s*(\d+)\|\s*(\d+)\|\s*(\d+)\|\s*([0-9.eE+-]+)\|\s*(\w+)")


def parse_dieharder(text: str) -> list[dict[str, Any]]:
    """The result rows of dieharder's table: test name, ntup, tsamples, psamples, p-value, assessment."""
    rows = []
    for line in text.splitlines():
        if (m := _ROW.match(line)) and m.group(1) != "test_name":
            rows.append({"test": m.group(1), "ntup": int(m.group(2)), "tsamples": int(m.group(3)),
                         "psamples": int(m.group(4)), "p": float(m.group(5)), "assessment": m.group(6)})
    return rows


def run_dieharder(stream: Stream, test: int, psamples: int | None, limit: float = DIEHARDER_SECONDS) -> dict[str, Any]:
    """One dieharder test on ``stream``'s raw words, piped from a child process of this engine."""
    # -Y 1: dieharder resolves an ambiguous (WEAK) result itself, re-running the test with more p-samples
    cmd = ["dieharder", "-g", "200", "-Y", "1", "-d", str(test)] + ([] if psamples is None else ["-p", str(psamples)])
    feed = [sys.executable, "-c", f"import sys; from reelforge.ops.rng_report import raw_stream; "
                                  f"raw_stream({stream.name!r}, 10**15)"]
    start = time.perf_counter()
    producer = subprocess.Popen(feed, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        done = subprocess.run(cmd, stdin=producer.stdout, capture_output=True, text=True, timeout=limit)
        rows, status = parse_dieharder(done.stdout), "completed" if done.returncode == 0 else "failed to run"
    except subprocess.TimeoutExpired:
        rows, status = [], f"not completed within {limit:.0f} s"
    finally:
        producer.stdout.close()
        producer.kill()
        producer.wait()
    if status == "completed" and not rows:
        status = "failed to run"
    return {"test_number": test, "psamples_asked": psamples, "status": status, "rows": rows,
            "seconds": round(time.perf_counter() - start, 1)}


def raw_stream(name: str, nbytes: int) -> None:
    """Write stream ``name``'s raw words to standard output (what dieharder reads)."""
    by_name = {s.name: s for s in STREAMS}
    if name not in by_name:
        raise RngReportError(f"unknown stream {name!r}; streams: {', '.join(by_name)}")
    by_name[name].raw(nbytes, None)


DieharderPlan = tuple[tuple[int, int | None], ...]


def build_report(samples: int = 1_000_000, dieharder: str = "auto", quick: bool = False,
                 streams: tuple[str, ...] | None = None, dieharder_tests: DieharderPlan | None = None,
                 log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run both batteries on every stream (or those named); ``dieharder`` is ``auto`` (where installed),
    ``require`` (RngReportError without it) or ``off``; ``dieharder_tests`` replaces the mode's
    (test number, p-samples) list."""
    if dieharder not in ("auto", "require", "off"):
        raise RngReportError(f"dieharder must be auto, require or off, not {dieharder!r}")
    chosen = [s for s in STREAMS if streams is None or s.name in streams]
    if streams is not None and len(chosen) != len(set(streams)):
        raise RngReportError(f"unknown stream in {', '.join(streams)}; streams: {', '.join(s.name for s in STREAMS)}")
    version = dieharder_version() if dieharder != "off" else None
    if dieharder == "require" and version is None:
        raise RngReportError("dieharder is not installed (Debian: apt-get install dieharder)")
    plan = dieharder_tests or (QUICK_DIEHARDER if quick else STANDARD_DIEHARDER)
    out: dict[str, Any] = {
        "format": FORMAT, "date": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "description": DESCRIPTION, "mode": "quick" if quick or dieharder_tests else "standard",
        "tools": {"python": platform.python_version(), "numpy": np.__version__, "platform": platform.platform(),
                  "dieharder": version},
        "engine_battery": {"alpha": ALPHA, "samples": samples, "streams": {}},
        "dieharder": {"ran": version is not None,
                      "note": None if version is not None else (
                          "not run: switched off by the caller" if dieharder == "off" else
                          "not run: dieharder is not installed on the machine that made this report"),
                      "streams": {}},
    }
    for s in chosen:
        log(f"engine battery on {s.name} ({samples:,} samples a test)")
        results = run_battery(s.draws(), samples, retry=s.fresh)
        out["engine_battery"]["streams"][s.name] = {"title": s.title, "tests": [asdict(r) for r in results],
                                                    "passed": all(r.passed for r in results)}
        if version is not None:
            runs = []
            for test, psamples in plan:
                log(f"dieharder -d {test} on {s.name}")
                runs.append(run_dieharder(s, test, psamples))
            out["dieharder"]["streams"][s.name] = {"title": s.title, "tests": runs}
    return out


def final_rows(rows: list[dict[str, Any]]) -> list[bool]:
    """For each row of one test's output, whether it is final: a row that ``-Y 1`` re-ran with more
    p-samples (a later row of the same test and ntup has more) is not."""
    most: dict[tuple[str, int], int] = {}
    for r in rows:
        most[r["test"], r["ntup"]] = max(most.get((r["test"], r["ntup"]), 0), r["psamples"])
    return [r["psamples"] == most[r["test"], r["ntup"]] for r in rows]


def dieharder_verdict(runs: list[dict[str, Any]]) -> dict[str, int]:
    """Counts of dieharder's final assessments (PASSED, WEAK, FAILED; a WEAK row re-run with more p-samples
    counts by its re-run) and of tests not completed."""
    counts: dict[str, int] = {}
    for run in runs:
        if run["status"] != "completed":
            counts["not completed"] = counts.get("not completed", 0) + 1
        for row, final in zip(run["rows"], final_rows(run["rows"]), strict=True):
            if final:
                counts[row["assessment"]] = counts.get(row["assessment"], 0) + 1
    return counts


def render_text(report: dict[str, Any]) -> str:
    """The report for a reader (Markdown): the description, then every test with its p-value."""
    d = report["description"]
    lines = [f"# RNG test report ({report['mode']})", "", f"Made {report['date']} on {report['tools']['platform']} "
             f"(Python {report['tools']['python']}, numpy {report['tools']['numpy']}, "
             f"dieharder {report['tools']['dieharder'] or 'not installed'}).", "", "## The generator", "",
             f"* Draws: {d['draw']}", f"* Mapping to outcomes: {d['mapping']}"]
    lines += [f"* {name.replace('_', ' ').capitalize()}: {text}" for name, text in d["generators"].items()]
    battery = report["engine_battery"]
    lines += ["", "## The engine's battery", "", f"Each test passes at p >= {battery['alpha']} (99% confidence); "
              "on a live stream a failing test is re-run once on fresh draws and fails only if it fails again.", ""]
    for s in battery["streams"].values():
        lines += [f"### {s['title']}: {'all passed' if s['passed'] else 'FAILED'}", "",
                  "| test | draws | p-value | re-run p-value | result |", "|---|---:|---:|---:|---|"]
        lines += [f"| {t['name']} | {t['samples']:,} | {t['p']:.4f} | "
                  f"{'' if t['p_retry'] is None else format(t['p_retry'], '.4f')} | "
                  f"{'passed' if t['passed'] else 'FAILED'} |" for t in s["tests"]]
        lines.append("")
    lines += ["## dieharder", ""]
    if not report["dieharder"]["ran"]:
        lines += [report["dieharder"]["note"] + ".", ""]
    for s in report["dieharder"]["streams"].values():
        verdict = ", ".join(f"{k} {v}" for k, v in sorted(dieharder_verdict(s["tests"]).items()))
        lines += [f"### {s['title']}: {verdict}", "", "| test | ntup | tsamples | psamples | p-value | assessment |",
                  "|---|---:|---:|---:|---:|---|"]
        for run in s["tests"]:
            if run["status"] != "completed":
                lines.append(f"| dieharder -d {run['test_number']} | | | | | {run['status']} |")
            lines += [f"| {r['test']} | {r['ntup']} | {r['tsamples']:,} | {r['psamples']} | {r['p']:.8f} | "
                      f"{r['assessment'] if final else r['assessment'] + ', re-run below with more p-samples'} |"
                      for r, final in zip(run["rows"], final_rows(run["rows"]), strict=True)]
        lines.append("")
    return "\n".join(lines)


def write_report(folder: Path, report: dict[str, Any]) -> list[Path]:
    """Write ``rng_report.json`` and ``rng_report.md`` into ``folder``; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / JSON_NAME, folder / TEXT_NAME]
    paths[0].write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    paths[1].write_text(render_text(report) + "\n")
    return paths


def read_report(folder: Path) -> dict[str, Any]:
    """The report kept in ``folder`` (RngReportError where there is none, or not of this format)."""
    path = Path(folder) / JSON_NAME
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise RngReportError(f"{path}: not an RNG report ({exc})") from exc
    if not isinstance(report, dict) or report.get("format") != FORMAT or not (Path(folder) / TEXT_NAME).is_file():
        raise RngReportError(f"{folder}: not an RNG report of this version (format {FORMAT}, with {TEXT_NAME})")
    return report


def copy_report(source: Path, folder: Path) -> list[Path]:
    """Copy a report made before (``reelforge rng-report``) into ``folder`` unchanged."""
    read_report(source)
    folder.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copyfile(Path(source) / name, folder / name)) for name in (JSON_NAME, TEXT_NAME)]


def attested_files(package: Path) -> list[Path]:
    """The RNG report's files in a certification package (what its manifest hashes and cites)."""
    return [p for p in (Path(package) / FOLDER / JSON_NAME, Path(package) / FOLDER / TEXT_NAME) if p.is_file()]
