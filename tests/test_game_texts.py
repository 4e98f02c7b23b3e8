"""The games' help in the player's language: every shipped game's help in every language uses only translated
messages, leaves no English but the names the game keeps, writes numbers the locale's way, and follows the
trade glossary (src/reelforge/locales/glossary.toml)."""

from __future__ import annotations

import re
import tomllib
from functools import cache

import pytest

from reelforge.core import i18n
from reelforge.game.texts import DOMAIN, Words, recording
from reelforge.ops.game_catalogs import all_games, catalog_messages, help_messages, missing

OTHER_LANGUAGES = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT_LANGUAGE]
LATIN = {"de", "es", "fi", "fr", "id", "pl", "pt", "tr", "vi"}
"""Languages written in the Latin script: an English word there is found by the English vocabulary."""
GLOSSARY = tomllib.loads((i18n.LOCALES / "glossary.toml").read_text(encoding="utf-8"))

KEPT_NAMES = ("GEMBOX", "FORGE REEL", "Hold and Respin", "Grand", "Stake", "RTP", "WILD", "SCATTER", "Splitter")
"""Names of features and brands the games keep in every language (the glossary says so where a term)."""
SAME_SPELLING = {
    "de": {"video", "plus", "rest", "symbols", "symbol", "symbole", "cluster", "respin", "respins", "extrem", "multiplikator", "position", "positionen"},
    "es": {"total", "respin", "respins", "base", "error", "final"},
    "fr": {"cascade", "cascades", "total", "position", "respin", "respins", "bonus", "forge", "table", "base",
           "multiples", "plus", "multiple", "copies", "rouleau", "symbole", "symboles", "origine", "valeurs",
           "prix", "sur", "est", "pour", "les", "des", "une", "ses", "son", "sa"},
    "fi": {"respin", "respins"},
    "id": {"total", "respin", "level", "slot", "video", "operator", "per"},
    "pl": {"symbol", "respin", "respiny", "respinu", "respinów", "operator", "spin", "plus"},
    "pt": {"total", "respin", "respins", "base", "final"},
    "tr": {"bonus", "respin", "video", "slot"},
    "vi": {"slot", "video"},
}
"""Words of a language spelt as an English word of the texts (``Symbol`` in German, ``total`` in Spanish)."""


@cache
def helps(lang: str) -> dict[str, list[dict]]:
    """Game id -> the help of each of its builds in ``lang`` (JSON)."""
    return {g.id: [g.help(g.load_build(name), lang).to_json() for name in g.build_names()] for g in all_games()}


def _texts(value, key: str = "") -> list[str]:
    """Every text a player reads in a help's JSON (not keys, art, amounts or ids)."""
    if key in ("art", "pays_x", "amount_x", "x", "game", "game_id", "build", "build_hash", "build_version", "version",
               "rtp", "rtp_proof", "published_id", "extra", "max_win", "language", "volatility", "symbol_names", "title_id"):
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, k)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts(v, key)]
    return []


@cache
def english_vocabulary() -> frozenset[str]:
    """Every word (3+ letters) of the English messages."""
    words: set[str] = set()
    for messages in catalog_messages().values():
        for msg in messages:
            for text in ([msg] if isinstance(msg, str) else msg):
                words |= {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", "", text))}
    return frozenset(words)


def _names(game_id: str, help_: dict) -> list[str]:
    """What may stay in English in a game's help: its title, its symbols' names, the kept features, the peer."""
    names = [help_["title"], *help_["symbol_names"].values(), *KEPT_NAMES]
    names += [term for term, per in GLOSSARY.items() if per.get(help_["language"]) == per["en"]]
    if help_["title"] in ("problab demo_normal", "problab demo_cascade"):
        from reelforge.games.problab.peer_help import PEER
        names.append(PEER)
    if game_id == "forge-of-gems":   # the FORGE REEL's symbols
        from reelforge.games.forge_of_gems.game import FORGE_WORDS
        names += [name for name, _ in FORGE_WORDS.values()]
    if game_id == "mathsdk-lines":
        from reelforge.games.mathsdk_lines.game import PEER
        names.append(PEER)
    names += [name.split(" (")[0] for name in names]   # "Red Flower Jewel (Scatter)": its name without the note
    return sorted(set(names), key=len, reverse=True)


def english_left(lang: str, game_id: str, help_: dict) -> list[str]:
    """The English words left in a help in ``lang`` (names and kept terms taken out first)."""
    found = []
    vocabulary = english_vocabulary()
    names = _names(game_id, help_)
    for text in _texts(help_):
        for name in names:
            text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
        for word in re.findall(r"[^\W\d_]{2,}" if lang in LATIN else r"[A-Za-z]{2,}", text):
            if lang in LATIN:
                if word.lower() in vocabulary and word.lower() not in SAME_SPELLING.get(lang, set()):
                    found.append(word)
            else:
                found.append(word)
    return found


def test_every_message_a_help_uses_is_translated_in_every_language():
    assert missing() == []


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_every_game_help_is_in_the_language_with_no_english_left(lang):
    left = {}
    for game_id, builds in helps(lang).items():
        for help_ in builds:
            assert help_["language"] == lang
            left |= {word: f"{game_id} {help_['build']}" for word in english_left(lang, game_id, help_)}
    assert not left, f"{lang}: English words left: {left}"


def test_the_english_word_check_finds_english():
    """The check that passes every language above finds an English sentence, and a untranslated help."""
    help_ = helps("de")["forge-of-fortunes"][0]
    assert english_left("de", "forge-of-fortunes", {**help_, "rules": ["Three Gold Nuggets trigger the feature."]})
    assert english_left("ja", "forge-of-fortunes", {**help_, "language": "ja"})


def test_help_numbers_follow_the_locale():
    game = next(g for g in all_games() if g.id == "forge-of-fortunes")
    build = game.load_build(game.default_build())
    top = build.ladder[-1]
    assert top >= 1000
    de = game.help(build, "de")
    assert f"{top // 1000}.{top % 1000:03d}x" in " ".join(de.rules)      # 2.500x
    fr = game.help(build, "fr")
    assert f"{top // 1000}\u202f{top % 1000:03d}" in " ".join(fr.rules)  # 2 500 (narrow no-break space)
    en = game.help(build, "en")
    assert f"{top // 1000},{top % 1000:03d}x" in " ".join(en.rules)
    assert Words("de").number(__import__("fractions").Fraction(5, 2)) == "2,5"


def test_an_unknown_language_is_english():
    game = all_games()[0]
    build = game.load_build(game.default_build())
    assert game.help(build, "xx").to_json() == game.help(build).to_json()
    assert game.help(build).language == "en"


def test_plural_messages_choose_the_form_of_the_count():
    assert Words("ru").plural("{n} free spin", "{n} free spins", 1) == "1 бесплатное вращение"
    assert Words("ru").plural("{n} free spin", "{n} free spins", 3) == "3 бесплатных вращения"
    assert Words("ru").plural("{n} free spin", "{n} free spins", 5) == "5 бесплатных вращений"
    assert Words("pl").plural("{n} free spin", "{n} free spins", 22) == "22 darmowe spiny"
    with recording() as used:
        Words("ja").plural("{n} free spin", "{n} free spins", 2)
    assert used == {("{n} free spin", "{n} free spins")}


def test_the_glossary_names_every_term_in_every_language():
    for term, per in GLOSSARY.items():
        assert set(per) >= set(i18n.LANGUAGES), f"glossary {term!r} lacks {sorted(set(i18n.LANGUAGES) - set(per))}"
        assert per["en"].lower() == term


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_translations_use_the_glossary_terms(lang):
    """Where an English message says a glossary term, its translation says the glossary's word for it."""
    catalog = i18n.read_catalog(lang, DOMAIN)
    wrong = []
    for term, per in GLOSSARY.items():
        if "pattern" not in per:   # a name kept in every language (Wild, Scatter, RTP)
            continue
        want = [w.strip().lower() for w in per[lang].split("|")]
        for message in catalog:
            if not message.id:
                continue
            ids = [re.sub(r"\{\w+\}", "", m) for m in ([message.id] if isinstance(message.id, str) else message.id)]
            texts = [message.string] if isinstance(message.string, str) else list(message.string)
            if any(re.search(per["pattern"], m) for m in ids):
                for text in texts:
                    # the dot of Turkish İ stays a combining mark when lowered: drop it
                    if not any(_stem(w) in text.lower().replace("\u0307", "") for w in want):
                        wrong.append(f"{term!r} -> {per[lang]!r}: {text}")
    assert not wrong, "\n".join(wrong)


def _stem(word: str) -> str:
    """The part of a glossary word that its inflected forms keep (``Freispiel`` of ``Freispiele``)."""
    return word[: max(3, len(word) - 2)] if len(word) > 5 and " " not in word else word


def test_each_game_uses_its_own_messages():
    """Every shipped game and the platform's help section look up messages (nothing bypasses the catalog)."""
    used = help_messages()
    assert {"forge-of-fortunes", "gemstones-gold", "forge-of-gems", "seven-lines", "golden-vault",
            "problab-demo-normal", "problab-demo-cascade", "mathsdk-lines", "platform"} <= set(used)
    assert all(used.values())
