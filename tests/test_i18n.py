"""The player's language (reelforge.core.i18n): negotiation, catalogs complete in every language, CLDR
plural forms, locale formats."""

import gettext
import re
from datetime import datetime

import pytest

from reelforge.core import i18n
from reelforge.core.i18n import LANGUAGES, LOCALES

PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.mark.parametrize(("requested", "accept", "expected"), [
    ("ja", None, "ja"), ("ja-JP", None, "ja"), ("pt_BR", None, "pt"), ("ZH-hans-CN", None, "zh"),
    ("xx", "fr-CH, de;q=0.9", "fr"), (None, "sv;q=1, de;q=0.5, ar;q=0.8", "ar"), (None, "de;q=0, ko", "ko"),
    ("", "", "en"), ("garbage!!", "not a header;q=x,,", "en"), (123, ["de"], "en"), ("e", "k", "en"),
    ("en-US", "de", "en"), ("x" * 5000, "y" * 5000, "en"),
])
def test_negotiate_takes_the_request_then_accept_language_then_english(requested, accept, expected):
    assert i18n.negotiate(requested, accept) == expected


def test_translate_fills_placeholders_and_falls_back_to_english():
    assert i18n.translate("de", "client", "This game is not offered.") == "Dieses Spiel wird nicht angeboten."
    assert i18n.translate("xx", "client", "This game is not offered.") == "This game is not offered."
    assert i18n.translate("de", "client", "No such message {x}", x=3) == "No such message 3"
    assert i18n.translate("de", "no-such-domain", "Hello") == "Hello"


def test_plural_forms_follow_cldr_in_every_language_family():
    def forms(lang):
        return [i18n.translate_plural(lang, "client", "{n} free spin", "{n} free spins", n) for n in (1, 2, 5, 22, 1000)]
    assert forms("en") == ["1 free spin", "2 free spins", "5 free spins", "22 free spins", "1,000 free spins"]
    assert forms("pl") == ["1 darmowy spin", "2 darmowe spiny", "5 darmowych spinów", "22 darmowe spiny",
                           "1\u00a0000 darmowych spinów"]
    assert forms("ru")[:4] == ["1 бесплатное вращение", "2 бесплатных вращения", "5 бесплатных вращений",
                               "22 бесплатных вращения"]
    assert forms("ar")[:3] == ["لفة مجانية واحدة", "لفتان مجانيتان", "5 لفات مجانية"]
    assert i18n.translate_plural("fr", "client", "{n} free spin", "{n} free spins", 0) == "0 tour gratuit"
    assert forms("ja")[0] == "フリースピン1回"
    assert forms("xx")[1] == "2 free spins"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_header_is_cldrs_rule_in_catalog_order(lang):
    """The gettext expression every catalog states picks, for every count, the form of its CLDR category."""
    header = i18n.plural_forms_header(lang)
    nplurals = int(re.search(r"nplurals=(\d+)", header).group(1))
    index = gettext.c2py(re.search(r"plural=(.*);", header).group(1))
    categories = i18n.plural_categories(lang)
    assert nplurals == len(categories)
    for n in range(2001):
        assert categories[index(n)] == i18n.plural_category(lang, n), (lang, n)


def _catalogs():
    return [(lang, domain) for domain in i18n.domains() for lang in LANGUAGES]


def _single_valued(lang):
    """The categories that hold exactly one whole number in ``lang`` (a form may spell that number out)."""
    seen = {}
    for n in range(1001):
        seen.setdefault(i18n.plural_category(lang, n), []).append(n)
    return {c for c, ns in seen.items() if len(ns) == 1}


@pytest.mark.parametrize(("lang", "domain"), _catalogs())
def test_every_message_is_translated_with_the_same_placeholders_and_all_plural_forms(lang, domain):
    """Every .po file found: the English catalog's messages all present, none empty or fuzzy, the same
    {placeholders}, one form per CLDR category, and the Plural-Forms header of the language."""
    source = i18n.read_catalog("en", domain)
    catalog = i18n.read_catalog(lang, domain)
    text = i18n.catalog_path(lang, domain).read_text(encoding="utf-8")
    assert f"Plural-Forms: {i18n.plural_forms_header(lang)}" in text.replace('"\n"', "")
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in source if m.id}
    have = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    assert ids == have, f"{lang}/{domain}: missing {sorted(ids - have)[:5]}, unknown {sorted(have - ids)[:5]}"
    if lang == "en":
        return
    categories = i18n.plural_categories(lang)
    spelled = _single_valued(lang)
    for m in source:
        if not m.id:
            continue
        got = catalog.get(m.id if isinstance(m.id, str) else m.id[0])
        assert not got.fuzzy, (lang, m.id)
        if isinstance(m.id, str):
            assert got.string, f"{lang}/{domain}: {m.id!r} untranslated"
            assert set(PLACEHOLDER.findall(got.string)) == set(PLACEHOLDER.findall(m.id)), (lang, m.id, got.string)
            continue
        assert isinstance(got.id, tuple) and got.id[1] == m.id[1], (lang, m.id)
        forms = got.string
        assert len(forms) == len(categories) and all(forms), (lang, m.id, forms)
        wanted = set(PLACEHOLDER.findall(m.id[1]))
        for category, form in zip(categories, forms):
            have_ph = set(PLACEHOLDER.findall(form))
            optional = {"n"} if category in spelled else set()
            assert wanted - optional <= have_ph <= wanted, (lang, m.id, category, form)


def test_catalogs_live_in_the_layout_and_languages_have_folders():
    assert "client" in i18n.domains()
    assert sorted(p.name for p in LOCALES.iterdir() if p.is_dir()) == sorted(LANGUAGES)


def test_client_messages_give_plural_forms_by_cldr_category():
    pl = i18n.client_messages("pl")
    assert pl["{n} free spin"] == {"one": "{n} darmowy spin", "few": "{n} darmowe spiny",
                                   "many": "{n} darmowych spinów", "other": "{n} darmowego spinu"}
    assert i18n.client_messages("zz")["This round has already finished."] == "This round has already finished."


def test_locale_formats():
    nb = "\u00a0"
    assert i18n.format_money("de", 123456, "EUR") == f"1.234,56{nb}€"
    assert i18n.format_money("en", 123456, "JPY") == "¥123,456"
    assert i18n.format_money("fr", -150, "EUR") == f"-1,50{nb}€"
    assert i18n.format_money("en", 1234, "BHD", decimals=3) == "BHD1.234"
    assert i18n.format_number("hi", 1234567) == "12,34,567"
    assert i18n.format_percent("de", 0.9621) == f"96,21{nb}%"
    assert i18n.format_decimal("de", 2.5, 2) == "2,50"
    assert i18n.format_datetime("de", datetime(2026, 12, 4, 22, 5)) == "04.12.2026, 22:05:00"
    assert i18n.format_money("xx", 150, "EUR") == "€1.50"
