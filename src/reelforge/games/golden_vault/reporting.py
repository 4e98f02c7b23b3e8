"""What the certification report says of Golden Vault beyond the generic sheet: its build parameters' units (its
cells are weighted draws, not strips, and it has no paylines)."""

from __future__ import annotations

from reelforge.game.contract import Reporting


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
