"""What the certification report says of Golden Vault beyond the generic sheet: its build parameters' units (its
cells are weighted draws, not strips, and it has no paylines)."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from reelforge.game.reporting import Reporting

from .build import NAMES, UNIT


class GoldenVaultReporting(Reporting):
    parameter_units = {
        "trigger": "coins on the board that start Hold and Respin",
        "respins": "respins, reset to this whenever a new coin lands",
        "grand_x": "x total bet: the Grand prize, for a board full of coins",
        "coin_values": "tenths of the total bet: the value of each coin kind",
        "pays": "tenths of the total bet for 5, 6, 7, 8, 9+ of a gem anywhere",
        "base": "weight of a cell's outcome in the paid spin (probability = weight / total weight)",
        "respin": "weight of an empty cell's outcome in a respin (probability = weight / total weight)",
    }

    def exact_pays(self, build: Any, summary: dict[str, Any]) -> list[tuple[str, str, Fraction, Fraction]] | None:
        """The paid spin's gem pays exactly (each of the 15 cells is an independent weighted draw, so a gem's count
        is binomial), then Hold and Respin as one row (its exact share, from its Markov chain) and the cap's
        reduction, adding up to the exact RTP."""
        split = summary.get("rtp_split_exact") or {}
        if summary.get("method") != "exact" or "hold_and_respin" not in split:
            return None
        base = build.base
        total = base["blank"] + sum(base["gems"].values()) + sum(base["coins"])
        rows = []
        for gem, pays in build.pays.items():
            p = Fraction(base["gems"][gem], total)
            for k in range(5, 16):
                prob = comb(15, k) * p**k * (1 - p) ** (15 - k)
                pay = pays[min(k, 9) - 5]
                rows.append((k, gem, prob, pay))
        out = []
        for gem in build.pays:  # 9 or more of a gem pay alike: one row
            for tier in range(5):
                mine = [(prob, pay) for k, g, prob, pay in rows if g == gem and min(k, 9) - 5 == tier]
                prob = sum((pr for pr, _ in mine), Fraction(0))
                out.append((f"{tier + 5}{'+' if tier == 4 else ''} {NAMES[gem]}", "paid spin", prob,
                            sum((pr * pay for pr, pay in mine), Fraction(0)) / UNIT))
        feature = Fraction(split["hold_and_respin"])
        out.append(("Hold and Respin: the coins' values and the Grand (exact, its Markov chain)", "feature",
                    Fraction(0), feature))
        out.append(("what the cap took off", "cap", Fraction(0), Fraction(summary["rtp_exact"]) - sum(r[3] for r in out)))
        return out
