"""Game Rules Summary reports (HTML or Markdown) with embedded plots.

Plots: the win distribution (log scale), RTP convergence with its 99% band,
the RTP split by component, and the game's own feature picture
(:meth:`reelforge.game.Game.feature_picture`). Images are PNGs embedded as
data URIs, so one file carries everything and opens in any browser.
"""

from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from reelforge.game import Game  # noqa: E402

CONVERGENCE_ROUNDS = 10_000_000
"""Rounds simulated for the convergence plot of an exact summary."""


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_distribution(s: dict[str, Any]) -> str:
    rows = s["distribution"]
    labels = [r["bucket"] for r in rows]
    probs = [r["probability"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.bar(range(len(rows)), [p if p > 0 else float("nan") for p in probs], color="#c07a1a")
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)), labels, rotation=40, ha="right")
    ax.set_ylabel("probability per round (log)")
    ax.set_xlabel("round win, x total bet")
    ax.set_title("Win distribution")
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def plot_convergence(checkpoints: list[tuple[int, float, float, float]], exact_rtp: float | None,
                     title: str) -> str:
    xs = [c[0] for c in checkpoints]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.plot(xs, [c[1] * 100 for c in checkpoints], color="#1a5fc0", label="simulated RTP")
    ax.fill_between(xs, [c[2] * 100 for c in checkpoints], [c[3] * 100 for c in checkpoints], alpha=0.25,
                    color="#1a5fc0", label="99% interval")
    if exact_rtp is not None:
        ax.axhline(exact_rtp * 100, color="#c01a1a", lw=1, ls="--", label="exact RTP")
    ax.set_xscale("log")
    ax.set_xlabel("rounds")
    ax.set_ylabel("RTP %")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def plot_split(s: dict[str, Any]) -> str:
    split = s["rtp_split"]
    fig, ax = plt.subplots(figsize=(6, 2.8))
    names = list(split)
    ax.barh(names, [split[n] * 100 for n in names], color="#3a9a5b")
    for i, n in enumerate(names):
        ax.text(split[n] * 100, i, f" {split[n] * 100:.3f} pp", va="center", fontsize=8)
    ax.set_xlabel("RTP contribution, percentage points")
    ax.set_title("RTP split by component")
    ax.set_xlim(0, max([v * 100 for v in split.values()] + [1]) * 1.3)
    return _png(fig)


def _bars(ax: Any, labels: list[str], values: list[float], log: bool) -> None:
    # zero bars are left out on a log axis (log 0 is undefined) rather than drawn at the floor
    ys = [v if (v > 0 or not log) else float("nan") for v in values]
    ax.bar(range(len(labels)), ys, color="#8a3ac0")
    ax.set_xticks(range(len(labels)), labels, rotation=40, ha="right")
    if log and any(v > 0 for v in values):
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)


def plot_feature(pic: dict[str, Any]) -> str:
    """A game's own plot: one bar chart, or stacked panels when ``pic`` has ``series``."""
    series = pic.get("series")
    if not series:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        _bars(ax, pic["labels"], pic["values"], bool(pic.get("log")))
        ax.set_xlabel(pic.get("xlabel", ""))
        ax.set_ylabel(pic.get("ylabel", ""))
        ax.set_title(pic["title"])
        return _png(fig)
    fig, axes = plt.subplots(len(series), 1, figsize=(8, 3.2 * len(series)), squeeze=False)
    for ax, ser in zip(axes[:, 0], series):
        _bars(ax, ser["labels"], ser["values"], bool(ser.get("log", pic.get("log"))))
        ax.set_title(ser["name"], fontsize=10)
        ax.set_ylabel(ser.get("ylabel", pic.get("ylabel", "")))
        ax.set_xlabel(pic.get("xlabel", ""))
    fig.suptitle(pic["title"])
    fig.tight_layout()
    return _png(fig)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.6g}"
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return "[" + ", ".join(_fmt(float(x)) for x in v) + "]"
    return str(v)


FIGURE_ROWS = [
    ("method", "method"), ("rounds", "rounds"), ("seed", "seed"), ("RTP", "rtp"), ("RTP 99% interval", "rtp_ci99"),
    ("house edge", "house_edge"), ("hit rate", "hit_rate"), ("hit rate 99% interval", "hit_rate_ci99"),
    ("feature rate", "feature_rate"), ("feature frequency, 1 in", "feature_frequency_one_in"),
    ("standard deviation (x bet)", "sd"), ("volatility level (1-10)", "volatility_level"),
    ("max win (x bet)", "max_win_x"), ("max win probability", "max_win_probability"),
    ("max win, 1 in", "max_win_one_in"), ("max win observed (x bet)", "max_win_observed_x"),
    ("max win count", "max_win_count"), ("max exposure at max stake", "max_exposure"),
    ("reference stakes", "reference_stakes"),
]


def report_sections(game: Game, build: Any, s: dict[str, Any], checkpoints: list | None,
                    exact_rtp: float | None) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[dict]]:
    """(figures table rows, images (title, base64), distribution rows)."""
    figures = [(label, _fmt(s[key])) for label, key in FIGURE_ROWS if key in s and s[key] is not None]
    if s.get("estimator"):
        figures.insert(1, ("estimator", f"{s['estimator']['used']}: {s['estimator']['reason']}"))
    figures += [(f"RTP from {k}", _fmt(v)) for k, v in s["rtp_split"].items()]
    figures += [(f"hit rate: {k}", _fmt(v)) for k, v in (s.get("hit_rate_split") or {}).items()]
    images = [("Win distribution", plot_distribution(s))]
    if checkpoints:
        images.append(("RTP convergence", plot_convergence(
            checkpoints, exact_rtp, "RTP convergence with 99% band"
            + (f" ({checkpoints[-1][0]:,} rounds)" if checkpoints else ""))))
    images.append(("RTP split", plot_split(s)))
    for pic in game.feature_pictures(build, s):
        images.append((pic["title"], plot_feature(pic)))
    return figures, images, s["distribution"]


def write_report(path: str, game: Game, build: Any, s: dict[str, Any], mode: str = "paid",
                 seed: int | None = None, workers: int | None = None,
                 checkpoints: list | None = None) -> Path:
    """Write the Game Rules Summary report to ``path`` (.html/.htm or .md)."""
    exact_rtp = s["rtp"] if s["method"] == "exact" else s.get("exact_rtp")
    if checkpoints is None and s["method"] == "exact":
        from reelforge.analysis.simulate import simulate

        # small chunks: a finer convergence curve (the chunk size is part of the seed's meaning)
        res = simulate(game.id, build.name, CONVERGENCE_ROUNDS, seed if seed is not None else 2026, workers, mode,
                       chunk=1 << 16)
        checkpoints = res.checkpoints
    figures, images, dist = report_sections(game, build, s, checkpoints, exact_rtp)
    title = f"{s['title']} - build {s['build']} - Game Rules Summary"
    out = Path(path)
    if out.suffix.lower() == ".md":
        lines = [f"# {title}", "", f"Game id {s['game_id']}, version {s['version']}, mode {s.get('mode', 'paid')}.",
                 "", "| figure | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in figures]
        lines += ["", "## Win distribution", "", "| bucket (x bet) | probability |", "|---|---|"]
        lines += [f"| {d['bucket']} | {d['probability']:.8g} |" for d in dist]
        for t, img in images:
            lines += ["", f"## {t}", "", f"![{t}](data:image/png;base64,{img})"]
        out.write_text("\n".join(lines) + "\n")
        return out
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in figures)
    drows = "".join(f"<tr><td>{html.escape(d['bucket'])}</td><td>{d['probability']:.8g}</td>"
                    f"<td>{(1 / d['probability']) if d['probability'] else float('nan'):,.1f}</td></tr>"
                    for d in dist)
    imgs = "".join(f"<figure><img alt='{html.escape(t)}' src='data:image/png;base64,{img}'>"
                   f"<figcaption>{html.escape(t)}</figcaption></figure>" for t, img in images)
    doc = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }} th, td {{ border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; }}
th {{ background: #f4f1ea; font-weight: 600; }} figure {{ margin: 1.5rem 0; }} img {{ max-width: 100%; }}
figcaption {{ color: #666; font-size: .9rem; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Game id {html.escape(str(s['game_id']))}, version {html.escape(str(s['version']))},
mode {html.escape(str(s.get('mode', 'paid')))}; figures are {html.escape(s['method'])}
{'' if s['method'] == 'exact' else f"from {s['rounds']:,} simulated rounds (seed {s.get('seed')}), every estimate with its 99% interval"}.</p>
<h2>Figures</h2><table>{rows}</table>
<h2>Win distribution</h2><table><tr><th>round win (x bet)</th><th>probability</th><th>1 in</th></tr>{drows}</table>
<h2>Plots</h2>{imgs}
</body></html>
"""
    out.write_text(doc)
    return out
