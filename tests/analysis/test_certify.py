"""Certification packages: a killed and resumed run equals an uninterrupted one byte for byte, --verify
recomputes the figures and fails on one altered count, the package's report and figures carry what a
test lab checks. Small precisions and round counts (the default precision is a benchmark)."""

import hashlib
import json
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from reelforge.analysis import certify as cert
from reelforge.analysis.help_text import help_file
from reelforge.analysis.manifest import MANIFEST, sha256_file, verify_package
from reelforge.cli.certify import _finish
from reelforge.game.contract import SOURCE_OURS, SOURCE_PROVIDER, SOURCE_RULES
from reelforge.game.estimation import Sample
from reelforge.games.registry import get_game

# Forge of Gems, stratified: ten pilot pieces of 20,000 paid spins (2,000 features each), then growth to 3 pp
FOG = {"pilot_rounds": 200_000, "sample_rounds": 100_000, "feature_rounds_per_piece": 2_000}


def fog_plan(seed: int = 7, precision: float = 3.0) -> cert.Plan:
    game = get_game("forge-of-gems")
    return cert.choose_plan(game, game.load_build("96.2"), "paid", precision, seed, **FOG)


def tally_digests(out: Path) -> dict[str, str]:
    return {p.name: sha256_file(p) for p in sorted((out / cert.TALLIES).glob("*.npz"))}


def test_resume_refuses_a_folder_without_a_run_and_a_new_run_refuses_a_used_folder(tmp_path):
    with pytest.raises(cert.CertifyError, match="nothing to resume"):
        cert.run(tmp_path / "empty", None, resume=True)
    used = tmp_path / "used"
    used.mkdir()
    (used / "x").write_text("x")
    with pytest.raises(cert.CertifyError, match="not empty"):
        cert.run(used, fog_plan(), resume=False)


@pytest.fixture(scope="module")
def fog_package(tmp_path_factory):
    out = tmp_path_factory.mktemp("pkg") / "fog"
    plan = fog_plan(seed=11)
    plan.language = "de"   # certify --lang de: the help text in German beside the English report
    _finish(out, plan, False, 2, 300, False)
    return out


def test_a_fresh_package_verifies_and_has_ten_checkpoints_per_stream(fog_package):
    assert verify_package(fog_package) == []
    f = json.loads((fog_package / "figures.json").read_text())
    assert len(f["convergence"]["main"]) >= cert.MIN_CHECKPOINTS
    assert len(f["convergence"]["sample"]) == cert.MIN_CHECKPOINTS
    assert f["precision_met"] and f["precision_reached_pp"] <= 3.0
    manifest = json.loads((fog_package / MANIFEST).read_text())
    assert manifest["files"]["report.html"] == sha256_file(fog_package / "report.html")
    assert manifest["build"]["files"][0]["sha256"] == sha256_file(
        Path(get_game("forge-of-gems").build_files.folder) / "96.2.toml")
    for key in ("engine", "tools", "date", "seed", "rounds", "estimator", "rng_and_scaling"):
        assert manifest[key], key
    assert manifest["tools"]["numba"] and manifest["estimator"] == "stratified"
    named = manifest["estimator_method"]   # the estimator in words and its measured efficiency against plain
    assert "single free spins" in named["description"] and named["efficiency_vs_plain"]["ratio"] > 1
    assert f"efficiency against plain simulation: {named['efficiency_vs_plain']['ratio']:.1f}x" in \
        (fog_package / "report.html").read_text()


def _copy(src: Path, dst: Path) -> Path:
    subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
    return dst


def _alter_one_count(path: Path) -> None:
    s = Sample.load(path, "forge-of-gems", "split-spins")
    s.arrays["paid_first"] = s.arrays["paid_first"].copy()
    s.arrays["paid_first"][0, 2] += 1  # one paid spin's cascades more taken from 0 to 3 scatters
    s.save(path)


def _rehash(out: Path) -> None:
    m = json.loads((out / MANIFEST).read_text())
    m["files"] = {rel: sha256_file(out / rel) for rel in m["files"]}
    (out / MANIFEST).write_text(json.dumps(m))


def test_certify_lang_keeps_the_help_in_the_package_and_verify_checks_it(fog_package, tmp_path):
    kept = json.loads((fog_package / help_file("de")).read_text(encoding="utf-8"))
    assert kept["language"] == "de" and kept["help"]["page"]["paytable"]["title"] == "Gewinntabelle"
    assert help_file("de") in json.loads((fog_package / MANIFEST).read_text())["files"]
    assert "Hilfetext wie zertifiziert" in (fog_package / "report.html").read_text(encoding="utf-8")
    # a help text that is no longer the game's (a changed translation) fails the verification
    out = _copy(fog_package, tmp_path / "changed")
    kept["help"]["rules"][0] = "Ein anderer Text."
    (out / help_file("de")).write_text(json.dumps(kept), encoding="utf-8")
    problems = verify_package(out)
    assert any("SHA-256 differs" in p for p in problems)
    assert any("differs from the certified one" in p for p in problems)


def test_verify_fails_when_one_count_of_the_tally_file_is_altered(fog_package, tmp_path):
    out = _copy(fog_package, tmp_path / "a")
    _alter_one_count(out / "tallies" / "main.npz")
    problems = verify_package(out)
    assert any("tallies/main.npz: SHA-256 differs" in p for p in problems), problems
    # with the manifest's hashes rewritten to match, the figures still give it away
    _rehash(out)
    problems = verify_package(out)
    assert problems and any("not the merge of its" in p for p in problems), problems


def test_verify_recomputes_the_figures_from_an_altered_piece(fog_package, tmp_path):
    out = _copy(fog_package, tmp_path / "b")
    _alter_one_count(out / "tallies" / "main-003.npz")
    # the merged tally rebuilt from the altered piece, and every hash rewritten: only the figures differ
    est = get_game("forge-of-gems").stratified_estimator()
    merged = None
    for i in range(len(json.loads((out / cert.STATE).read_text())["main"])):
        piece = Sample.load(out / "tallies" / f"main-{i:03d}.npz", "forge-of-gems", "split-spins")
        merged = piece if merged is None else est.merge(merged, piece)
    merged.save(out / "tallies" / "main.npz")
    _rehash(out)
    problems = verify_package(out)
    assert any("figures.json: the figures recomputed from the tallies differ" in p for p in problems), problems


def test_the_package_names_each_targets_source_and_passes_or_fails_it(fog_package):
    f = json.loads((fog_package / "figures.json").read_text())
    assert {t["source"] for t in f["targets"]} <= {SOURCE_RULES, SOURCE_PROVIDER, SOURCE_OURS}
    rtp = next(t for t in f["targets"] if t["key"] == "rtp")
    lo, hi = f["summary"]["rtp_ci99"]
    # at 3 pp the interval cannot sit inside 96.2 +- 0.10 pp: the target fails, said so
    assert rtp["passed"] is False and rtp["ci99"] == [lo, hi] and rtp["source"] == SOURCE_PROVIDER
    cap = next(t for t in f["targets"] if t["kind"] == "reachable")
    assert cap["source"] == SOURCE_PROVIDER
    top = f["top_award"]
    assert top["method"] == "stratified" and top["ci99"][0] <= top["estimate"] <= top["ci99"][1]
    assert f["summary"]["max_win_source"] == SOURCE_PROVIDER
    html = (fog_package / "report.html").read_text()
    for heading in ("Identity", "Random numbers and method", "Measured against target", "Convergence", "Top award",
                    "Volatility index", "RTP by bet level", "Game cycle", "Per-feature breakdown: GEMBOX rewards",
                    "PAR sheet", "Lemire", "PCG64", "not enumerable"):
        assert heading.lower() in html.lower(), heading
    assert "Play&#x27;n GO Forge of Gems" not in html and "(forge-of-gems)" not in html


def test_gembox_rewards_add_up_and_bet_levels_are_whole_cents(fog_package):
    f = json.loads((fog_package / "figures.json").read_text())
    rows = f["feature_breakdown"]["rows"]
    assert len(rows) == 10  # nine rewards and the cap's correction
    s = f["summary"]
    # the rows add up to the GEMBOX part of the RTP
    assert sum(r[3] for r in rows) == pytest.approx(s["rtp_split"]["gembox"], rel=1e-9)
    assert rows[-1][3] == -s["extra"]["cap_correction"] <= 0
    levels = f["bet_levels"]
    assert [r["bet_cents"] for r in levels][0] == 20 and all(r["exact_cents"] for r in levels)


def test_feature_buy_package_is_priced_per_unit_of_price_without_intervals_on_certainties(tmp_path):
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    plan = cert.choose_plan(game, build, "buy", 20.0, 5, pilot_rounds=20_000)
    assert plan.estimator == "plain"
    _finish(tmp_path / "buy", plan, False, 2, 300, False)
    f = json.loads((tmp_path / "buy" / "figures.json").read_text())
    sheet = f["feature_buy_sheet"]
    price = float(Fraction(sheet["price_x"]))
    assert price == float(game.stake_x(build, "buy"))
    s = f["summary"]
    assert sheet["sd_per_price"] == pytest.approx(s["sd"] / price)
    assert sheet["mean_win_x"] == pytest.approx(s["rtp"] * price)
    assert f["targets"][0]["source"] == SOURCE_OURS and f["targets"][0]["target"] == pytest.approx(0.9671)
    html = (tmp_path / "buy" / "report.html").read_text()
    assert "Feature Buy sheet" in html and "none: certain" in html
    assert "trigger frequency" not in html and "RTP from paid spins" not in html
    assert f"{price:g}x total bet" in html
    assert verify_package(tmp_path / "buy") == []


def test_piece_seeds_are_distinct_and_stable():
    seeds = {cert.piece_seed(1, s, i) for s in cert.STREAMS for i in range(50)}
    assert len(seeds) == 100 and all(0 <= x < 2**63 for x in seeds)
    assert cert.piece_seed(1, "main", 0) == cert.piece_seed(1, "main", 0)


def test_the_deterministic_tally_writer_gives_equal_files_for_equal_samples(tmp_path):
    s = Sample("forge-of-gems", "strata", {"a": 1}, {"v": 0.1}, {"x": np.arange(3)})
    a, b = s.save(tmp_path / "a.npz"), s.save(tmp_path / "b.npz")
    time.sleep(1.1)
    c = s.save(tmp_path / "c.npz")
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest() == \
        hashlib.sha256(c.read_bytes()).digest()


@pytest.mark.slow
def test_the_pdf_is_printed_without_the_browsers_header_and_footer(fog_package, tmp_path):
    import shutil

    from reelforge.analysis.certificate_report import print_pdf

    if not any(shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome")):
        pytest.skip("no Chromium on this machine")
    html = _copy(fog_package, tmp_path / "p") / "report.html"
    pdf = print_pdf(html)
    assert pdf.read_bytes()[:5] == b"%PDF-"
    if shutil.which("pdftotext") is None:
        pytest.skip("no pdftotext to read the printed pages")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    # Chromium's own header prints the date ("12/2/26, 11:50 AM") and its footer the address on every page
    assert not re.search(r"\d+/\d+/\d+, \d+:\d+", text) and "file://" not in text
    assert "page 1 of" in text  # the report's own footer


@pytest.mark.parametrize("args, message", [
    (["forge-of-gems"], "give --out DIR"),
    (["--out", "{tmp}/x"], "give GAME"),
    (["forge-of-gems", "--out", "{tmp}/x", "--resume"], "--resume continues the run kept in --out"),
    (["--out", "{tmp}/x", "--resume"], "nothing to resume"),
    (["--verify", "{tmp}/none"], "no such package folder"),
    (["forge-of-gems", "--out", "{tmp}/x", "--mode", "buy"], "no round mode 'buy'"),
    (["forge-of-gems", "--out", "{tmp}/x", "--precision", "0"], "--precision"),
    (["forge-of-gems", "--out", "{tmp}/x", "--backend", "spark"], "unknown backend 'spark'"),
    (["forge-of-gems", "--out", "{tmp}/x", "--address", "10.0.0.1:6379"], "--address needs --backend ray"),
])
def test_bad_certify_requests_exit_2_with_one_line(tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "reelforge", "certify", *[a.format(tmp=tmp_path) for a in args]],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "x").exists()  # nothing written
