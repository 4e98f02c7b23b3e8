"""Game Rules Summary reports (HTML or Markdown) a test lab can sign.

One self-contained file: the build's identity and the sample behind its figures; every figure with
its 99% interval (or "exact"); the win distribution with exact binomial intervals and "1 in N"; the
PAR-sheet content (:mod:`reelforge.analysis.par`); plots with titles, units and intervals drawn; and a
glossary that defines each figure once. PNG plots are embedded as data URIs, nothing is fetched, and
a print stylesheet lays the HTML out on A4 pages (``chromium --headless --no-pdf-header-footer
--print-to-pdf``). A Markdown report links its plots as PNG files written beside it.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from reelforge.analysis.figures import (  # noqa: E402
    bucket_words,
    component_words,
    figure_rows,
    glossary,
    interval_text,
    words,
)
from reelforge.analysis.help_text import help_html, help_lines  # noqa: E402
from reelforge.analysis.par import PAR_SAMPLE_ROUNDS, par_sheet  # noqa: E402
from reelforge.analysis.summary import add_feature_buy  # noqa: E402
from reelforge.core.numbers import one_in, pct  # noqa: E402
from reelforge.game.contract import UNPUBLISHED, Game  # noqa: E402

CONVERGENCE_ROUNDS = 10_000_000
"""Rounds simulated for the convergence plot of an exact summary."""
CONVERGENCE_CHUNK = 1 << 16
"""Its chunk size: a finer curve (the chunk size is part of what the seed reproduces)."""

COLOURS = {"bar": "#b5651d", "line": "#1a5fc0", "split": "#3a8a5b", "game": "#7a3ab0", "err": "#222222"}


# -- plots ------------------------------------------------------------------------------------------
def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _yerr(values: list[float], cis: list | None, log: bool) -> list[list[float]] | None:
    """Asymmetric error bars from intervals (on a log axis the lower end stays above zero)."""
    if not cis or not any(cis):
        return None
    lower, upper = [], []
    for v, ci in zip(values, cis):
        if not ci or not v:
            lower.append(0.0)
            upper.append(0.0)
            continue
        lo, hi = ci
        if log:
            lo = max(lo, v * 1e-3)
        lower.append(max(v - lo, 0.0))
        upper.append(max(hi - v, 0.0))
    return [lower, upper]


def _bars(ax: Any, labels: list[str], values: list[float], cis: list | None, log: bool, colour: str) -> None:
    # zero bars are left out on a log axis (log 0 is undefined) rather than drawn at the floor
    ys = [v if (v > 0 or not log) else float("nan") for v in values]
    err = _yerr(values, cis, log)
    ax.bar(range(len(labels)), ys, color=colour, yerr=err, ecolor=COLOURS["err"], capsize=3 if err else 0,
           error_kw={"elinewidth": 0.9})
    ax.set_xticks(range(len(labels)), labels, rotation=35, ha="right", fontsize=8)
    if log and any(v > 0 for v in values):
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)


def plot_distribution(s: dict[str, Any]) -> str:
    rows = s["distribution"]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    _bars(ax, [bucket_words(r, s["max_win_x"], short=True) for r in rows], [r["probability"] for r in rows],
          [r.get("ci99") for r in rows], True, COLOURS["bar"])
    ax.set_ylabel("probability per round (log scale)")
    ax.set_xlabel("round win, multiples of total bet")
    ax.set_title("Win distribution per round" + (" (exact)" if s["method"] == "exact" else
                                                 " with 99% intervals (exact binomial)"))
    return _png(fig)


def plot_convergence(checkpoints: list[tuple[int, float, float, float]], exact_rtp: float | None,
                     title: str, target: tuple[float, float] | None = None, label: str = "simulated RTP") -> str:
    """RTP after each checkpoint with its 99% band; the exact RTP, or a target with its tolerance band."""
    xs = [c[0] for c in checkpoints]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.plot(xs, [c[1] * 100 for c in checkpoints], color=COLOURS["line"], label=label,
            marker="o" if len(xs) < 40 else None, ms=3)
    ax.fill_between(xs, [c[2] * 100 for c in checkpoints], [c[3] * 100 for c in checkpoints], alpha=0.25,
                    color=COLOURS["line"], label="99% interval")
    if exact_rtp is not None:
        ax.axhline(exact_rtp * 100, color="#c01a1a", lw=1, ls="--", label="exact RTP")
    if target is not None:
        t, tol = target
        ax.axhline(t * 100, color="#c01a1a", lw=1, ls="--", label=f"target {t * 100:.2f}%")
        if tol:
            ax.axhspan((t - tol) * 100, (t + tol) * 100, color="#c01a1a", alpha=0.08,
                       label=f"target +-{tol * 100:.2f} pp")
        # the first checkpoints' bands are wide: keep the target band readable
        lows = [c[2] * 100 for c in checkpoints[len(checkpoints) // 3:]] or [t * 100]
        highs = [c[3] * 100 for c in checkpoints[len(checkpoints) // 3:]] or [t * 100]
        pad = max(tol * 100 if tol else 0.05, 0.02)
        ax.set_ylim(min(min(lows), (t - tol) * 100) - pad, max(max(highs), (t + tol) * 100) + pad)
    ax.set_xscale("log")
    ax.set_xlabel("rounds simulated (log scale)")
    ax.set_ylabel("RTP, % of stake")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


WRAP_CHARS = 60
"""A PAR table with a cell longer than this wraps its cells (its numbers stay on one line otherwise)."""


def plot_split(s: dict[str, Any]) -> str:
    split = s["rtp_split"]
    cis = s.get("rtp_split_ci99") or {}
    names = list(split)
    values = [split[n] * 100 for n in names]
    err = _yerr(values, [[v * 100 for v in cis[n]] if cis.get(n) else None for n in names], False)
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.4))
    ax.barh([words(n, component_words(s)) for n in names], values, color=COLOURS["split"], xerr=err,
            ecolor=COLOURS["err"], capsize=3 if err else 0)
    for i, v in enumerate(values):  # the label starts past the whisker, never over it
        ax.text(v + (err[1][i] if err else 0.0), i, f"  {v:.3f} pp", va="center", fontsize=8)
    ax.set_xlabel("RTP contribution, percentage points of stake")
    # the title claims intervals only where every part has one
    ax.set_title("RTP split by component" + (" (exact)" if s["method"] == "exact" else
                                             " with 99% intervals" if all(cis.get(n) for n in names) else ""))
    ax.set_xlim(0, max(values + [1]) * 1.35)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def plot_feature(pic: dict[str, Any]) -> str:
    """A game's own plot: one bar chart, or stacked panels when ``pic`` has ``series``; intervals drawn."""
    series = pic.get("series") or [{"name": pic["title"], "labels": pic["labels"], "values": pic["values"],
                                    "ci99": pic.get("ci99"), "log": pic.get("log"), "ylabel": pic.get("ylabel")}]
    fig, axes = plt.subplots(len(series), 1, figsize=(8, 3.3 * len(series)), squeeze=False)
    for ax, ser in zip(axes[:, 0], series):
        _bars(ax, ser["labels"], ser["values"], ser.get("ci99"), bool(ser.get("log", pic.get("log"))),
              COLOURS["game"])
        ax.set_title(ser["name"], fontsize=10)
        ax.set_ylabel(ser.get("ylabel") or pic.get("ylabel", ""), fontsize=9)
        ax.set_xlabel(pic.get("xlabel", ""), fontsize=9)
    if pic.get("series"):
        fig.suptitle(pic["title"])
    fig.tight_layout()
    return _png(fig)


# -- the report ----------------------------------------------------------------------------------------
def _sample_text(s: dict[str, Any]) -> str:
    sample = s.get("sample") or {}
    return sample.get("description") or s["method"]


def write_report(path: str, game: Game, build: Any, s: dict[str, Any], mode: str = "paid",
                 seed: int | None = None, workers: int | None = None,
                 checkpoints: list | None = None, par_rounds: int = PAR_SAMPLE_ROUNDS) -> Path:
    """Write the Game Rules Summary report to ``path`` (.html/.htm or .md). Adds ``feature_buy`` (games
    with Feature Buy) and ``par_sheet`` to ``s``; ``par_rounds`` reference-engine rounds back the
    PAR sheet's per-pay figures of simulated games."""
    exact_rtp = s["rtp"] if s["method"] == "exact" else s.get("exact_rtp")
    base_seed = seed if seed is not None else (s.get("seed") if s.get("seed") is not None else 2026)
    if checkpoints is None and s["method"] == "exact":
        from reelforge.analysis.simulate import simulate

        # small chunks: a finer convergence curve (the chunk size is part of the seed's meaning)
        res = simulate(game.id, build.name, CONVERGENCE_ROUNDS, base_seed, workers, mode, chunk=CONVERGENCE_CHUNK)
        checkpoints = res.checkpoints
        s["convergence_seed"] = base_seed  # the plot is reproducible from the report
    add_feature_buy(game, build, s, base_seed, workers)
    s["par_sheet"] = par_sheet(game, build, s, par_rounds, base_seed)
    ranges = "" if s["method"] == "exact" else ", with 99% intervals"
    images = [(f"Win distribution per round (log scale{ranges})", plot_distribution(s))]
    if checkpoints:
        images.append(("RTP convergence with its 99% band", plot_convergence(
            checkpoints, exact_rtp, f"RTP convergence with its 99% band ({checkpoints[-1][0]:,} rounds)")))
    images.append((f"RTP split by component{ranges}", plot_split(s)))
    for pic in game.feature_pictures(build, s):
        images.append((pic["title"], plot_feature(pic)))
    title = f"{s['title']} - build {_build_label(s)} - Game Rules Summary"
    out = Path(path)
    if out.suffix.lower() == ".md":
        # Markdown viewers choke on 200 KB data URIs: the plots are PNG files beside the report
        linked = []
        for i, (t, img) in enumerate(images, start=1):
            png = out.with_name(f"{out.stem}-plot-{i}.png")
            png.write_bytes(base64.b64decode(img))
            linked.append((t, png.name))
        out.write_text(_markdown(title, s, linked, checkpoints))
    else:
        out.write_text(_html(title, s, images, checkpoints))
    return out


def _build_label(s: dict[str, Any]) -> str:
    """The build's name and version (``96.2 v2.0``, ``96.2 (unpublished)``); a summary made before versions
    has the name only."""
    if s.get("build_version") == UNPUBLISHED:
        return f"{s['build']} (unpublished)"
    return f"{s['build']} v{s['build_version']}" if s.get("build_version") else str(s["build"])


def _identity_rows(s: dict[str, Any], checkpoints: list | None) -> list[tuple[str, str]]:
    pid = s.get("published_id")
    rows = [("game", s["title"]),
            ("published game id", pid if pid else "none published (the rules give no game id)"),
            ("game version", str(s["version"])), ("build", _build_label(s)),
            *([("build content hash", f"SHA-256 {s['build_hash']}")] if s.get("build_hash") else []),
            ("round mode", "paid rounds" if s.get("mode", "paid") == "paid" else f"{s['mode']} rounds"),
            ("figures", _sample_text(s))]
    if checkpoints and s["method"] == "exact":
        seed = f", seed {s['convergence_seed']}" if s.get("convergence_seed") is not None else ""
        rows.append(("convergence plot", f"{checkpoints[-1][0]:,} simulated rounds checked against the exact RTP "
                                         f"({len(checkpoints)} checkpoints, chunks of {CONVERGENCE_CHUNK:,} rounds{seed})"))
    par = (s.get("par_sheet") or {}).get("sample") or {}
    if par.get("kind") == "reference engine":
        feats = par["features"]
        rows.append(("PAR per-pay figures", f"reference engine, {par['rounds']:,} paid rounds (seed {par['seed']}, "
                                            f"{feats:,} feature{'' if feats == 1 else 's'})"))
    buy = s.get("feature_buy")
    if buy and buy.get("seed") is not None:
        rows.append(("Feature Buy", f"{buy['features']:,} simulated bought features (seed {buy['seed']})"))
    return rows


def _tables(s: dict[str, Any]) -> list[dict[str, Any]]:
    """Every table of the report, in order: ``{"title", "columns", "rows", "note", "level"}``."""
    exact = s["method"] == "exact"
    tables = [
        {"title": "Game Rules Summary", "columns": ["figure", "value", "99% interval"],
         "rows": [list(r) for r in figure_rows(s)], "note": f"Figures: {_sample_text(s)}.", "level": 2},
    ]
    if s["distribution"]:
        if exact:
            columns = ["round win", "probability", "1 in"]
            rows = [[bucket_words(d, s["max_win_x"]), pct(d["probability"], 6), one_in(d["probability"])]
                    for d in s["distribution"]]
        else:
            columns = ["round win", "rounds", "probability", "99% interval (exact binomial)", "1 in"]
            rows = [[bucket_words(d, s["max_win_x"]), f"{d['count']:,}", pct(d["probability"], 6),
                     interval_text(d.get("ci99"), 6), one_in(d["probability"])] for d in s["distribution"]]
        tables.append({"title": "Win distribution (per round, x total bet)", "columns": columns, "rows": rows,
                       "note": "Exact." if exact else "", "level": 2})
    par = s.get("par_sheet")
    if par:
        for i, sec in enumerate(par["sections"]):
            tables.append({"title": sec["title"], "columns": sec["columns"], "rows": sec["rows"],
                           "note": sec.get("note", ""), "level": 3, "group": "PAR sheet" if i == 0 else None})
    return tables


def _markdown(title: str, s: dict[str, Any], images: list[tuple[str, str]], checkpoints: list | None) -> str:
    def table(columns: list[str], rows: list[list[str]]) -> list[str]:
        esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
        return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)] + ["| " + " | ".join(r) + " |" for r in esc]

    lines = [f"# {title}", ""]
    lines += table(["identity", "value"], [list(r) for r in _identity_rows(s, checkpoints)])
    for t in _tables(s):
        if t.get("group"):
            lines += ["", f"## {t['group']}"]
        lines += ["", f"{'#' * t['level']} {t['title']}", ""]
        lines += table(t["columns"], t["rows"])
        if t["note"]:
            lines += ["", t["note"]]
    lines += ["", "## Plots"]
    for t, png in images:
        lines += ["", f"### {t}", "", f"![{t}]({png})"]
    lines += ["", "## Glossary", ""]
    lines += [f"* **{term}**: {text}" for term, text in glossary(s)]
    if s.get("help_text"):
        lines += help_lines(s["help_text"])
    return "\n".join(lines) + "\n"


PRINT_CSS = """
body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 2rem auto; max-width: 62rem; padding: 0 1rem;
       color: #1b1b1b; font-size: 14px; line-height: 1.35; }
h1 { font-size: 1.5rem; margin-bottom: .3rem; } h2 { font-size: 1.2rem; margin-top: 1.8rem;
     border-bottom: 2px solid #b5651d; padding-bottom: .15rem; } h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; margin: .4rem 0 .6rem; width: 100%; }
th, td { border: 1px solid #c9c4b8; padding: .22rem .45rem; text-align: left; vertical-align: top; }
td { font-variant-numeric: tabular-nums; }
thead th { background: #f1ece1; font-weight: 600; } tbody th { background: #faf7f1; font-weight: 600; width: 32%; }
table.summary th { width: 30%; } table.summary td:nth-child(2) { width: 36%; }
table.identity td:first-child { font-weight: 600; width: 25%; background: #faf7f1; }
table.par td:not(:first-child) { white-space: nowrap; }
table.par td:first-child { min-width: 9em; }
table.wide td:not(:first-child) { white-space: normal; overflow-wrap: anywhere; }
p.note { color: #555; font-size: .85rem; margin: .1rem 0 .8rem; }
figure { margin: 1rem 0; } img { max-width: 100%; } figcaption { color: #555; font-size: .85rem; }
dl dt { font-weight: 600; margin-top: .4rem; } dl dd { margin-left: 1rem; }
@page { size: A4; margin: 14mm 12mm 16mm;
        @bottom-left { content: "__FOOTER__"; font: 8pt "DejaVu Sans", sans-serif; color: #666; }
        @bottom-right { content: "page " counter(page) " of " counter(pages); font: 8pt "DejaVu Sans", sans-serif;
                        color: #666; } }
@media print {
  body { margin: 0; max-width: none; font-size: 9.5pt; padding: 0; }
  table.par { font-size: 8.5pt; }
  h2, h3, dl dt { break-after: avoid; page-break-after: avoid; }
  figure, dl dt, dl dd { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  section.plots figure { break-before: auto; }
  img { max-height: 235mm; }
  a { color: inherit; text-decoration: none; }
}
"""


def _html(title: str, s: dict[str, Any], images: list[tuple[str, str]], checkpoints: list | None) -> str:
    e = html.escape

    def table(columns: list[str], rows: list[list[str]], first_is_header: bool = False, cls: str = "") -> str:
        head = "".join(f"<th>{e(c)}</th>" for c in columns)
        body = []
        for r in rows:
            cells = [f"<th>{e(str(r[0]))}</th>" if first_is_header else f"<td>{e(str(r[0]))}</td>"]
            cells += [f"<td>{e(str(c))}</td>" for c in r[1:]]
            body.append("<tr>" + "".join(cells) + "</tr>")
        return f"<table class='{cls}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"

    ident = "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in _identity_rows(s, checkpoints))
    parts = [f"<h1>{e(title)}</h1>", f"<table class='identity'><tbody>{ident}</tbody></table>"]
    for t in _tables(s):
        if t.get("group"):
            parts.append(f"<h2>{e(t['group'])}</h2>")
        parts.append(f"<h{t['level']}>{e(t['title'])}</h{t['level']}>")
        summary = t["title"] == "Game Rules Summary"
        cls = "summary" if summary else ("par" if t["level"] == 3 else "")
        if cls == "par" and any(len(str(c)) > WRAP_CHARS for r in t["rows"] for c in r):
            cls += " wide"  # long text (strips in stop order, rules with their sources) wraps
        parts.append(table(t["columns"], t["rows"], first_is_header=summary, cls=cls))
        if t["note"]:
            parts.append(f"<p class='note'>{e(t['note'])}</p>")
    parts.append("<section class='plots'><h2>Plots</h2>")
    parts += [f"<figure><img alt='{e(t)}' src='data:image/png;base64,{img}'><figcaption>{e(t)}</figcaption></figure>"
              for t, img in images]
    parts.append("</section><h2>Glossary</h2><dl>")
    parts += [f"<dt>{e(term)}</dt><dd>{e(text)}</dd>" for term, text in glossary(s)]
    parts.append("</dl>")
    if s.get("help_text"):
        parts.append(help_html(s["help_text"]))
    body = "\n".join(parts)
    # a CSS string inside <style> (raw text: no entities): keep it free of quotes, backslashes and tags
    footer = "".join(ch for ch in f"{title} - {_sample_text(s)}" if ch not in '\\"<>')
    css = PRINT_CSS.replace("__FOOTER__", footer)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{css}</style></head><body>
{body}
</body></html>
"""

