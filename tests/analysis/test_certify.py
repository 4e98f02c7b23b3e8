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
from reelforge.analysis.certify_figures import merged_points
from reelforge.analysis.help_text import help_file
from reelforge.analysis.manifest import MANIFEST, check_package, package_files, sha256_file, verify_package
from reelforge.analysis.signing import SIGNATURE, generate_key, load_private_key, sign, signer
from reelforge.cli.certify import _finish
from reelforge.game.estimation import Sample
from reelforge.game.reporting import SOURCE_DESIGN, SOURCE_OURS, SOURCE_PROVIDER, SOURCE_RULES
from reelforge.games.registry import GAME_CLASSES, get_game

# Forge of Gems, stratified: ten pilot pieces of 20,000 paid spins (2,000 features each), then growth to 3 pp
FOG = {"pilot_rounds": 200_000, "sample_rounds": 100_000, "feature_rounds_per_piece": 2_000}


def fog_plan(seed: int = 7, precision: float = 3.0) -> cert.Plan:
    game = get_game("forge-of-gems")
    return cert.choose_plan(game, game.load_build("96.2"), "paid", precision, seed, **FOG, exploratory=True)


def verify(out: Path, **options) -> list[str]:
    """verify_package on a working tree that may have local changes (the engine check has tests of its own)."""
    return verify_package(out, allow_dirty_engine=True, **options)


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
def signing_key(tmp_path_factory):
    private, _ = generate_key(tmp_path_factory.mktemp("keys"))
    return load_private_key(private)


@pytest.fixture(scope="module")
def fog_package(tmp_path_factory, signing_key):
    out = tmp_path_factory.mktemp("pkg") / "fog"
    plan = fog_plan(seed=11)
    plan.language = "de"   # certify --lang de: the help text in German beside the English report
    _finish(out, plan, False, 2, 300, False, key=signing_key)
    return out


def test_a_fresh_package_verifies_and_has_ten_checkpoints_per_stream(fog_package):
    assert verify(fog_package) == []
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


@pytest.mark.parametrize("game_id", [g for g in GAME_CLASSES if get_game(g).capabilities.stratified])
def test_every_stratified_estimator_a_package_uses_is_named_with_its_measured_efficiency(game_id):
    # a package names the method behind its RTP and how it compares with plain simulation (issue 36)
    from reelforge.analysis.manifest import estimator_words

    named = estimator_words(get_game(game_id), "stratified")
    assert len(named.get("description", "")) > 40, named
    assert named["efficiency_vs_plain"]["ratio"] > 1 and "docs/performance.md" in named["efficiency_vs_plain"]["how"]


def _copy(src: Path, dst: Path) -> Path:
    subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
    return dst


def _alter_one_count(path: Path) -> None:
    s = Sample.load(path, "forge-of-gems", "split-spins")
    s.arrays["paid_first"] = s.arrays["paid_first"].copy()
    s.arrays["paid_first"][0, 2] += 1  # one paid spin's cascades more taken from 0 to 3 scatters
    s.save(path)


def _rehash(out: Path, key=None) -> None:
    """The manifest's hashes rewritten to the files, and signed again with ``key`` where given (a forger with the
    supplier's key: only the checks beyond hashes and signature can catch what was changed)."""
    m = json.loads((out / MANIFEST).read_text())
    m["files"] = {str(p.relative_to(out)): sha256_file(p) for p in package_files(out)}
    data = json.dumps(m).encode()
    (out / MANIFEST).write_bytes(data)
    if key is not None:
        (out / SIGNATURE).write_text(sign(data, key))


def test_certify_lang_keeps_the_help_in_the_package_and_verify_checks_it(fog_package, tmp_path):
    kept = json.loads((fog_package / help_file("de")).read_text(encoding="utf-8"))
    assert kept["language"] == "de" and kept["help"]["page"]["paytable"]["title"] == "Gewinntabelle"
    assert help_file("de") in json.loads((fog_package / MANIFEST).read_text())["files"]
    assert "Hilfetext wie zertifiziert" in (fog_package / "report.html").read_text(encoding="utf-8")
    # a help text that is no longer the game's (a changed translation) fails the verification
    out = _copy(fog_package, tmp_path / "changed")
    kept["help"]["rules"][0] = "Ein anderer Text."
    (out / help_file("de")).write_text(json.dumps(kept), encoding="utf-8")
    problems = verify(out)
    assert any("SHA-256 differs" in p for p in problems)
    assert any("differs from the certified one" in p for p in problems)


def test_verify_fails_when_one_count_of_the_tally_file_is_altered(fog_package, tmp_path):
    out = _copy(fog_package, tmp_path / "a")
    _alter_one_count(out / "tallies" / "main.npz")
    problems = verify(out)
    assert any("tallies/main.npz: SHA-256 differs" in p for p in problems), problems
    # with the manifest's hashes rewritten to match, the figures still give it away
    _rehash(out)
    problems = verify(out)
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
    problems = verify(out)
    assert any("figures.json: the figures recomputed from the tallies differ" in p for p in problems), problems


def test_the_package_names_each_targets_source_and_passes_or_fails_it(fog_package):
    f = json.loads((fog_package / "figures.json").read_text())
    assert {t["source"] for t in f["targets"]} <= {SOURCE_RULES, SOURCE_PROVIDER, SOURCE_OURS, SOURCE_DESIGN}
    assert all("GAMES.md section 3" in t["document"] for t in f["targets"])  # every target cites its document
    rtp = next(t for t in f["targets"] if t["key"] == "rtp")
    lo, hi = f["summary"]["rtp_ci99"]
    # at 3 pp the interval cannot sit inside 96.2 +- 0.10 pp: the target fails, said so
    assert rtp["passed"] is False and rtp["ci99"] == [lo, hi] and rtp["source"] == SOURCE_DESIGN
    cap = next(t for t in f["targets"] if t["kind"] == "reachable")
    assert cap["source"] == SOURCE_DESIGN
    top = f["top_award"]
    assert top["method"] == "stratified" and top["ci99"][0] <= top["estimate"] <= top["ci99"][1]
    assert f["summary"]["max_win_source"].startswith("design document GAMES.md, section 3")
    html = (fog_package / "report.html").read_text()
    for heading in ("Identity", "Random numbers and method", "Measured against target", "Convergence", "Top award",
                    "Volatility index", "RTP by bet level", "Game cycle", "Per-feature breakdown: GEMBOX rewards",
                    "PAR sheet", "Lemire", "PCG64", "not enumerable"):
        assert heading.lower() in html.lower(), heading
    assert "Play&#x27;n GO Forge of Gems" not in html and "(forge-of-gems)" not in html


def test_gembox_rewards_add_up_and_bet_levels_are_whole_cents(fog_package):
    f = json.loads((fog_package / "figures.json").read_text())
    table = f["feature_breakdown"]
    rows = table["rows"]
    assert len(rows) == 10  # nine rewards and the cap's correction
    s = f["summary"]
    share = table["formats"].index("pp")
    # the rows add up to the GEMBOX part of the RTP
    assert sum(r[share] for r in rows) == pytest.approx(s["rtp_split"]["gembox"], rel=1e-9)
    assert rows[-1][share] == -s["extra"]["cap_correction"] <= 0
    # every simulated cell has its 99% interval around it (an instant prize's mean is exact), and the note says the
    # sample sizes the intervals rest on
    for row in rows:
        for col, fmt in enumerate(table["formats"]):
            if fmt.endswith("_ci") and row[col - 1] is not None:
                ci = row[col]
                assert ci == "exact" if col == 4 and "free spins" not in row[0] else ci[0] <= row[col - 1] <= ci[1], row
    assert f"{s['rounds']:,} paid spins" in table["note"] and "single free spins" in table["note"]
    levels = f["bet_levels"]
    assert [r["bet_cents"] for r in levels][0] == 20 and all(r["exact_cents"] for r in levels)


def test_feature_buy_package_is_priced_per_unit_of_price_without_intervals_on_certainties(tmp_path):
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    plan = cert.choose_plan(game, build, "buy", 20.0, 5, pilot_rounds=20_000, exploratory=True)
    assert plan.estimator == "plain"
    _finish(tmp_path / "buy", plan, False, 2, 300, False)
    f = json.loads((tmp_path / "buy" / "figures.json").read_text())
    sheet = f["feature_buy_sheet"]
    price = float(Fraction(sheet["price_x"]))
    assert price == float(game.stake_x(build, "buy"))
    s = f["summary"]
    assert sheet["sd_per_price"] == pytest.approx(s["sd"] / price)
    assert sheet["mean_win_x"] == pytest.approx(s["rtp"] * price)
    assert f["targets"][0]["source"] == SOURCE_DESIGN and f["targets"][0]["target"] == pytest.approx(0.9671)
    html = (tmp_path / "buy" / "report.html").read_text()
    assert "Feature Buy sheet" in html and "none: certain" in html
    assert "trigger frequency" not in html and "RTP from paid spins" not in html
    assert f"{price:g}x total bet" in html
    assert verify(tmp_path / "buy", unsigned=True) == []


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


def certify_command(args: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    """``reelforge certify ARGS`` through the command line's entry point (``reelforge.cli.main``, what ``python -m
    reelforge`` runs) in this process: its exit status, stdout and stderr. A Python process of its own per call cost
    about 1 CPU s of start-up; tests/test_cli.py runs the command line in processes of its own."""
    from reelforge.cli import main

    monkeypatch.setattr(sys, "argv", ["reelforge", "certify", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    out, err = capsys.readouterr()
    return exited.value.code or 0, out, err


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
    (["gemstones-gold", "--out", "{tmp}/x", "--precision", "0.05"], "wider than half the tightest RTP tolerance"),
    (["gemstones-gold", "--out", "{tmp}/x", "--key", "{tmp}/none.pem"], "none.pem: no such key file"),
    (["--verify", "{tmp}", "--resimulate", "-1"], "--resimulate must be a whole number"),
    (["forge-of-gems", "--out", "{tmp}/x", "--unsigned"], "go with --verify DIR"),
    (["keygen", "--out", "{tmp}/x", "--seed", "3"], "certify keygen takes --out DIR alone"),
])
def test_bad_certify_requests_exit_2_with_one_line(tmp_path, args, message, capsys, monkeypatch):
    code, out, err = certify_command([a.format(tmp=tmp_path) for a in args], capsys, monkeypatch)
    assert code == 2, (out, err)
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x").exists()  # nothing written


# -- issue 35: one verdict rule, the precision refused, the package tied to its data ------------------------------
def test_a_target_passes_only_when_its_whole_interval_lies_inside_the_band():
    from reelforge.analysis.certificate import target_rows

    band = {"figure": "RTP", "key": "rtp", "target": 0.9671, "tolerance": 0.0005, "source": SOURCE_RULES,
            "unit": "%", "note": "", "kind": "interval"}
    simulated = {"method": "stratified", "rtp": 0.9671, "rtp_ci99": [0.9660, 0.9682]}  # centre inside, ends outside
    row = target_rows([band], simulated, {})[0]
    assert row["passed"] is False and "reaches 0.0600 pp outside the band (the estimate is inside it)" in row["verdict"]
    assert target_rows([band], {**simulated, "rtp_ci99": [0.9667, 0.9675]}, {})[0]["passed"] is True
    # a simulated figure without an interval is not judged on its value; an exact one is
    assert target_rows([band], {"method": "stratified", "rtp": 0.9671}, {})[0]["passed"] is False
    assert target_rows([band], {"method": "exact", "rtp": 0.9671}, {})[0]["passed"] is True
    # a volatility level: every level the SD's interval touches must meet it
    level = {**band, "figure": "volatility level", "key": "volatility_level", "target": 8, "tolerance": None,
             "kind": "at_least"}
    spans = {"method": "stratified", "volatility_level": 8, "volatility_levels_ci99": [7, 8, 9]}
    assert target_rows([level], spans, {})[0]["passed"] is False
    assert target_rows([level], {**spans, "volatility_levels_ci99": [8, 9]}, {})[0]["passed"] is True
    # PASS, FAIL or UNDECIDED: straddling the band's edge, or spanning levels on both sides, decides nothing
    status = {name: target_rows([t], summary, {})[0]["status"] for name, t, summary in (
        ("straddles", band, simulated), ("inside", band, {**simulated, "rtp_ci99": [0.9667, 0.9675]}),
        ("outside", band, {**simulated, "rtp_ci99": [0.9600, 0.9660]}), ("no interval", band, {"method": "stratified", "rtp": 0.9671}),
        ("levels 7-9", level, spans), ("levels 6-7", level, {**spans, "volatility_levels_ci99": [6, 7]}),
        ("no SD interval", level, {"method": "stratified", "volatility_level": 8}))}
    assert status == {"straddles": "undecided", "inside": "pass", "outside": "fail", "no interval": "undecided",
                      "levels 7-9": "undecided", "levels 6-7": "fail", "no SD interval": "undecided"}
    assert "unknown" not in target_rows([level], {"method": "stratified", "volatility_level": 8}, {})[0]["verdict"]
    reachable = {**band, "figure": "maximum win reachable", "key": "max_win_reachable", "kind": "reachable"}
    assert [target_rows([reachable], {"method": "stratified"}, {"observed_count": n})[0]["status"] for n in (0, 2)] == [
        "undecided", "pass"]
    # Gemstones Gold's targets (once judged on the point) follow the same rule
    game = get_game("gemstones-gold")
    assert {t.kind for t in game.report().certification_targets(game.load_build("96.71"))} == {
        "interval", "at_least", "reachable"}


def test_a_precision_wider_than_half_the_tightest_rtp_tolerance_is_refused_unless_exploratory():
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    assert cert.widest_precision_pp(game, build, "paid") == pytest.approx(0.025)  # RTP +-0.05 pp
    assert cert.default_precision_pp(game, build, "paid") == pytest.approx(0.025)
    with pytest.raises(cert.CertifyError, match=r"wider than half the tightest RTP tolerance \(0.025 pp\)"):
        cert.choose_plan(game, build, "paid", 0.05, 1)
    assert cert.choose_plan(game, build, "paid", 0.025, 1).exploratory is False
    assert cert.choose_plan(game, build, "paid", 0.05, 1, exploratory=True).exploratory is True
    assert cert.choose_plan(game, build, "buy", None, 1).precision_pp == cert.DEFAULT_PRECISION_PP  # +-0.5 pp


def test_an_exploratory_package_says_it_is_not_for_certification(fog_package):
    from reelforge.analysis.manifest import NOT_FOR_CERTIFICATION

    assert json.loads((fog_package / MANIFEST).read_text())["for_certification"] is False
    html = (fog_package / "report.html").read_text()
    assert html.count(NOT_FOR_CERTIFICATION) >= 3  # the title, the banner, the identity block
    assert f'@top-center {{ content: "{NOT_FOR_CERTIFICATION}"' in html  # on every printed page


def test_the_manifest_and_the_report_name_the_game_its_rules_and_every_source_file(fog_package):
    from html import escape

    from reelforge.analysis.manifest import CONTENT_HASH_DEFINITION

    m = json.loads((fog_package / MANIFEST).read_text())
    game = get_game("forge-of-gems")
    assert m["provider"] == game.provider and m["game"]["version"] == "1.0" and m["build"]["version"] == "3.1"
    assert m["rules_document"]["sha256"] == game.rules_document.sha256
    assert m["game_sources_sha256"]["games/forge_of_gems/game.py"] == sha256_file(
        Path(sys.modules[type(game).__module__].__file__))
    assert "analysis/certify.py" in m["engine"]["modules_sha256"] and m["build"]["content_hash"]
    assert m["report"] == {"par_rounds": 300, "help_language": "de"} and m["resumes"] == []
    assert m["date"] == json.loads((fog_package / cert.STATE).read_text())["finished_at"]
    html = (fog_package / "report.html").read_text()
    for words in ("provider", "rules document", game.rules_document.sha256, "build version", "game version is",
                  escape(CONTENT_HASH_DEFINITION), m["signer"]["fingerprint_sha256"]):
        assert words in html, words


def _tampered(fog_package: Path, tmp_path: Path, name: str) -> Path:
    return _copy(fog_package, tmp_path / name)


def test_verify_fails_an_edited_report_whose_hash_and_signature_were_updated(fog_package, tmp_path, signing_key):
    out = _tampered(fog_package, tmp_path, "report")
    html = (out / "report.html").read_text()
    rtp = json.loads((out / "figures.json").read_text())["summary"]["rtp"]
    shown = f"{rtp * 100:.4f}%"
    assert shown in html
    (out / "report.html").write_text(html.replace(shown, f"{rtp * 100 + 0.0005:.4f}%"))
    _rehash(out, signing_key)
    problems = verify(out, resimulate=0)
    assert problems == [p for p in problems if "report.html: differs from the report re-rendered" in p] != []


def test_verify_fails_an_edited_identity(fog_package, tmp_path, signing_key):
    out = _tampered(fog_package, tmp_path, "ident")
    m = json.loads((out / MANIFEST).read_text())
    m["engine"]["git_commit"], m["seed"], m["date"] = "0" * 40, 12, "2026-01-01T00:00:00+00:00"
    m["build"]["content_hash"] = "f" * 64
    (out / MANIFEST).write_text(json.dumps(m))
    _rehash(out, signing_key)  # the report too would differ: it shows the identity; the identity is checked itself
    problems = [p for p in verify(out, resimulate=0) if "its identity differs" in p]
    assert [p.split("engine (")[1].split(":")[0] for p in problems] == [
        "build.content_hash", "date", "engine.git_commit", "seed"], problems


def test_verify_fails_an_extra_file_even_a_tmp_one(fog_package, tmp_path):
    out = _tampered(fog_package, tmp_path, "extra")
    (out / "tallies" / "main.npz.tmp").write_bytes(b"x")
    assert verify(out, resimulate=0) == ["tallies/main.npz.tmp: not in the manifest (every file of a package must "
                                         "be listed)"]


def test_verify_fails_a_package_without_signature_unless_told_and_then_says_so(fog_package, tmp_path):
    out = _tampered(fog_package, tmp_path, "unsigned")
    (out / SIGNATURE).unlink()
    assert verify(out, resimulate=0) == ["manifest.sig: missing: the package is not signed (certify --key signs it; "
                                         "--verify DIR --unsigned checks an unsigned package and says so)"]
    checked = check_package(out, unsigned=True, allow_dirty_engine=True, resimulate=0)
    assert checked.problems == [] and any(n.startswith("--unsigned: the package has no signature") for n in checked.notes)


def test_verify_fails_a_signature_by_another_key_or_of_another_manifest(fog_package, tmp_path):
    out = _tampered(fog_package, tmp_path, "wrong")
    other = load_private_key(generate_key(tmp_path / "other")[0])
    (out / SIGNATURE).write_text(sign((out / MANIFEST).read_bytes(), other))
    assert any("the signature does not match manifest.json" in p for p in verify(out, resimulate=0))
    # the whole package signed again by another key: valid, but not the key the lab was told of
    expected = json.loads((out / MANIFEST).read_text())["signer"]["fingerprint_sha256"]
    m = json.loads((out / MANIFEST).read_text())
    m["signer"] = signer(other)
    (out / MANIFEST).write_text(json.dumps(m))
    _rehash(out, other)
    problems = verify(out, resimulate=0, fingerprint=expected)
    assert any(f"signed by the key with fingerprint {m['signer']['fingerprint_sha256']}, not {expected}" in p
               for p in problems), problems


def test_verify_re_simulates_a_piece_from_its_seed_and_finds_an_altered_one(fog_package, tmp_path, signing_key):
    import random

    from reelforge.analysis.certificate_report import write_certificate
    from reelforge.analysis.help_text import certified_help
    from reelforge.analysis.manifest import choose_pieces

    out = _tampered(fog_package, tmp_path, "piece")
    progress = cert.load_progress(out)
    [(name, piece)] = choose_pieces(progress, 1, random.Random(3))  # the piece verify's draw will pick
    path = cert.tally_path(out, name, piece.index)
    stream = cert.Stream(get_game("forge-of-gems"), get_game("forge-of-gems").load_build("96.2"), progress.plan,
                         progress.plan.estimator if name == "main" else "plain", None)
    s = stream.load(path)
    key = next(k for k in sorted(s.arrays) if s.arrays[k].size and np.issubdtype(s.arrays[k].dtype, np.integer))
    s.arrays[key] = s.arrays[key].copy()
    s.arrays[key].flat[0] += 1
    s.save(path)
    # everything downstream made consistent with the altered piece: merged tally, figures, report, hashes, signature
    merged, _, _ = merged_points(stream, out, name, getattr(progress, name))
    merged.save(cert.tally_path(out, name))
    (out / "figures.json").write_text(json.dumps(cert.figures(out), indent=1, sort_keys=True) + "\n")
    m = json.loads((out / MANIFEST).read_text())
    game = get_game("forge-of-gems")
    build = game.load_build("96.2")
    write_certificate(out, game, build, json.loads((out / "figures.json").read_text()),
                      {k: v for k, v in m.items() if k != "files"}, 300, certified_help(game, build, "de"))
    _rehash(out, signing_key)
    assert verify(out, resimulate=0) == []  # only the re-simulation can tell
    problems = verify(out, resimulate=1, rng=random.Random(3))
    assert problems == [f"{path.relative_to(out)}: re-simulated from its seed {piece.seed} ({piece.rounds:,} rounds), "
                        "the tally differs from the stored one"]


def test_an_engine_without_a_commit_or_with_local_changes_is_refused_unless_allowed():
    from reelforge.analysis.manifest import engine_problem

    assert "no git commit" in engine_problem(None, False)
    assert "local changes" in engine_problem("abc+changes", False)
    assert engine_problem("abc", False) is None
    assert engine_problem(None, True) is None and engine_problem("abc+changes", True) is None


def test_keygen_writes_a_private_key_only_its_owner_reads_and_verify_prints_the_fingerprint(fog_package, tmp_path,
                                                                                            capsys, monkeypatch):
    import stat

    from reelforge.analysis.signing import SigningKeyError

    keys = tmp_path / "keys"
    code, out, err = certify_command(["keygen", "--out", str(keys)], capsys, monkeypatch)
    assert code == 0, err
    private = keys / "certify-signing-key.pem"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    fp = signer(load_private_key(private))["fingerprint_sha256"]
    assert fp in out.replace("\n", "")
    code, _, err = certify_command(["keygen", "--out", str(keys)], capsys, monkeypatch)
    assert code == 2 and "never overwritten" in err
    private.chmod(0o644)
    with pytest.raises(SigningKeyError, match="readable by others"):
        load_private_key(private)
    private.chmod(0o600)
    with pytest.raises(SigningKeyError, match="must not be inside the package folder"):
        load_private_key(private, keys)
    code, out, err = certify_command(["--verify", str(fog_package), "--allow-dirty-engine", "--resimulate", "0"],
                                     capsys, monkeypatch)
    fingerprint = json.loads((fog_package / MANIFEST).read_text())["signer"]["fingerprint_sha256"]
    assert code == 0 and fingerprint in out.replace("\n", ""), out + err


def test_a_resume_is_recorded_in_the_manifest_and_the_report(fog_package, tmp_path, signing_key):
    from tests.analysis.test_certify_resume import cut_back_to

    out = _tampered(fog_package, tmp_path, "resumed")
    pieces = len(cert.load_progress(out).main)
    cut_back_to(out, pieces - 1)  # killed before its last main piece and its plain sample
    # the hook for attested files (an RNG test report): the manifest names and hashes it, verify checks it
    (out / "rng").mkdir()
    (out / "rng" / "battery.txt").write_text("the RNG test battery's results\n")
    _finish(out, None, True, 2, 300, False, key=signing_key,
            attested=[{"path": "rng/battery.txt", "what": "RNG test report"}])
    m = json.loads((out / MANIFEST).read_text())
    assert m["attested"] == [{"path": "rng/battery.txt", "what": "RNG test report",
                              "sha256": sha256_file(out / "rng" / "battery.txt")}]
    assert "rng/battery.txt (RNG test report)" in (out / "report.html").read_text()
    resumes = m["resumes"]
    assert [{k: r[k] for k in ("main_pieces_done", "sample_pieces_done", "finished_before")} for r in resumes] == [
        {"main_pieces_done": pieces - 1, "sample_pieces_done": 0, "finished_before": False}]
    assert tally_digests(out) == tally_digests(fog_package)
    assert f"{resumes[0]['at']}, after {pieces - 1} main and 0 sample pieces" in (out / "report.html").read_text()
    assert verify(out, resimulate=0) == []


@pytest.mark.slow
def test_verify_fails_a_pdf_printed_from_an_edited_report(fog_package, tmp_path, signing_key):
    import shutil

    from reelforge.analysis.certificate_report import print_pdf

    if not any(shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome")) or not shutil.which(
            "pdftotext"):
        pytest.skip("no Chromium or pdftotext on this machine")
    out = _tampered(fog_package, tmp_path, "pdf")
    print_pdf(out / "report.html")
    _rehash(out, signing_key)
    assert verify(out, resimulate=0) == []  # the same report printed again has the same text
    edited = tmp_path / "edited" / "report.html"
    edited.parent.mkdir()
    rtp = json.loads((out / "figures.json").read_text())["summary"]["rtp"]
    edited.write_text((out / "report.html").read_text().replace(f"{rtp * 100:.4f}%", f"{rtp * 100 + 0.0005:.4f}%"))
    shutil.copy(print_pdf(edited), out / "report.pdf")
    _rehash(out, signing_key)
    assert verify(out, resimulate=0) == ["report.pdf: its text differs from the re-rendered report printed again"]


def test_verify_fails_a_piece_seed_the_runs_seed_does_not_give(fog_package, tmp_path, signing_key):
    out = _tampered(fog_package, tmp_path, "seed")
    state = json.loads((out / cert.STATE).read_text())
    state["main"][0]["seed"] += 1
    (out / cert.STATE).write_text(json.dumps(state))
    _rehash(out, signing_key)
    assert "state.json: main piece 0's seed is not the one the run's seed gives" in verify(out, resimulate=0)


def test_record_verifies_the_package_first_and_refuses_an_exploratory_one(fog_package, tmp_path):
    from reelforge.analysis.certified_record import RecordError, record_package

    with pytest.raises(RecordError, match="exploratory package"):
        record_package(fog_package, allow_dirty_engine=True)
    bad = _copy(fog_package, tmp_path / "altered")
    _alter_one_count(next((bad / "tallies").glob("main-*.npz")))
    with pytest.raises(RecordError, match="does not verify"):
        record_package(bad, allow_dirty_engine=True)


@pytest.mark.parametrize("game_id", ["canyon-ways", "gemstones-gold"])
def test_a_stratified_piece_simulated_again_from_its_seed_is_its_stored_tally(game_id, tmp_path):
    """What --verify does to a main piece: simulate it again from its seed and compare it with the stored tally. A
    tally holds what was drawn, never how long it took: Canyon Ways' feature split kept its wall seconds in the
    sample, so no package of it could verify (found on the 96.0 certification of session 13)."""
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    plan = cert.Plan(game=game_id, build=build.name, mode="paid", estimator="stratified", precision_pp=1.0, seed=5,
                     pilot_rounds=20_000, sample_rounds=10_000)
    stream = cert.Stream(game, build, plan, "stratified", 1)
    stored = stream.simulate(20_000, 11)
    stored.save(tmp_path / "piece.npz")
    time.sleep(0.01)  # another run of the same piece takes another time
    fresh = cert.Stream(game, build, plan, "stratified", 2).simulate(20_000, 11)
    assert cert.same_sample(fresh, stream.load(tmp_path / "piece.npz"))
    assert not cert.same_sample(cert.Stream(game, build, plan, "stratified", 1).simulate(20_000, 12), fresh)
