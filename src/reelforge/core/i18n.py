"""The player's language: negotiation, gettext catalogs and locale formats (docs/LANGUAGES.md).

English is the source language: every message is looked up by its English text (the gettext
``msgid``) in ``reelforge/locales/<lang>/LC_MESSAGES/<domain>.po``, read with Babel once per
process; a message a catalog lacks (or leaves empty or fuzzy) is answered in English. Plural
forms follow the catalog's ``Plural-Forms`` header, which for every language is CLDR's rule as
Babel states it (:func:`plural_categories` maps its forms to CLDR categories for the browser's
``Intl.PluralRules``). Numbers, money and dates are formatted by Babel in the language's locale.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES: tuple[str, ...] = ("ar", "de", "en", "es", "fi", "fr", "hi", "id", "ja", "ko", "pl", "pt", "ru", "tr",
                              "vi", "zh")
"""The languages a player can choose (Stake Engine's ``lang`` list), ISO 639-1."""
DEFAULT_LANGUAGE = "en"
"""The source language, and the answer to any language the server does not know."""
RTL_LANGUAGES = frozenset({"ar"})
"""Languages written right to left."""
LOCALES = Path(__file__).resolve().parents[1] / "locales"
"""Where the catalogs live: ``<lang>/LC_MESSAGES/<domain>.po``."""

_TAG = re.compile(r"[A-Za-z]{2,3}(?=$|[-_])")


def _base(tag: object) -> str | None:
    """The base language of a tag (``pt-BR`` -> ``pt``) when it is one of :data:`LANGUAGES`."""
    if not isinstance(tag, str):
        return None
    m = _TAG.match(tag.strip())
    base = m.group(0).lower() if m else None
    return base if base in LANGUAGES else None


def _accepted(header: str) -> list[str]:
    """The tags of an ``Accept-Language`` header, most wanted first (``q=0`` means not wanted)."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q\s*=\s*([0-9.]+)", params)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(requested: str | None, accept_language: str | None = None) -> str:
    """The language to speak: ``requested`` (ISO 639-1 or a tag such as ``ja-JP``) when it is one of
    :data:`LANGUAGES`, else the first known one of ``accept_language``, else English. Never raises:
    anything unknown or malformed is passed over."""
    found = _base(requested)
    if found:
        return found
    if isinstance(accept_language, str):
        for tag in _accepted(accept_language):
            found = _base(tag)
            if found:
                return found
    return DEFAULT_LANGUAGE


def _language(lang: str) -> str:
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def catalog_path(lang: str, domain: str) -> Path:
    """The PO file of ``domain`` in ``lang``."""
    return LOCALES / lang / "LC_MESSAGES" / f"{domain}.po"


def domains() -> list[str]:
    """Every domain that has an English catalog (the source of its messages)."""
    return sorted(p.stem for p in (LOCALES / DEFAULT_LANGUAGE / "LC_MESSAGES").glob("*.po"))


@cache
def read_catalog(lang: str, domain: str) -> Any:
    """The Babel catalog of ``domain`` in ``lang`` (read once per process; an empty one when absent)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    path = catalog_path(lang, domain)
    if not path.exists():
        return Catalog(locale=lang, domain=domain)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")
"""The order of the plural forms in every catalog: CLDR's categories, as Babel's ``to_gettext`` numbers them."""


@cache
def plural_categories(lang: str) -> tuple[str, ...]:
    """``lang``'s CLDR plural categories, in the order of its catalogs' plural forms (``("one", "few",
    "many", "other")`` in Polish; ``("other",)`` in Japanese): every plural message has one form each."""
    from babel import Locale

    tags = Locale.parse(_language(lang)).plural_form.tags
    return tuple(c for c in CLDR_ORDER if c in tags or c == "other")


def plural_forms_header(lang: str) -> str:
    """The PO ``Plural-Forms`` header of ``lang``: CLDR's rule in gettext's C syntax (for whole numbers, so
    CLDR's exponent operand ``e`` is 0)."""
    from babel import Locale
    from babel.plural import to_gettext

    return re.sub(r"\be\b", "0", to_gettext(Locale.parse(_language(lang)).plural_form))


def plural_category(lang: str, n: int | float | Decimal) -> str:
    """The CLDR plural category of the count ``n`` in ``lang`` (``few`` for 3 in Russian)."""
    from babel import Locale

    return Locale.parse(_language(lang)).plural_form(abs(n))


class _Translations:
    """One catalog's translations: a message's text, or a plural message's forms (one per category)."""

    def __init__(self, catalog: Any) -> None:
        self.singular: dict[str, str] = {}
        self.plural: dict[str, tuple[str, ...]] = {}
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            if isinstance(message.id, (list, tuple)):
                forms = tuple(message.string) if isinstance(message.string, (list, tuple)) else ()
                if forms and all(forms):
                    self.plural[message.id[0]] = forms
            elif message.string:
                self.singular[message.id] = message.string


@cache
def _translations(lang: str, domain: str) -> _Translations:
    return _Translations(read_catalog(lang, domain))


def _fill(text: str, params: dict[str, Any]) -> str:
    return text.format(**params) if params else text


def translate(lang: str, domain: str, message: str, /, **params: Any) -> str:
    """``message`` (its English text) in ``lang``, its ``{name}`` placeholders filled from ``params``;
    English when the catalog has no translation."""
    return _fill(_translations(_language(lang), domain).singular.get(message, message), params)


def translate_plural(lang: str, domain: str, singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The form of a message for the count ``n`` in ``lang`` (CLDR's plural rule), ``{n}`` (``n`` in the
    language's number format) and the other placeholders filled; English when the catalog has no translation."""
    lang = _language(lang)
    forms = _translations(lang, domain).plural.get(singular)
    categories = plural_categories(lang)
    if forms is None or len(forms) != len(categories):
        form = singular if plural_category(DEFAULT_LANGUAGE, n) == "one" else plural
    else:
        form = forms[categories.index(plural_category(lang, n))]
    return _fill(form, {"n": format_decimal(lang, n), **params})


def client_messages(lang: str, domain: str = "client") -> dict[str, Any]:
    """A domain's messages for the browser: English text -> its translation, or for a plural message
    (keyed by its English singular) CLDR category -> form, for ``Intl.PluralRules``; English where the
    catalog has no translation."""
    lang = _language(lang)
    tr = _translations(lang, domain)
    categories = plural_categories(lang)
    out: dict[str, Any] = {}
    for message in read_catalog(DEFAULT_LANGUAGE, domain):
        if not message.id:
            continue
        if isinstance(message.id, (list, tuple)):
            forms = tr.plural.get(message.id[0])
            if forms is not None and len(forms) == len(categories):
                out[message.id[0]] = dict(zip(categories, forms))
            else:
                out[message.id[0]] = {"one": message.id[0], "other": message.id[1]}
        else:
            out[message.id] = tr.singular.get(message.id, message.id)
    return out


def _locale(lang: str) -> Any:
    from babel import Locale

    return Locale.parse(_language(lang))


def format_number(lang: str, number: int) -> str:
    """A whole number in ``lang``'s locale (``1234567`` -> ``1.234.567`` in German)."""
    from babel.numbers import format_decimal as fmt

    return fmt(number, locale=_locale(lang))


def format_decimal(lang: str, number: float | Decimal, digits: int | None = None) -> str:
    """A decimal number in ``lang``'s locale, with exactly ``digits`` fraction digits when given."""
    from babel.numbers import format_decimal as fmt

    if digits is None:
        return fmt(number, locale=_locale(lang))
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return fmt(Decimal(str(number)), format=pattern, locale=_locale(lang))


def format_percent(lang: str, fraction: float | Decimal, digits: int = 2) -> str:
    """A fraction as a percentage in ``lang``'s locale (``0.9621`` -> ``96,21 %`` in French)."""
    from babel.numbers import format_percent as fmt

    pattern = _locale(lang).percent_formats[None].pattern
    fixed = pattern.replace("#,##0", "#,##0" + ("." + "0" * digits if digits else ""), 1)
    return fmt(Decimal(str(fraction)), format=fixed, locale=_locale(lang))


def format_money(lang: str, minor_units: int, currency: str, decimals: int | None = None) -> str:
    """An amount in integer minor units of ``currency`` in ``lang``'s locale (``150, "EUR"`` -> ``1,50 €``
    in German); ``decimals``: the currency's minor unit as the server counts it (default: CLDR's)."""
    from babel.numbers import format_currency, get_currency_precision

    digits = get_currency_precision(currency) if decimals is None else decimals
    amount = Decimal(int(minor_units)).scaleb(-digits)
    locale = _locale(lang)
    pattern = locale.currency_formats["standard"].pattern
    fixed = re.sub(r"0(\.0+)?", "0" + ("." + "0" * digits if digits else ""), pattern, count=1)
    return format_currency(amount, currency, format=fixed, locale=locale, currency_digits=False)


def format_datetime(lang: str, moment: datetime | date, format: str = "medium") -> str:
    """A date and time (or a date) in ``lang``'s locale (``format``: short, medium, long or full)."""
    from babel.dates import format_date
    from babel.dates import format_datetime as fmt

    if isinstance(moment, datetime):
        return fmt(moment, format=format, locale=_locale(lang))
    return format_date(moment, format=format, locale=_locale(lang))
