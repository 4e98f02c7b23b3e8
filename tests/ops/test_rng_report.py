"""The RNG test report: it describes the generator, lists every test of the engine's battery and of dieharder
with its p-value, says so where dieharder is missing (and refuses when it is required), and a certification
package carries it under rng/, hashed by its manifest and cited by its identity."""

import hashlib
import json
import shutil

import pytest
from typer.testing import CliRunner

from reelforge.analysis import certify as cert
from reelforge.analysis.manifest import MANIFEST, verify_package
from reelforge.cli import app
from reelforge.cli.certify import _finish
from reelforge.cli.common import CliError
from reelforge.core.draws import SeededDraws
from reelforge.games.registry import get_game
from reelforge.ops import rng_report
from reelforge.ops.rng import run_battery

SIMULATION_ONLY = {"samples": 20_000, "streams": ("simulation",), "dieharder_tests": ((100, 5),)}


@pytest.fixture(scope="module")
def report_folder(tmp_path_factory):
    """A report of the simulation stream (deterministic) with one dieharder test where dieharder is installed."""
    folder = tmp_path_factory.mktemp("rng")
    rng_report.write_report(folder, rng_report.build_report(**SIMULATION_ONLY))
    return folder


def test_the_report_gives_every_test_and_p_value_of_the_engine_battery_and_dieharder(report_folder):
    report = json.loads((report_folder / rng_report.JSON_NAME).read_text())
    text = (report_folder / rng_report.TEXT_NAME).read_text()
    expected = run_battery(SeededDraws(rng_report.SIMULATION_SEED), 20_000, retry=False)
    tests = report["engine_battery"]["streams"]["simulation"]["tests"]
    assert [(t["name"], t["samples"], t["p"]) for t in tests] == [(r.name, r.samples, r.p) for r in expected]
    for t in tests:
        assert f"| {t['name']} | {t['samples']:,} | {t['p']:.4f} |" in text
    assert report["mode"] == "quick" and "Lemire" in text and "PCG64" in text and "HMAC-SHA256" in text
    if shutil.which("dieharder") is None:  # CI installs it (.ci/install-dieharder.sh); elsewhere it may be missing
        assert not report["dieharder"]["ran"] and "not installed" in text
        return
    (run,) = report["dieharder"]["streams"]["simulation"]["tests"]
    (row,) = run["rows"]
    assert run["status"] == "completed" and row["test"] == "sts_monobit" and row["psamples"] == 5
    assert 0 <= row["p"] <= 1 and row["assessment"] in ("PASSED", "WEAK", "FAILED")
    assert f"| sts_monobit | 1 | 100,000 | 5 | {row['p']:.8f} | {row['assessment']} |" in text


def test_without_dieharder_the_report_says_so_and_a_request_for_it_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine where dieharder is not installed
    report = rng_report.build_report(samples=20_000, streams=("simulation",))
    assert report["dieharder"] == {"ran": False, "streams": {},
                                   "note": "not run: dieharder is not installed on the machine that made this report"}
    assert report["engine_battery"]["streams"]["simulation"]["passed"]
    with pytest.raises(rng_report.RngReportError, match="dieharder is not installed"):
        rng_report.build_report(samples=20_000, dieharder="require", streams=("simulation",))
    refused(["rng-report", "--out", str(tmp_path / "r"), "--dieharder"], "dieharder is not installed")
    assert not (tmp_path / "r").exists()  # refused before anything was written
    refused(["certify", "forge-of-gems", "--out", str(tmp_path / "p"), "--dieharder"], "dieharder is not installed")
    assert not (tmp_path / "p").exists()


def refused(args: list[str], message: str) -> None:
    """The command refuses with ``message`` (the one-line error the command line prints, exit 2)."""
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, CliError) and message in str(result.exception), result.output


def test_certify_refuses_a_folder_that_holds_no_rng_report(tmp_path):
    refused(["certify", "forge-of-gems", "--out", str(tmp_path / "p"), "--rng-report", str(tmp_path)],
            "not an RNG report")
    assert not (tmp_path / "p").exists()


def test_a_package_carries_the_rng_report_hashed_and_cited_and_verify_sees_it_altered(report_folder, tmp_path):
    game = get_game("forge-of-gems")
    plan = cert.choose_plan(game, game.load_build("96.2"), "paid", 50.0, 7, pilot_rounds=20_000,
                            sample_rounds=10_000, feature_rounds_per_piece=200, exploratory=True)
    out = tmp_path / "pkg"
    _finish(out, plan, False, 1, 300, False, rng={"copy": report_folder})
    for name in (rng_report.JSON_NAME, rng_report.TEXT_NAME):
        assert (out / "rng" / name).read_bytes() == (report_folder / name).read_bytes()
    manifest = json.loads((out / MANIFEST).read_text())
    attested = {a["path"]: a["what"] for a in manifest["attested"]}
    assert list(attested) == [str(p.relative_to(out)) for p in rng_report.attested_files(out)] == [
        "rng/rng_report.json", "rng/rng_report.md"]
    assert all(manifest["files"][name] == hashlib.sha256((out / name).read_bytes()).hexdigest() for name in attested)
    assert "rng/rng_report.md (RNG description and test report)" in (out / "report.html").read_text()
    assert verify_package(out, unsigned=True, allow_dirty_engine=True) == []
    text = out / "rng" / rng_report.TEXT_NAME
    text.write_text(text.read_text().replace("passed", "PASSED", 1))
    assert "rng/rng_report.md: SHA-256 differs from the manifest's" in verify_package(
        out, unsigned=True, allow_dirty_engine=True)


def test_the_raw_simulation_stream_dieharder_reads_is_the_words_the_seeded_draws_use():
    import io

    import numpy as np

    buf = io.BytesIO()
    rng_report.write_seeded_raw(4 * 1000 + 3, buf)  # a length that ends inside a word
    assert len(buf.getvalue()) == 4003
    source = SeededDraws(rng_report.SIMULATION_SEED)
    assert np.frombuffer(buf.getvalue()[:4000], dtype="<u4").tolist() == [source.raw32() for _ in range(1000)]


# dieharder -Y 1's output where diehard_runs was WEAK at 10 p-samples and passed when re-run at 110
RESOLVED = """        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
        diehard_runs|   0|    100000|      10|0.99689073|   WEAK
        diehard_runs|   0|    100000|      10|0.04127510|  PASSED
        diehard_runs|   0|    100000|     110|0.90990929|  PASSED
        diehard_runs|   0|    100000|     110|0.88698950|  PASSED
"""


def test_a_weak_result_that_dieharder_re_ran_counts_by_its_re_run():
    rows = rng_report.parse_dieharder(RESOLVED)
    assert [(r["psamples"], r["p"], r["assessment"]) for r in rows] == [
        (10, 0.99689073, "WEAK"), (10, 0.04127510, "PASSED"), (110, 0.90990929, "PASSED"), (110, 0.88698950, "PASSED")]
    assert rng_report.final_rows(rows) == [False, False, True, True]
    assert rng_report.dieharder_verdict([{"status": "completed", "rows": rows}]) == {"PASSED": 2}
    assert rng_report.dieharder_verdict([{"status": "not completed within 300 s", "rows": []}]) == {"not completed": 1}
