"""The help page both of problab's demo games share: the paytable, the free rounds, where the game comes from."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.game.texts import Words
from reelforge.games.problab.peer_builds import symbol_word

PEER = "zintix-labs/problab (Apache-2.0), demo/demo_configs at b825b02"


def paytable_page(symbols: tuple[str, ...], pays: tuple[tuple[int, ...], ...], unit: int, counts: list[int],
                  label: str, words: Words) -> dict[str, Any]:
    """The help's paytable of the paying symbols, one tier per count in ``counts`` (pays in ``unit`` per bet)."""
    rows = [{"art": [s] * min(counts[0], 5), "name": symbol_word(s),
             "pays_x": [str(Fraction(row[c - 1], unit)) for c in counts]}
            for s, row in zip(symbols, pays, strict=True) if max(row) > 0]
    return {"title": words("Paytable"), "tiers": [str(c) for c in counts], "tier_label": words(label),
            "note": words("Pays are multiples of the total bet; free rounds pay from their own table."), "rows": rows}


def help_page(words: Words, paytable: dict[str, Any], rules_text: tuple[str, ...]) -> dict[str, Any]:
    """The help page of both demos: the paytable, the free rounds, where the game comes from."""
    return {"paytable": paytable, "features": [{"title": words("Free rounds"), "text": [rules_text[1]]}],
            "sections": [{"title": words("Origin"), "text": [rules_text[2]]}]}
