"""Reports: self-contained HTML/Markdown with every summary figure and embedded plots."""

import base64
import html
import re

import pytest

from reelforge.analysis.report import write_report
from reelforge.analysis.simulate import simulate
from reelforge.analysis.summary import exact_summary, simulation_summary
from reelforge.games.registry import get_game


def test_html_report_from_a_simulation_embeds_four_plots_and_the_figures(tmp_path):
    game = get_game("forge-of-fortunes")
    build = game.load_build("91.2")
    res = simulate(game, build, 400_000, seed=5, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=5)
    out = write_report(str(tmp_path / "report.html"), game, build, s, checkpoints=res.checkpoints, par_rounds=100)
    text = out.read_text()
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text)
    assert len(images) == 4  # distribution, convergence, split, ladder picture
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    for label in ("RTP (return to player)", "volatility level", "maximum exposure", "1,000x to under 2,500x",
                  "RTP from Forging Re-Spins", "Forging Re-Spins", "@media print"):
        assert label in text
    assert "http" not in text.replace("http-equiv", "")  # nothing fetched from elsewhere


def test_markdown_report_of_exact_figures(tmp_path):
    game = get_game("forge-of-fortunes")
    build = game.load_build("96.2")
    s = exact_summary(game, build)
    out = write_report(str(tmp_path / "r.md"), game, build, s, workers=1,
                       checkpoints=simulate(game, build, 200_000, seed=1, workers=1,
                                            chunk=1 << 15).checkpoints)
    text = out.read_text()
    assert text.startswith("# Forge of Fortunes - build 96.2")
    assert "| RTP (return to player) | 96.19964% | exact |" in text
    assert "data:image" not in text  # the plots are files beside the report, linked
    plots = re.findall(r"\]\((r-plot-\d+\.png)\)", text)
    assert len(plots) == 4 and all((tmp_path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in plots)
    assert "|  |  |" not in text and "| identity | value |" in text  # no empty header row


def test_forge_of_gems_report_draws_the_gembox_rewards(tmp_path):
    game = get_game("forge-of-gems")
    build = game.load_build("96.2")
    res = simulate(game, build, 300_000, seed=11, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=11)
    pic = game.feature_picture(build, s)
    assert pic is not None and len(pic["labels"]) == 9 == len(pic["values"])
    total_gembox = sum(v["awarded"]["count"] for v in s["extra"]["gembox"].values())
    assert abs(sum(pic["values"]) * s["rounds"] - total_gembox) < 1e-6
    out = write_report(str(tmp_path / "fog.html"), game, build, s, checkpoints=res.checkpoints, par_rounds=100)
    text = out.read_text()
    assert "GEMBOX rewards" in text and "Ways distribution of paid spins" in text
    assert text.count("data:image/png;base64,") == 5  # distribution, convergence, split, GEMBOX, ways


def test_forge_of_gems_ways_picture_has_every_paid_spin_in_a_ways_bin():
    game = get_game("forge-of-gems")
    build = game.load_build("96.2")
    acc = game.simulate_chunk(build, 100_000, 3)
    s = simulation_summary(game, build, acc, seed=3)
    ways = next(p for p in game.feature_pictures(build, s) if p["title"].startswith("Ways"))
    peak, rtp = ways["series"]  # no first-board panel: every first board is 243 ways (one bar at 1 said nothing)
    assert s["extra"]["first_board_ways"]["243"] == 1 and "always 243 ways" in ways["title"]
    assert peak["labels"][0] == "243" and peak["labels"][-1] == "31104-36288" and len(peak["labels"]) == 9
    assert abs(sum(peak["values"]) - 1) < 1e-12
    # the peak-ways split adds up to the paid-spin RTP (in percentage points)
    assert abs(sum(rtp["values"]) - 100 * s["rtp_split"]["base_game"]) < 1e-9


def test_gemstones_gold_report_draws_the_revealed_multiplier_sums(tmp_path):
    game = get_game("gemstones-gold")
    build = game.load_build("96.71")
    res = simulate(game, build, 300_000, seed=8, workers=1, chunk=1 << 16)
    s = simulation_summary(game, build, res.accumulator, seed=8)
    (pic,) = game.feature_pictures(build, s)
    paid, feature = pic["series"]
    acc = res.accumulator
    # every multiplied paid spin is in one sum bin; every feature in one final-M bin
    assert round(sum(paid["values"]) * acc.rounds) == acc.counter("paid_multiplied") > 0
    assert round(sum(feature["values"]) * acc.counter("triggers")) == acc.counter("triggers") > 0
    assert paid["labels"][:4] == ["2", "3", "4", "5-9"] and feature["labels"][0] == "0"
    out = write_report(str(tmp_path / "gg.html"), game, build, s, checkpoints=res.checkpoints, par_rounds=100)
    text = out.read_text()
    assert "Revealed multiplier sums" in text
    assert text.count("data:image/png;base64,") == 4


SECTIONS = {
    "forge-of-fortunes": ["Forging Re-Spins strips", "Forging Re-Spins: trigger and average win",
                          "Forging Re-Spins: win distribution (per feature)"],
    "gemstones-gold": ["Reel strips: symbol counts per reel", "Pays in the paid spin", "Pays in free spins",
                       "The cap's reduction", "Multiplier reel values and weights",
                       "Free Spins: trigger and average win", "Free Spins: win distribution",
                       "Feature Buy RTP"],
    "forge-of-gems": ["Cell weights: symbol weight per reel", "Pays in the paid spin", "Pays in free spins",
                      "GEMBOX instant prizes", "The cap's reduction", "FORGE REEL weights",
                      "GEMBOX reward weights", "GEMBOX and free spins: trigger and average win",
                      "GEMBOX and free spins: win distribution", "none published"],
}
COMMON = ["Game Rules Summary", "99% interval", "Win distribution (per round, x total bet)", "PAR sheet",
          "Paytable", "hit frequency and RTP contribution", "The cap", "Plots", "Glossary",
          "RTP convergence with its 99% band", "standard deviation of the round win", "volatility level"]


def visible_text(doc: str) -> str:
    """The report's text as a reader sees it: no tags, no embedded images, no style sheet."""
    doc = re.sub(r"<style>.*?</style>", " ", doc, flags=re.S)
    doc = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", " ", doc)
    return html.unescape(re.sub(r"<[^>]+>", " ", doc))


@pytest.mark.parametrize("game_id, rounds", [
    ("forge-of-fortunes", 200_000), ("gemstones-gold", 60_000), ("forge-of-gems", 20_000)])
def test_report_on_a_small_run_has_every_section_and_labels_in_words(tmp_path, game_id, rounds):
    game = get_game(game_id)
    build = game.load_build(game.default_build())
    res = simulate(game, build, rounds, seed=4, workers=1, chunk=1 << 14)
    s = simulation_summary(game, build, res.accumulator, seed=4)
    for suffix in (".html", ".md"):
        out = write_report(str(tmp_path / f"r{suffix}"), game, build, s, seed=4, workers=1,
                           checkpoints=res.checkpoints, par_rounds=300)
        text = visible_text(out.read_text())
        for title in COMMON + SECTIONS[game_id]:
            assert title in text, (suffix, title)
        assert not re.findall(r"\b[a-z]+_[a-z_]+\b", text), "a snake_case key leaked into the report"
        assert "1 in " in text and re.search(r"\d+\.\d{4}%", text)  # fixed-decimal percentages
    par = s["par_sheet"]
    assert [sec["title"] for sec in par["sections"]][0].startswith("Paytable")
    if game_id != "forge-of-fortunes":
        assert par["sample"] == {"kind": "reference engine", "rounds": 300, "seed": 4,
                                 "features": par["sample"]["features"]}
