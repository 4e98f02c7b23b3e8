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

    def rule_sources(self, build: Any) -> list[list[str]]:
        # no published rules document: the rules are the design's, read from the game's package (its reference rules,
        # its help text, its build file) and its declared targets
        design = ("design document (no published rules document): Golden Vault's rules as the engine plays them "
                  "(golden_vault/rules.py), its help text and its build file")
        targets = "design document: Golden Vault's declared design targets (golden_vault/targets.toml)"
        return [["5 reels x 3 rows; each cell an independent weighted draw: blank, a gem or a gold coin", design,
                 "rules.py, 'Draw order'; the build file's [base] weights"],
                ["5, 6, 7, 8, 9 or more of one gem anywhere pay the paytable (x total bet)", design,
                 "help, 'How wins pay'; the build file's [pays]"],
                [f"{build.trigger} or more coins start Hold and Respin; a coin shows its value "
                 f"({', '.join(f'{Fraction(v, UNIT)}x' for v in build.coin_values)} total bet)", design,
                 "help, the feature; the build file's trigger and coin_values"],
                [f"the coins stay, the other cells respin; a new coin stays and resets the respins to {build.respins}",
                 design, "rules.py, 'Draw order'; the build file's respins and [respin] weights"],
                [f"the feature pays the coins' values when no respin is left or the board is full; a full board "
                 f"adds the Grand prize of {build.grand_x:,}x total bet", design, "help, the feature; the build "
                 "file's grand_x"],
                [f"the cap {self.game.max_win_x:,}x total bet stops the round (the largest round the rules can pay)",
                 targets, "'maximum win reachable'"]]

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
