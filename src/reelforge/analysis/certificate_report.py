"""The certification report (HTML, printed to PDF by headless Chromium where present) of a package.

Sections in the order a test lab reads them: identity (from the manifest), RNG and method in words,
measured against target (pass/fail, the target's source), the Game Rules Summary, convergence, the
top award's odds, the volatility index, RTP by bet level, the game cycle, the per-feature breakdown,
the win distribution, the PAR sheet (paid rounds) or the Feature Buy sheet (bought features), plots,
and the glossary.
"""

from __future__ import annotations

import html
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.analysis.certificate import STATUS_WORDS
from reelforge.analysis.figures import NO_INTERVAL, bucket_words, figure_rows, glossary, interval_text, max_win_how
from reelforge.analysis.manifest import NOT_FOR_CERTIFICATION
from reelforge.analysis.par import PAR_SAMPLE_ROUNDS, par_sheet
from reelforge.analysis.report import (
    PRINT_CSS,
    WRAP_CHARS,
    plot_convergence,
    plot_distribution,
    plot_feature,
    plot_split,
)
from reelforge.core.numbers import one_in, pct, pct_ci
from reelforge.game.contract import Build, Game
from reelforge.game.parsheet import max_win_probability_words

REPORT = "report.html"
PDF = "report.pdf"
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


def _fmt_target(t: dict[str, Any]) -> str:
    if t["kind"] == "reachable":
        return "reachable"
    if t["kind"] == "equal":
        return f"level {t['target']}"
    if t["kind"] == "at_least":
        return f"level {t['target']} or more"
    if t["unit"] == "per round":
        return f"{t['target']:.3g} +-{t['tolerance']:.2g} per round"
    if t["unit"] == "pp":
        return f"{t['target'] * 100:.2f} pp +-{t['tolerance'] * 100:.2f} pp"
    return f"{t['target'] * 100:.2f}% +-{t['tolerance'] * 100:.3g} pp"


def _fmt_value(t: dict[str, Any], exact: bool) -> tuple[str, str]:
    """A target row's measured value and its interval in words (``exact``: the package's figures are exact; a
    simulated figure without an interval says it has none)."""
    v, ci = t.get("value"), t.get("ci99")
    none = "exact" if exact else "none"
    if t["kind"] == "reachable":
        return str(v or "-"), "-"
    if t["kind"] in ("equal", "at_least"):
        return f"level {v}", (("level " if len(ci) == 1 else "levels ") + ", ".join(map(str, ci))) if ci else none
    if v is None:
        return "-", "-"
    if t["unit"] == "per round":
        return f"{v:.4g} (1 in {1 / v:,.0f})" if v else "0", (f"[{ci[0]:.4g}, {ci[1]:.4g}]" if ci else none)
    if t["unit"] == "pp":
        return f"{v * 100:.3f} pp", (f"[{ci[0] * 100:.3f}, {ci[1] * 100:.3f}] pp" if ci else none)
    return f"{v * 100:.4f}%", (pct_ci(ci, 4) if ci else none)


def method_text(f: dict[str, Any], ident: dict[str, Any]) -> list[str]:
    """The estimator and its interval, in words."""
    s = f["summary"]
    est = f["estimator"]
    paras = []
    if est == "exact":
        paras.append("The figures are exact: computed in rational arithmetic from the build's strips (the feature "
                     "is an absorbing Markov chain on the prize ladder), with no sample and no interval.")
    elif est == "stratified":
        paras.append(f"The RTP and its split come from the game's stratified estimator ({s['sample']['description']}"
                     "): the paid spins are simulated alone, the features are simulated apart, and the two are "
                     "combined with the features' trigger probabilities (exact where the board allows, else "
                     "estimated from the paid-spin stratum). Its 99% interval is normal (z = 2.5758) on the sum of "
                     "the strata's independent variances, widened where the cap's correction is bounded rather than "
                     "estimated.")
        named = ident.get("estimator_method") or {}
        if named.get("description"):
            eff = named.get("efficiency_vs_plain")
            paras.append(f"The estimator: {named['description']}."
                         + (f" Its efficiency against plain simulation: {eff['ratio']:.1f}x ({eff['how']})."
                            if eff else ""))
    else:
        paras.append(f"The figures come from a plain simulation of whole {'bought features' if f['mode'] == 'buy' else 'rounds'} "
                     f"({s['sample']['description']}); the RTP's 99% interval is normal (z = 2.5758) on the "
                     "round wins' exact integer sums and sums of squares.")
    if est != "plain":
        paras.append("The win distribution and the observed top award come from a plain simulation "
                     f"of whole rounds ({(f.get('sample_summary') or {}).get('sample', {}).get('description', '-')}).")
    if est != "exact":
        paras.append(f"The run grew piece by piece until the 99% half-width of the RTP was at most "
                     f"{f['precision_requested_pp']} pp; reached: {f['precision_reached_pp']:.4f} pp "
                     f"({'met' if f['precision_met'] else 'NOT met'}). Each piece is an independent seeded sample; "
                     "its tally and the merged tally were kept after it, so the run could be stopped and resumed "
                     "with identical totals.")
    sd_how = ("the delete-a-piece jackknife over the run's independent pieces (the estimator gives the SD no interval "
              "of its own: each piece left out in turn, the pieces weighted by their size, Student's t on pieces - 1 "
              "degrees of freedom)" if s.get("sd_jackknife") else "the delta method with the fourth moment")
    paras.append("Intervals, one method per figure: RTP and RTP shares normal; frequencies Wilson; win-distribution "
                 f"bands and an observed cap count exact binomial (Clopper-Pearson); the SD's interval {sd_how}. Exact "
                 "figures carry none.")
    return paras


def write_certificate(out: Path, game: Game, build: Build, f: dict[str, Any], ident: dict[str, Any],
                      par_rounds: int = PAR_SAMPLE_ROUNDS, help_text: dict[str, Any] | None = None) -> Path:
    """Write ``out/report.html`` from the package's figures and identity, with the help text in a chosen
    language after it where given (:func:`reelforge.analysis.help_text.certified_help`); returns its path."""
    s = f["summary"]
    sample = f.get("sample_summary")
    # the distribution and the plots of counts rest on the plain sample where the estimate is stratified
    dist_s = s if s["distribution"] else (sample or s)
    buy = f["mode"] == "buy"
    e = html.escape
    parts: list[str] = []

    def h(level: int, text: str) -> None:
        parts.append(f"<h{level}>{e(text)}</h{level}>")

    def para(text: str, cls: str = "") -> None:
        parts.append(f"<p class='{cls}'>{e(text)}</p>")

    def table(columns: list[str], rows: list[list[Any]], cls: str = "") -> None:
        head = "".join(f"<th>{e(str(c))}</th>" for c in columns)
        body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
        parts.append(f"<table class='{cls}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    exploratory = not ident.get("for_certification", True)
    title = f"{game.title} - build {build.name}" + (" - Feature Buy" if buy else "") + " - certification report"
    if exploratory:
        title += f" - {NOT_FOR_CERTIFICATION}"
    parts.append(f"<h1>{e(title)}</h1>")
    if exploratory:
        parts.append(f"<div class='exploratory'>{e(NOT_FOR_CERTIFICATION)}: run with --exploratory at a precision "
                     f"({f['precision_requested_pp']} pp) wider than half the tightest RTP tolerance; its intervals "
                     "cannot support a certification.</div>")
    h(2, "Identity")
    parts.append("<table class='identity'><tbody>" + "".join(
        f"<tr><td>{e(k)}</td><td>{e(str(v))}</td></tr>" for k, v in identity_rows(game, build, f, ident))
        + "</tbody></table>")
    para(ident["game"]["versions_explained"] + " Build content hash: " + ident["build"]["content_hash_definition"]
         + ".", "note")
    para("The manifest (manifest.json) lists the SHA-256 of this report and of every file of the package and is "
         "signed by the supplier's key (manifest.sig); reelforge certify --verify checks the signature, recomputes "
         "every figure and this report from the stored tallies, checks the identity against the run and the "
         "engine, and re-simulates pieces from their seeds. The SHA-256 of every source file of the game and of "
         "the engine modules it runs are in the manifest (game_sources_sha256, engine.modules_sha256).", "note")

    h(2, "Random numbers and method")
    para(ident["rng_and_scaling"])
    for p in method_text(f, ident):
        para(p)

    h(2, "Measured against target")
    rows = []
    for t in f["targets"]:
        value, ci = _fmt_value(t, f["estimator"] == "exact")
        status = t.get("status") or ("pass" if t["passed"] else "fail")
        rows.append([t["figure"], _fmt_target(t), t["source"], value, ci, STATUS_WORDS[status], t["verdict"]])
    table(["figure", "target", "source", "measured", "99% interval", "result", "why"], rows, "targets")
    para("Sources: rules text = the published rules document; provider's published figure = a figure the provider "
         "publishes beyond the rules (GAMES.md); our decision = a tolerance or reading the project set. One rule, "
         "in every mode: a ranged target passes only when the whole 99% interval lies inside it (an exact figure: "
         "when its value does); FAIL where the whole interval (or the exact value) misses it; UNDECIDED, not a pass, where "
         "the interval straddles the band's edge or a simulated figure has no interval. "
         + " ".join(f"{t['figure']}: {t['note']}." for t in f["targets"] if t.get("note")), "note")

    h(3, "Where each target is cited from")
    table(["figure", "source", "document and section"],
          [[t["figure"], t["source"], t.get("document") or "-"] for t in f["targets"]], "targets")
    para("Every target cites a document: rules text = the game's published rules document (named, with the section "
         "the figure is read from); design document = a document the supplier declares: GAMES.md, the "
         "specification of the games (its figures beyond the rules and the tolerances), or a game's own "
         "targets.toml where it has no rules document.", "note")

    h(2, "Feature Buy sheet" if buy else "Game Rules Summary")
    if buy:
        fb = f["feature_buy_sheet"]
        price = float(Fraction(fb["price_x"]))
        table(["figure", "value", "99% interval"], [
            ["price", f"{price:g}x total bet", "set by the build"],
            ["bought features simulated", f"{fb['features']:,}", "-"],
            ["RTP (win per unit of price)", pct(fb["rtp"]), pct_ci(fb["rtp_ci99"])],
            ["mean win of a bought feature", f"{fb['mean_win_x']:,.3f}x total bet = {fb['rtp']:.4f}x price",
             f"[{fb['mean_win_x_ci99'][0]:,.3f}, {fb['mean_win_x_ci99'][1]:,.3f}]x total bet"],
            ["SD of a bought feature's win, per unit of price", f"{fb['sd_per_price']:.4f}x price",
             f"[{fb['sd_per_price_ci99'][0]:.4f}, {fb['sd_per_price_ci99'][1]:.4f}]x price"],
            ["features per purchase", "1 (certain: every purchase plays one 10-spin feature)", "none: certain"],
            ["maximum win", f"{game.cap_x(build):,}x total bet = {game.cap_x(build) / price:,.2f}x price", "by the rules"],
        ], "summary")
        table(["round win (x total bet)", "x price", "features", "share", "99% interval (exact binomial)", "1 in"],
              [[bucket_words(d, game.max_win_x), f"{d['from_price']:.3g} to {d['to_price']:.3g}", f"{d['count']:,}",
                pct(d["probability"], 4), interval_text(d.get("ci99"), 4), one_in(d["probability"])]
               for d in fb["distribution_per_price"]], "par")
    else:
        table(["figure", "value", "99% interval"], [list(r) for r in figure_rows(s)], "summary")
    para(f"Figures: {s['sample']['description']}.", "note")

    images: list[tuple[str, str]] = []
    conv = f["convergence"]["main"] or f["convergence"]["sample"]
    rtp_t = next((t for t in f["targets"] if t["key"] == "rtp"), None)
    h(2, "Convergence")
    if conv:
        exact_rtp = s["rtp"] if f["estimator"] == "exact" else None
        target = None if exact_rtp is not None or rtp_t is None else (rtp_t["target"], rtp_t["tolerance"])
        which = "plain simulation checked against the exact RTP" if exact_rtp is not None else (
            "stratified estimate" if f["estimator"] == "stratified" else "plain simulation")
        img = plot_convergence([tuple(c) for c in conv], exact_rtp,
                               f"RTP convergence, {which} ({len(conv)} checkpoints)", target,
                               "estimated RTP" if f["estimator"] == "stratified" else "simulated RTP")
        parts.append(f"<figure><img alt='convergence' src='data:image/png;base64,{img}'><figcaption>RTP after each "
                     f"piece with its 99% band{'' if target is None else ' and the target with its tolerance'}."
                     f"</figcaption></figure>")
        table(["checkpoint", "rounds", "RTP", "99% interval", "half-width"],
              [[i + 1, f"{c[0]:,}", pct(c[1]), pct_ci(c[2:4]), f"{(c[3] - c[2]) / 2 * 100:.4f} pp"]
               for i, c in enumerate(conv)], "par")
        seeds = f["pieces"]["main" if f["convergence"]["main"] else "sample"]
        para("Each checkpoint merges the pieces before it; piece seeds (reproduce any checkpoint): "
             + ", ".join(str(p["seed"]) for p in seeds) + ".", "note")

    h(2, "Top award")
    top = f["top_award"]
    per = "per purchase" if buy else "per round"
    value, interval = max_win_probability_words(s)  # the summary's words: one value, one interval
    top_rows = [["maximum win", f"{game.cap_x(build):,}x total bet", max_win_how(s)],
                [f"probability {per}", value, top["method"]], ["99% interval", interval, top.get("how", "")]]
    if top.get("observed_rounds") and top["method"] not in ("exact", "observed", "bound"):  # a count beside an estimate
        top_rows.append(["rounds at the cap in the plain sample", f"{top['observed_count']:,} of {top['observed_rounds']:,}",
                         "count (the estimate above is the figure)"])
    table(["figure", "value", "method"], top_rows, "summary")

    h(2, "Volatility index")
    v = f["volatility"]
    per = "price" if v["per"] == "unit of price" else "total bet"
    none = "exact" if v["sd_source"] == "exact" else NO_INTERVAL
    vrows = [[f"SD of the {'bought feature' if buy else 'round'}'s win", f"{v['sd']:.3f}x {per}"
              + (" (a lower bound)" if v["sd_is_lower_bound"] else ""),
              f"[{v['sd_ci99'][0]:.3f}, {v['sd_ci99'][1]:.3f}]x" if v["sd_ci99"] else none, v["sd_source"]]]
    if v["level"] is not None:  # the 1-10 scale is defined on paid rounds' SD per total bet
        vrows.append(["volatility level (1-10)", str(v["level"]), "", "the project's scale (GAMES.md)"])
    for name, conf in (("vi90", "90%"), ("vi95", "95%")):
        ci = v[f"{name}_ci99"]
        vrows.append([f"volatility index at {conf} confidence", f"{v[name]:.3f}",
                      f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else none, f"z({conf}) x SD"])
    table(["figure", "value", "99% interval", "how"], vrows, "vol")

    if f.get("bet_levels"):
        h(2, "RTP by bet level" + (" (per purchase: the price at each total bet)" if buy else ""))
        table(["total bets", "win unit", "every win whole cents", "RTP"], bet_level_rows(f["bet_levels"]), "bets")
        para("Wins are exact multiples of the win unit; at a total bet whose win unit is a whole number of cents "
             "every win is paid exactly and the RTP is the build's at every level. Otherwise a win is rounded down "
             "to the cent, which costs less than one cent per winning round (the range shown).", "note")

    h(2, "Game cycle")
    para(f["game_cycle"]["text"])

    fb_tab = f.get("feature_breakdown") or {}
    if fb_tab.get("rows"):
        h(2, f"Per-feature breakdown: {fb_tab['title']}")
        fmts = fb_tab["formats"]
        rows = [[_cell(c, fmt) for c, fmt in zip(r, fmts)] for r in fb_tab["rows"]]
        total = sum(r[fmts.index("pp")] for r in fb_tab["rows"])
        rows.append(["all", *[(f"{total * 100:.3f} pp" if fmt == "pp" else "") for fmt in fmts[1:]]])
        table(fb_tab["columns"], rows, "par")
        para(fb_tab["note"], "note")

    if dist_s.get("distribution") and not buy:
        h(2, "Win distribution (per round, x total bet)")
        exact = dist_s["method"] == "exact"
        table(["round win", "rounds", "probability", "99% interval (exact binomial)", "1 in"],
              [[bucket_words(d, game.max_win_x), "exact" if exact else f"{d['count']:,}", pct(d["probability"], 6),
                "exact" if exact else interval_text(d.get("ci99"), 6), one_in(d["probability"])]
               for d in dist_s["distribution"]], "par")
        para(f"From: {dist_s['sample']['description']}.", "note")
        images.append(("Win distribution per round", plot_distribution(dist_s)))

    # the certified summary: its trigger and cap figures are the report's, never a second value
    if not buy or game.report().par_sheet_of_purchases:
        par = par_sheet(game, build, dict(s), par_rounds, f["seed"])
        h(2, "PAR sheet" + (" of bought features (per purchase)" if buy else ""))
        for sec in par["sections"]:
            h(3, sec["title"])
            table(sec["columns"], sec["rows"],
                  "par wide" if any(len(str(c)) > WRAP_CHARS for r in sec["rows"] for c in r) else "par")
            if sec.get("note"):
                para(sec["note"], "note")
    if not buy:  # a bought feature is one component: no split to draw
        images.append(("RTP split by component", plot_split(s)))
    for pic in game.feature_pictures(build, dist_s if not buy else s):
        images.append((pic["title"], plot_feature(pic)))
    parts.append("<section class='plots'><h2>Plots</h2>")
    parts += [f"<figure><img alt='{e(t)}' src='data:image/png;base64,{img}'><figcaption>{e(t)}</figcaption></figure>"
              for t, img in images]
    parts.append("</section><h2>Glossary</h2><dl>")
    parts += [f"<dt>{e(term)}</dt><dd>{e(text)}</dd>" for term, text in glossary(s)]
    parts.append("</dl>")
    if help_text is not None:
        from reelforge.analysis.help_text import help_html

        parts.append(help_html(help_text))
    footer = "".join(ch for ch in title if ch not in '\\"<>')
    css = PRINT_CSS.replace("__FOOTER__", footer) + CERT_CSS
    if exploratory:  # the printed report says it at the top of every page, not only on the first
        css += ("@page { @top-center { content: \"" + NOT_FOR_CERTIFICATION + "\"; font: 700 9pt \"DejaVu Sans\", "
                "sans-serif; color: #b00020; } }\n")
    path = Path(out) / REPORT
    path.write_text(f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>"
                    f"<style>{css}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")
    return path


def identity_rows(game: Game, build: Build, f: dict[str, Any], ident: dict[str, Any]) -> list[list[str]]:
    """The identity block of the report's first page, from the manifest's identity."""
    b = ident["build"]
    files = "; ".join(f"{x['path']} (SHA-256 {x['sha256']})" for x in b["files"]) or "-"
    eng = ident["engine"]
    tools = ident["tools"]
    rules = ident.get("rules_document")
    signer = ident.get("signer")
    attested = "; ".join(f"{a['path']} ({a['what']})" for a in ident.get("attested") or []) or "none"
    resumes = ident.get("resumes") or []
    return [
        ["provider", ident["provider"]], ["game", game.title],
        ["published game id", game.published_id or "none published (the rules give no game id)"],
        ["game version", game.version],
        ["rules document", f"{rules['reference']} (SHA-256 {rules['sha256']})" if rules else
         "none: the game has no published rules document (its rules are the build data and GAMES.md)"],
        ["build", build.name], ["build version", b["version"]],
        ["build content hash (SHA-256)", b.get("content_hash", "")], ["build file", files],
        ["round mode", "bought features (Feature Buy)" if f["mode"] == "buy" else "paid rounds"],
        ["engine", f"reelforge {eng['version']}, git commit {eng['git_commit'] or 'unknown'}"],
        ["source files hashed", f"{len(ident['game_sources_sha256'])} of the game's package, "
                                f"{len(eng['modules_sha256'])} engine modules (SHA-256 each in the manifest)"],
        ["tools", f"Python {tools['python']}, numpy {tools['numpy']}, numba {tools['numba']} ({tools['platform']})"],
        ["date (UTC)", ident["date"]], ["estimator", f["estimator"]], ["seed", f"{f['seed']}"],
        ["rounds", ", ".join(f"{k}: {v:,}" for k, v in ident["rounds"].items() if v) or "none (exact)"],
        ["run time", ", ".join(f"{k}: {v:,.0f} s" for k, v in ident["seconds"].items() if v) or "-"],
        *taken_rows(ident["pieces"]["main"]),
        ["resumed", "; ".join(f"{r['at']}, after {r['main_pieces_done']} main and {r['sample_pieces_done']} sample "
                              "pieces" for r in resumes) or "no: run uninterrupted"],
        ["attested files", attested],
        ["signed by", f"{signer['algorithm']} key, SHA-256 fingerprint {signer['fingerprint_sha256']}" if signer
         else "not signed"],
        ["for certification", "yes" if ident.get("for_certification", True) else f"NO: {NOT_FOR_CERTIFICATION}"],
    ]


def taken_rows(pieces: list[dict[str, Any]]) -> list[list[str]]:
    """The identity row naming the package main pieces were taken from (``certify --sample-from``), if any."""
    taken = [p for p in pieces if p.get("taken_from")]
    if not taken:
        return []
    sources = sorted({p["taken_from"] for p in taken})
    return [["main pieces taken from another package",
             f"{len(taken)} of {len(pieces)} ({sum(p['rounds'] for p in taken):,} paid spins), simulated for "
             f"{'; '.join(sources)}: the same seeds and sizes, and the estimator's sample does not depend on what the "
             "two builds differ in, so each is the tally this run would draw (--verify re-simulates pieces with this "
             "build)"]]


CERT_CSS = """
div.exploratory { border: 3px solid #b00020; color: #b00020; font-weight: 700; padding: .4rem .6rem; margin: .4rem 0; }
table.vol td:first-child { width: 26%; } table.bets td:first-child { width: 45%; }
table.targets td:nth-child(6) { font-weight: 700; }
table.targets td, table.par td { white-space: normal; }
@media print { table.targets, table.par { font-size: 8pt; } }
"""


def _cell(c: Any, fmt: str) -> str:
    """A breakdown cell by its column's format (probability, multiple of bet, pp of RTP, number, count)."""
    if c is None:
        return "-"
    if fmt == "probability":
        return f"{pct(c, 6 if c < 1e-4 else 4)} = {one_in(c)}"  # a rare award keeps its digits
    if fmt == "x":
        return f"{c:,.3f}x"
    if isinstance(c, str):  # "exact": a cell without an interval because it has no error
        return c
    if fmt == "x_ci":
        return f"[{c[0]:,.3f}, {c[1]:,.3f}]x"
    if fmt == "probability_ci":
        return pct_ci(c, 6 if c[1] < 1e-4 else 4)
    if fmt == "pp_ci":
        return f"[{c[0] * 100:.3f}, {c[1] * 100:.3f}] pp"
    if fmt == "pp":
        return f"{c * 100:.3f} pp"
    if fmt == "number":
        return f"{c:,.3f}"
    if fmt == "count":
        return f"{int(c):,}"
    return str(c)


def bet_level_rows(levels: list[dict[str, Any]]) -> list[list[str]]:
    """The bet levels grouped: the bets whose wins are all whole cents in one row, each other bet alone."""
    exact = [r for r in levels if r["exact_cents"]]
    rows = []
    if exact:
        rows.append([", ".join(_bet(r) for r in exact), "a whole number of cents", "yes", f"{pct(exact[0]['rtp'])} "
                     "(the same at every one of these bets)"])
    for r in levels:
        if not r["exact_cents"]:
            rows.append([_bet(r), f"{r['cents_per_win_unit']} cents", "no: each win rounded down to the cent",
                         f"{pct(r['rtp_low'])} to {pct(r['rtp'])}"])
    return rows


def _bet(r: dict[str, Any]) -> str:
    return f"{r['bet_cents'] / 100:,.2f}" + ("" if r["on_ladder"] else " (reference stake, not on the ladder)")


def print_pdf(html_path: Path) -> Path | None:
    """Print the report to PDF with headless Chromium, without the browser's header and footer
    (None where no Chromium is installed)."""
    exe = next((shutil.which(c) for c in CHROMIUM if shutil.which(c)), None)
    if exe is None:
        return None
    pdf = html_path.with_name(PDF)
    subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    f"--print-to-pdf={pdf}", html_path.resolve().as_uri()], check=True, capture_output=True,
                   timeout=300)
    return pdf
