"""What the certification report says of Golden Vault beyond the generic sheet: its build parameters' units (its
cells are weighted draws, not strips, and it has no paylines)."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from reelforge.core.numbers import one_in, pct, pp
from reelforge.game.parsheet import section
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
        # Hold and Respin by coin value (expected coins of that value per paid round) and the Grand (full boards per
        # paid round); what the cap took off closes the rows to the exact RTP
        from .exact import coins_by_value

        coins = coins_by_value(build)
        rows = [(f"coins of {Fraction(v, UNIT)}x (held and landed)", "feature", held + landed, (held + landed) * v / UNIT)
                for v, (held, landed) in coins["per_value"].items()]
        rows.append((f"Grand {build.grand_x:,}x (a full board)", "feature", coins["full_board"],
                     coins["full_board"] * build.grand_x))
        out += rows
        out.append(("what the cap took off", "cap", Fraction(0), Fraction(summary["rtp_exact"]) - sum(r[3] for r in out)))
        return out

    def exact_sections(self, build: Any, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """Hold and Respin by coin value (coins per feature held and landed, per paid round, RTP share) and the
        coins a feature ends with, exactly (:func:`.exact.coins_by_value`)."""
        if summary.get("method") != "exact":
            return []
        from .exact import coins_by_value

        c = coins_by_value(build)
        trig = c["trigger"]
        feature = sum(((h + landed) * v for v, (h, landed) in c["per_value"].items()), Fraction(0)) / UNIT \
            + c["full_board"] * build.grand_x
        rows = []
        for v, (held, landed) in c["per_value"].items():
            rtp = (held + landed) * v / UNIT
            rows.append([f"{Fraction(v, UNIT)}x", f"{float(held / trig):.6f}", f"{float(landed / trig):.6f}",
                         f"{float((held + landed) / trig):.6f}", pp(rtp, 6), pct(rtp / feature, 4)])
        grand = c["full_board"] * build.grand_x
        rows.append([f"Grand {build.grand_x:,}x (full board)", "-", "-", f"{float(c['full_board'] / trig):.6g}",
                     pp(grand, 6), pct(grand / feature, 4)])
        rows.append(["all", "", "", "", pp(feature, 6), "100%"])
        ends = [[f"{n}", pct(q, 6), one_in(q)] for n, q in c["final_coins"].items()]
        return [section("Hold and Respin by coin value (exact)",
                        ["coin value (x total bet)", "coins per feature held from the paid spin",
                         "coins per feature landed in respins", "coins per feature paid", "RTP contribution",
                         "share of Hold and Respin"], rows,
                        f"Exact, per feature (it starts in {pct(trig, 4)} of paid rounds, {one_in(trig)}): a coin's "
                        "value never changes what happens next, so each coin's value is an independent draw by the "
                        "paid-spin (held) or respin (landed) coin weights; the Grand row gives full boards per feature. "
                        "The contributions add up to the exact Hold and Respin share of the RTP."),
                section("Hold and Respin: coins at the end (exact, per feature)", ["coins paid", "probability", "1 in"],
                        ends, "The chain over (coins held, respins left), from the paid spin's coins; 15 coins is a "
                              "full board (the Grand).")]
