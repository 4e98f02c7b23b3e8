"""Numbers as the reports write them: percentages, "1 in N", multiples of the bet, percentage points,
exact fractions and their 99% intervals (what the PAR sheet, the figures, the certificate and the
command line share)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction


def pct(p: float | Fraction | None, places: int = 4) -> str:
    """A probability or RTP share as a fixed-decimal percentage."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return f"{float(p) * 100:.{places}f}%"


def one_in(p: float | Fraction | None) -> str:
    """"1 in N" of a probability (N with thousands separators)."""
    if not p:
        return "-"
    n = 1 / float(p)
    if n >= 1e15:  # thirty digits of "1 in" tell a reader nothing that three significant ones do not
        return f"1 in {n:.3g}"
    return f"1 in {n:,.0f}" if n >= 100 else f"1 in {n:,.2f}"


def pct_ci(ci: Iterable[float] | None, places: int = 4) -> str:
    """A 99% interval of a share as ``[lo, hi]`` in percent, with ``places`` decimals or as many more (up to 8) as
    it takes for two different ends to print differently: a narrow interval must not read as a point."""
    if not ci:
        return "-"
    lo, hi = float(ci[0]) * 100, float(ci[1]) * 100
    while lo != hi and places < 8 and f"{lo:.{places}f}" == f"{hi:.{places}f}":
        places += 1
    return f"[{lo:.{places}f}%, {hi:.{places}f}%]"


def x_bet(v: float | Fraction) -> str:
    """A multiple of the total bet, e.g. ``0.15x`` or ``2,500x``."""
    f = float(v)
    return f"{f:,.0f}x" if f == int(f) else f"{f:,.4g}x"


def fraction_text(f: Fraction, limit: int = 40) -> str:
    """An exact fraction, or a note where its digits would fill a line (the JSON has every digit)."""
    text = str(f)
    return text if len(text) <= limit else (f"a rational with a {len(str(f.denominator))}-digit denominator "
                                            "(every digit is in the JSON output)")


def pp(v: float | Fraction, places: int = 3) -> str:
    """An RTP contribution in percentage points of stake (the report's one unit for RTP parts)."""
    return f"{float(v) * 100:.{places}f} pp"


def pp_ci(ci: Iterable[float], places: int = 3) -> str:
    lo, hi = ci
    return f"[{float(lo) * 100:.{places}f}, {float(hi) * 100:.{places}f}] pp"

