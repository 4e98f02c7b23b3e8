"""The ``games`` and ``reports`` message catalogs kept in step with what the games and reports write.

Every message a help uses is found by rendering it: every build of every shipped game (the benchmark games
too), in English, with :attr:`reelforge.game.texts.Words.used` recording each
lookup. ``python -m reelforge.ops.game_catalogs`` writes the English catalogs and adds each new message, empty,
to every other language's (translations kept, messages no longer used dropped); ``--check`` only says what is
missing, exit 1 (CONTRIBUTING.md, "Texts in the player's language").
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

from reelforge.core import i18n
from reelforge.game.help import VOLATILITY_WORDS
from reelforge.game.results import MaxWin
from reelforge.game.texts import DOMAIN, Message, Words, recording


def all_games() -> list[Any]:
    """Every shipped game and benchmark game (registered for the call)."""
    from reelforge.games import mathsdk_lines, problab, registry

    with problab.registered(), mathsdk_lines.registered():
        return registry.all_games()


def help_messages(lang: str = i18n.DEFAULT_LANGUAGE) -> dict[str, set[Message]]:
    """Game id -> the messages its helps (every build) look up, and ``platform`` -> the volatility words and the
    maximum win's sentence (the server's own help section is the ``client`` catalog's)."""
    out: dict[str, set[Message]] = {}
    for game in all_games():
        with recording() as used:
            for name in game.build_names():
                game.help(game.load_build(name), lang)
        out[game.id] = used
    with recording() as used:
        words = Words(lang)
        for volatility in VOLATILITY_WORDS:   # the help API's volatility_text
            words(volatility)
        # the maximum win's sentence where its probability is known (a game with quick exact figures)
        MaxWin(Fraction(1), "exact", "", probability=Fraction(1, 2)).player_words(words)
    out["platform"] = used
    return out


def report_messages() -> set[Message]:
    """The report headings a ``--lang`` report writes in the chosen language."""
    from reelforge.analysis.help_text import HEADINGS

    return set(HEADINGS)


def catalog_messages() -> dict[str, dict[Message, list[str]]]:
    """Domain -> every message it must hold, with where it is used (game ids, ``platform``, ``reports``)."""
    games: dict[Message, list[str]] = {}
    for where, used in help_messages().items():
        for msg in used:
            games.setdefault(msg, []).append(where)
    return {DOMAIN: games, "reports": {msg: ["reports"] for msg in report_messages()}}


def glossary_comment(lang: str) -> list[str]:
    """The trade's terms in ``lang`` as the catalog's header comment (from ``locales/glossary.toml``)."""
    import tomllib

    if lang == i18n.DEFAULT_LANGUAGE:
        return []
    terms = tomllib.loads((i18n.LOCALES / "glossary.toml").read_text(encoding="utf-8"))
    return ["# Glossary (locales/glossary.toml; '|' separates accepted forms):",
            *(f"#   {term} = {per[lang]}" for term, per in terms.items())]


def _po_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _key(msg: Message) -> str:
    return msg if isinstance(msg, str) else msg[0]


def write_catalogs() -> list[str]:
    """Write the English catalogs and bring every language's in step (translations kept, messages no longer
    used dropped, new ones empty); the files written."""
    from babel import Locale

    written = []
    for domain, messages in catalog_messages().items():
        for lang in i18n.LANGUAGES:
            old = i18n.read_catalog(lang, domain)
            name = Locale.parse(lang).get_display_name("en")
            lines = [f"# reelforge: the {domain} texts in {name} (CONTRIBUTING.md, \"Texts in the player's language\").",
                     *glossary_comment(lang),
                     'msgid ""', 'msgstr ""', '"Project-Id-Version: reelforge\\n"', f'"Language: {lang}\\n"',
                     '"MIME-Version: 1.0\\n"', '"Content-Type: text/plain; charset=utf-8\\n"',
                     '"Content-Transfer-Encoding: 8bit\\n"', f'"Plural-Forms: {i18n.plural_forms_header(lang)}\\n"']
            forms = len(i18n.plural_categories(lang))
            for msg in sorted(messages, key=_key):
                kept = old.get(_key(msg)) if lang != i18n.DEFAULT_LANGUAGE else None
                lines += ["", f"#. {', '.join(sorted(messages[msg]))}", f"msgid {_po_string(_key(msg))}"]
                if isinstance(msg, str):
                    string = kept.string if kept is not None and isinstance(kept.string, str) else ""
                    lines.append(f"msgstr {_po_string(string)}")
                else:
                    strings = list(kept.string) if kept is not None and isinstance(kept.string, tuple) else []
                    strings = (strings + [""] * forms)[:forms]
                    lines.append(f"msgid_plural {_po_string(msg[1])}")
                    lines += [f"msgstr[{i}] {_po_string(t)}" for i, t in enumerate(strings)]
            path = i18n.catalog_path(lang, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            written.append(str(path))
    return written


def missing() -> list[str]:
    """Each message a language lacks (or leaves partly empty), as ``lang domain: message``."""
    problems = []
    for domain, messages in catalog_messages().items():
        for lang in i18n.LANGUAGES:
            if lang == i18n.DEFAULT_LANGUAGE:
                continue
            catalog = i18n.read_catalog(lang, domain)
            for msg in sorted(messages, key=_key):
                entry = catalog.get(_key(msg))
                strings = [] if entry is None else ([entry.string] if isinstance(msg, str) else list(entry.string))
                if not strings or not all(strings) or (entry is not None and entry.fuzzy):
                    problems.append(f"{lang} {domain}: {_key(msg)}")
    return problems


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        problems = missing()
        print("\n".join(problems) or "every message is translated in every language")
        return 1 if problems else 0
    if argv[1:]:
        print("usage: python -m reelforge.ops.game_catalogs [--check]", file=sys.stderr)
        return 2
    for path in write_catalogs():
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
