"""A game's words in the player's language: the help, the paytable and the rules a game writes in Python.

Every text is written in English at its source and looked up by that English text (the gettext ``msgid``)
in the ``games`` catalogs (``reelforge/locales/<lang>/LC_MESSAGES/games.po``, :mod:`reelforge.core.i18n`).
A game's help takes a :class:`Words` and writes ``words("Three {symbol} ...", symbol=...)``; numbers go in
already formatted for the locale (:meth:`Words.number`, :meth:`Words.x`), names of games and symbols as the
game keeps them. A message the catalog lacks is shown in English; ``tests/test_game_texts.py`` demands that
every message every shipped game's help uses has a translation in every language.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from fractions import Fraction
from typing import Any

from reelforge.core import i18n

DEFAULT_LANGUAGE = i18n.DEFAULT_LANGUAGE
"""The language of a help asked for in none (English, the source)."""
DOMAIN = "games"
"""The catalogs' domain of everything a game writes for players."""


Message = str | tuple[str, str]
"""A message: its English text, or its English singular and plural."""

_USED: ContextVar[set[Message] | None] = ContextVar("used_messages", default=None)


@contextmanager
def recording() -> Iterator[set[Message]]:
    """Every message looked up inside the block, in any language (how the catalogs are kept complete)."""
    used: set[Message] = set()
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)


def N_(message: str) -> str:
    """Marks an English text kept in a constant as a message of the ``games`` catalog; translated where it is
    shown (``words(RULES_TEXT[0])``). It returns the text unchanged."""
    return message


class Words:
    """The ``games`` messages and the number formats of one language (any unknown language is English)."""

    def __init__(self, lang: str = i18n.DEFAULT_LANGUAGE) -> None:
        self.lang = lang if lang in i18n.LANGUAGES else i18n.DEFAULT_LANGUAGE

    def __call__(self, message: str, /, **params: Any) -> str:
        """``message`` (English) in this language, its ``{name}`` placeholders filled from ``params``."""
        used = _USED.get()
        if used is not None:
            used.add(message)
        return i18n.translate(self.lang, DOMAIN, message, **params)

    def plural(self, singular: str, plural: str, n: int, /, **params: Any) -> str:
        """The form of a message for the count ``n`` (the language's CLDR plural rule); ``{n}`` is ``n`` in
        the locale's digits."""
        used = _USED.get()
        if used is not None:
            used.add((singular, plural))
        return i18n.translate_plural(self.lang, DOMAIN, singular, plural, n, **params)

    def number(self, value: int | Fraction | Decimal | str) -> str:
        """An exact number for people in this locale: ``2500`` -> ``2,500`` (``2.500`` in German); a fraction
        as its decimal (``5/2`` -> ``2.5``; ``2,5``), to 6 significant digits where it does not end."""
        value = Fraction(value)
        if value.denominator == 1:
            return i18n.format_number(self.lang, int(value))
        exact = _decimal(value)
        return i18n.format_decimal(self.lang, exact, max(0, -exact.as_tuple().exponent))

    def x(self, value: int | Fraction | Decimal | str) -> str:
        """A multiple of the total bet: ``2,500x`` (the ``x`` as the catalog writes it)."""
        return self("{x}x", x=self.number(value))

    def list(self, items: Iterable[str]) -> str:
        """Items joined as the language lists them (``2x, 5x and 10x``; ``2x、5x、10x``)."""
        from babel.lists import format_list

        return format_list(list(items), locale=self.lang)

    def list_or(self, items: Iterable[str]) -> str:
        """Items as alternatives (``a, b, or c``; ``a, b oder c``)."""
        from babel.lists import format_list

        return format_list(list(items), style="or", locale=self.lang)

    def all(self, messages: Iterable[str], /, **params: Any) -> list[str]:
        """Each of ``messages`` translated and filled from the same ``params``."""
        return [self(m, **params) for m in messages]


def _decimal(value: Fraction) -> Decimal:
    """A fraction as a decimal: exact where it ends within 6 digits after the point, else 6 significant digits."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    if (value * 10**6).denominator == 1:
        return exact.normalize()
    return Decimal(f"{float(value):.6g}")


ENGLISH = Words()
"""The English words (the texts as written)."""
