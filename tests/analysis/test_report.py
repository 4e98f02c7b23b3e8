"""Reports: self-contained HTML/Markdown with every summary figure and embedded plots."""

import base64
import re

from reelforge.analysis.report import write_report
from reelforge.analysis.simulate import simulate
from reelforge.analysis.summary import exact_summary, simulation_summary
from reelforge.games.registry import get_game


def test_html_report_from_a_simulation_embeds_four_plots_and_the_figures(tmp_path):
    game = get_game("forge-of-fortunes")
    build = game.load_build("91.2")
    res = simulate(game.id, build.name, 400_000, seed=5, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=5)
    out = write_report(str(tmp_path / "report.html"), game, build, s, checkpoints=res.checkpoints)
    text = out.read_text()
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text)
    assert len(images) == 4  # distribution, convergence, split, ladder picture
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    for label in ("RTP 99% interval", "volatility level", "max exposure at max stake", "[1000,cap)",
                  "RTP from feature", "Forging Re-Spins"):
        assert label in text
    assert "http" not in text.replace("http-equiv", "")  # nothing fetched from elsewhere


def test_markdown_report_of_exact_figures(tmp_path):
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    s = exact_summary(game, build)
    out = write_report(str(tmp_path / "r.md"), game, build, s, workers=1,
                       checkpoints=simulate(game.id, build.name, 200_000, seed=1, workers=1,
                                            chunk=1 << 15).checkpoints)
    text = out.read_text()
    assert text.startswith("# Forge of Fortunes - build 96.2")
    assert "| method | exact |" in text
    assert text.count("data:image/png;base64,") == 4


def test_forge_of_gems_report_draws_the_gembox_rewards(tmp_path):
    game = get_game("forge-of-gems")
    build = game.load_build("96.2")
    res = simulate(game.id, build.name, 300_000, seed=11, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=11)
    pic = game.feature_picture(build, s)
    assert pic is not None and len(pic["labels"]) == 9 == len(pic["values"])
    total_gembox = sum(v["awarded"]["count"] for v in s["gembox"].values())
    assert abs(sum(pic["values"]) * s["rounds"] - total_gembox) < 1e-6
    out = write_report(str(tmp_path / "fog.html"), game, build, s, checkpoints=res.checkpoints)
    text = out.read_text()
    assert "GEMBOX rewards" in text and "Ways distribution of paid spins" in text
    assert text.count("data:image/png;base64,") == 5  # distribution, convergence, split, GEMBOX, ways


def test_forge_of_gems_ways_picture_has_every_paid_spin_in_a_ways_bin():
    game = get_game("forge-of-gems")
    build = game.load_build("96.2")
    acc = game.simulate_chunk(build, 100_000, 3)
    s = simulation_summary(game, build, acc, seed=3)
    ways = next(p for p in game.feature_pictures(build, s) if p["title"].startswith("Ways"))
    first, peak, rtp = ways["series"]
    assert first["labels"][0] == "243" and first["labels"][-1] == "31104-36288" and len(first["labels"]) == 9
    assert abs(sum(first["values"]) - 1) < 1e-12 and abs(sum(peak["values"]) - 1) < 1e-12
    # the peak-ways split adds up to the paid-spin RTP (in percentage points)
    assert abs(sum(rtp["values"]) - 100 * s["rtp_split"]["base_game"]) < 1e-9


def test_gemstones_gold_report_draws_the_revealed_multiplier_sums(tmp_path):
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    res = simulate(game.id, build.name, 300_000, seed=8, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=8)
    (pic,) = game.feature_pictures(build, s)
    paid, feature = pic["series"]
    acc = res.accumulator
    # every multiplied paid spin is in one sum bin; every feature in one final-M bin
    assert round(sum(paid["values"]) * acc.rounds) == acc.counter("paid_multiplied") > 0
    assert round(sum(feature["values"]) * acc.counter("triggers")) == acc.counter("triggers") > 0
    assert paid["labels"][:4] == ["2", "3", "4", "5-9"] and feature["labels"][0] == "0"
    out = write_report(str(tmp_path / "gg.html"), game, build, s, checkpoints=res.checkpoints)
    text = out.read_text()
    assert "Revealed multiplier sums" in text
    assert text.count("data:image/png;base64,") == 4
