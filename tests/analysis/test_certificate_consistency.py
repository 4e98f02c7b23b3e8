"""A certification package says one value and one interval per figure: report.html shows exactly what
figures.json holds, the same figure the same on every page, and every label (confidence level, bucket
bounds, unit, per purchase) right. Three tiny packages: exact (Forge of Fortunes), stratified (Forge of
Gems) and a Feature Buy (Gemstones Gold), a few CPU seconds each."""

import json
import re
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from reelforge.analysis import certify as cert
from reelforge.analysis.figures import figure_rows
from reelforge.cli.certify import _finish
from reelforge.core.numbers import pct, pct_ci
from reelforge.game.parsheet import max_win_probability_words
from reelforge.games.registry import get_game

PACKAGES = {
    "exact": ("forge-of-fortunes", "96.2", "paid", dict(sample_rounds=20_000)),
    "stratified": ("forge-of-gems", "96.2", "paid", dict(pilot_rounds=50_000, sample_rounds=20_000,
                                                          feature_rounds_per_piece=500, max_rounds=50_000)),
    "buy": ("gemstones-gold", "96.71", "buy", dict(pilot_rounds=5_000, max_rounds=5_000)),
}


class Tables(HTMLParser):
    """Every table of a report under the last heading before it: {heading: [rows of cell texts]}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.heading = ""
        self._in: str | None = None
        self._text = ""
        self._row: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "td", "th"):
            self._in, self._text = tag, ""
        elif tag == "tr":
            self._row = []

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._in == tag:
            self.heading, self._in = self._text.strip(), None
        elif tag in ("td", "th") and self._in == tag:
            self._row.append(self._text.strip())
            self._in = None
        elif tag == "tr":
            self.tables.setdefault(self.heading, []).append(self._row)

    def handle_data(self, data):
        if self._in:
            self._text += data


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    return {}


@pytest.fixture(scope="module", params=list(PACKAGES))
def package(request, tmp_path_factory, packages):
    gid, name, mode, sizes = PACKAGES[request.param]
    game = get_game(gid)
    out = tmp_path_factory.mktemp("consistency") / request.param
    _finish(out, cert.choose_plan(game, game.load_build(name), mode, 10.0, 3, **sizes, exploratory=True), False, 1, 200,
                    False)
    html = (out / "report.html").read_text()
    parser = Tables()
    parser.feed(html)
    packages[request.param] = out
    return request.param, json.loads((out / "figures.json").read_text()), html, parser.tables


def _rows(tables: dict, heading: str) -> dict[str, list[str]]:
    return {r[0]: r[1:] for r in tables[heading] if r}


def test_the_summary_table_is_figures_json_in_words(package):
    kind, f, _, tables = package
    if kind == "buy":  # a Feature Buy package shows its own sheet: the same figures, per unit of price
        fb = f["feature_buy_sheet"]
        sheet = _rows(tables, "Feature Buy sheet")
        assert sheet["RTP (win per unit of price)"] == [pct(fb["rtp"]), pct_ci(fb["rtp_ci99"])]
        assert sheet["bought features simulated"][0] == f"{fb['features']:,}" == f"{f['summary']['rounds']:,}"
        return
    assert tables["Game Rules Summary"][1:] == [list(r) for r in figure_rows(f["summary"])]


def test_the_cap_sd_and_hit_rate_are_one_value_with_one_interval_on_every_page(package):
    kind, f, html, tables = package
    s = f["summary"]
    value, interval = max_win_probability_words(s)
    per = "per purchase" if kind == "buy" else "per round"
    top = _rows(tables, "Top award")
    assert top[f"probability {per}"][0] == value and top["99% interval"][0] == interval
    vol = _rows(tables, "Volatility index")
    sd_row = next(v for k, v in vol.items() if k.startswith("SD of the"))
    if kind != "buy":
        summary = _rows(tables, "Game Rules Summary")
        assert summary["probability of the maximum win"] == [value, interval]
        assert _rows(tables, "The cap")["probability per paid round"] == [value]
        assert _rows(tables, "The cap")["99% interval"] == [interval]
        sd_value, sd_interval = summary["standard deviation of the round win"]
        assert sd_row[0] == sd_value
        # the SD's own interval, or the same "none"/"exact", never a second sample's interval
        assert sd_row[1] == re.sub(r" \(.*\)$", "", sd_interval)
        for label, (_, ci) in summary.items():
            if label.startswith("hit rate") or label.startswith("RTP from"):
                assert ci == "exact" if kind == "exact" else ci.startswith("["), (label, ci)
        assert s["hit_rate"] is not None and f"{s['hit_rate'] * 100:.4f}%" in summary["hit rate (rounds that win anything)"][0]
    if s["method"] == "exact":
        assert sd_row[1] == "exact" and "rounds at the cap in the plain sample" not in top


def test_every_target_measures_the_summarys_figure_and_cites_a_document(package):
    _, f, _, tables = package
    cited = _rows(tables, "Where each target is cited from")
    for t in f["targets"]:
        assert t["document"] and cited[t["figure"]] == [t["source"], t["document"]]
        if t["kind"] in ("interval", "point") and "." not in t["key"]:
            assert t["value"] == f["summary"][t["key"]], t["figure"]


def test_every_label_says_the_confidence_the_bounds_and_the_unit_right(package):
    kind, f, html, tables = package
    text = re.sub(r"<[^>]+>", " ", html)
    # every interval is 99%: no 95% bound (the only 95% is the volatility index's own confidence level)
    rest = text.replace("volatility index at 95% confidence", "").replace("z(95%) x SD", "")
    assert not re.search(r"(?<![\d.])95%", rest)
    assert "rule of three" not in text and "3/N" not in text
    # no bucket from a bound to the same bound
    for a, b in re.findall(r"([\d,]+)x to under ([\d,]+)x", text):
        assert a != b, f"{a}x to under {b}x"
    for heading, rows in tables.items():
        for col in rows[0] if rows else []:
            if "interval" in col:
                assert col.startswith("99% interval"), (heading, col)
    if kind == "buy":
        assert "per round" not in text and "probability per purchase" in text
        assert "bought features simulated" in text
        assert tables["RTP by bet level (per purchase: the price at each total bet)"]  # buy mode has its bet levels
        # and its own PAR sheet, per purchase
        assert "hit frequency (per purchase)" in tables["Pays in free spins: hit frequency and RTP contribution"][0]
        assert "Pays in the paid spin: hit frequency and RTP contribution" not in tables
    if kind == "stratified":  # the reused feature stratum is never called bought features
        assert "bought features" not in text


def test_a_stratified_sd_has_its_interval_from_the_runs_pieces_on_every_page(package, packages):
    """The stratified estimator gives the SD no interval: the package's is the jackknife over its main pieces, here
    recomputed the slow way (each piece left out by merging all the others), and the volatility target is judged
    on the levels it spans (once "exact" with levels "unknown")."""
    import math

    from reelforge.analysis.jackknife import t99

    kind, f, html, tables = package
    if kind != "stratified":
        return
    s, out = f["summary"], packages[kind]
    progress = cert.load_progress(out)
    game = get_game(progress.plan.game)
    build = game.load_build(progress.plan.build)
    est = game.stratified_estimator()
    own = [cert.Sample.load(cert.tally_path(out, "main", p.index), game.id, est.kind) for p in progress.main]
    without = []
    for j in range(len(own)):
        rest = [p for i, p in enumerate(own) if i != j]
        merged = rest[0]
        for p in rest[1:]:
            merged = est.merge(merged, p)
        without.append(est.estimate(merged, build).sd)
    sizes = [p.rounds for p in progress.main]
    n, g = sum(sizes), len(sizes)
    centre = g * s["sd"] - sum((1 - m / n) * t for m, t in zip(sizes, without))
    var = sum((n / m * s["sd"] - (n / m - 1) * t - centre) ** 2 / (n / m - 1) for m, t in zip(sizes, without)) / g
    half = t99(g - 1) * math.sqrt(var)
    assert s["sd_ci99"] == pytest.approx([max(s["sd"] - half, 0.0), s["sd"] + half], rel=1e-9)
    assert f["volatility"]["sd_ci99"] == s["sd_ci99"] and s["sd_jackknife"]["pieces"] == g
    summary_row = _rows(tables, "Game Rules Summary")["standard deviation of the round win"]
    assert summary_row[1].startswith(f"[{s['sd_ci99'][0]:.3f}, {s['sd_ci99'][1]:.3f}]x (delete-a-piece jackknife")
    levels = s["volatility_levels_ci99"]
    assert levels and levels[-1] == 10  # the estimate is a lower bound: its interval reaches every level above it
    row = next(t for t in f["targets"] if t["key"] == "volatility_level")
    assert row["ci99"] == levels and "unknown" not in row["verdict"] and "jackknife" in row["verdict"]
    assert row["status"] == ("pass" if min(levels) == 10 else "fail" if 10 not in levels else "undecided")
    target_row = _rows(tables, "Measured against target")[row["figure"]]
    assert target_row[3] == ("level " if len(levels) == 1 else "levels ") + ", ".join(map(str, levels))
    assert target_row[4] == {"pass": "PASS", "fail": "FAIL", "undecided": "UNDECIDED"}[row["status"]]


def test_the_per_pay_tables_are_the_per_pay_kernels_cells_each_with_its_interval_beside_the_certified_rtp(package):
    """Gemstones Gold's and Forge of Gems' PAR sheets: every pay a cell of the per-pay kernel's run (once Forge of
    Gems' came from 200,000 reference-engine rounds), each with its own interval, the tables' total with its interval
    beside the certified RTP the summary gives (one value, one interval, the same as the Game Rules Summary's)."""
    kind, f, html, tables = package
    if kind == "exact":
        return
    s = f["summary"]
    totals = _rows(tables, "Per-pay tables: totals")
    kernel = totals["the per-pay sample's RTP (all tables)"]
    assert re.fullmatch(r"[\d.]+ pp = [\d.]+%", kernel[0]) and kernel[1].startswith("[")
    if kind != "buy":  # a Feature Buy package certifies per unit of price: its own sheet says so above
        assert totals["the certified RTP (the package's estimate)"] == [pct(s["rtp"], 3), pct_ci(s["rtp_ci99"], 3)]
    assert totals["their difference"][1].endswith(("within it", "OUTSIDE it"))
    parts = [k for k in totals if k.startswith(("pays in", "GEMBOX", "the cap's"))]
    pay_tables = [h for h in tables if h.endswith("hit frequency and RTP contribution") or h.startswith("The cap's reduction")]
    assert parts and len(pay_tables) == len(parts)
    for heading in pay_tables:
        rows = tables[heading][1:]
        assert "per-pay kernel" in html and rows
        for label, _hits, hits_ci, _one_in, rtp, rtp_ci in (r for r in rows if not r[0].startswith("total of this")):
            # an observed pay: its contribution and the contribution's interval; never a bare figure
            assert rtp == "not observed" and rtp_ci == "-" or re.fullmatch(r"\[-?[\d.]+, -?[\d.]+\] pp", rtp_ci), \
                (heading, label, rtp, rtp_ci)
            assert hits_ci.startswith("["), (heading, label)
        # each table's total is the sum of its rows' cells (each shown to 0.001 pp: rounding apart)
        cells = [float(r[4].removesuffix(" pp")) for r in rows if not r[0].startswith("total of this") and r[4] != "not observed"]
        total = float([r for r in rows if r[0].startswith("total of this")][0][4].removesuffix(" pp"))
        assert abs(total - sum(cells)) <= 0.0005 * (len(cells) + 1), heading


def test_an_exact_maximum_win_far_below_a_percentage_place_reads_with_its_exponent():
    """Seven Lines' 2,000x (exact, 1.25e-30 a round) read "0.000000% = 1 in 799,188,227,899,545,098,336,050,610,176"."""
    tiny = {"method": "exact", "mode": "paid", "max_win_probability": Fraction(1, 799188227899545098336050610176)}
    assert max_win_probability_words(tiny) == ("1.251e-30 per round = 1 in 7.99e+29", "exact")
    common = {"method": "exact", "mode": "paid", "max_win_probability": Fraction(1, 100848)}
    assert max_win_probability_words(common) == ("0.000992% = 1 in 100,848", "exact")
