"""The help text as certified, in a chosen language, for the reports (``summary --lang``, ``certify --lang``).

A regulated market requires the game's help in its language: the reports stay in English and add the help
exactly as the game shows it to players in that language (rules, paytable, features), headed in English and
in that language. The package keeps it as ``help.<lang>.json`` (covered by the manifest; ``--verify``
compares it with the help the game shows now).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

from reelforge.core import i18n
from reelforge.game.contract import Build, Game
from reelforge.game.texts import N_, Words

DOMAIN = "reports"
"""The catalogs' domain of the report headings written in the chosen language."""

HEADINGS = (N_("Help text as certified"), N_("Rules"), N_("Symbol"), N_("Language"))
"""The headings the help section writes in the chosen language (beside the English)."""


def check_language(lang: str) -> str:
    """``lang`` when it is one of :data:`reelforge.core.i18n.LANGUAGES`; ValueError naming them otherwise."""
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; languages: {', '.join(i18n.LANGUAGES)}")
    return lang


def help_file(lang: str) -> str:
    """The package's file of the help text in ``lang``."""
    return f"help.{lang}.json"


def language_name(lang: str) -> str:
    """``German (Deutsch)``: the language in English and in itself."""
    from babel import Locale

    locale = Locale.parse(lang)
    english, own = locale.get_display_name("en"), locale.get_display_name(lang)
    return english if english == own else f"{english} ({own})"


def certified_help(game: Game, build: Build, lang: str) -> dict[str, Any]:
    """The help of ``build`` in ``lang`` as the reports certify it: the language and the help's JSON."""
    return {"language": check_language(lang), "language_name": language_name(lang),
            "help": game.help(build, lang).to_json()}


def _heading(lang: str, message: str) -> str:
    """A heading in English, and in ``lang`` beside it where that differs."""
    own = i18n.translate(lang, DOMAIN, message)
    return message if own == message else f"{message} / {own}"


def _pays(row: dict[str, Any], words: Words) -> list[str]:
    if row.get("pays_x") is None:
        return [row.get("text", "")]
    return [words.x(Fraction(p)) for p in row["pays_x"]]


def _blocks(certified: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    """The help as ``(kind, content)`` blocks in reading order: ``h2``/``h3`` headings, ``p`` paragraphs,
    ``table`` (columns, rows) and ``note``."""
    lang, h = certified["language"], certified["help"]
    words = Words(lang)
    yield "h2", f"{_heading(lang, 'Help text as certified')}: {certified['language_name']}"
    yield "note", (f"{h['title']}, build {h['build']} v{h['build_version']} (content hash {h['build_hash']}): "
                   f"the help as the game shows it to players in {certified['language_name']} "
                   f"({_heading(lang, 'Language')}: {lang}).")
    yield "h3", i18n.translate(lang, DOMAIN, "Rules")
    for paragraph in h["rules"]:
        yield "p", paragraph
    table = h["page"]["paytable"]
    yield "h3", table["title"]
    columns = [i18n.translate(lang, DOMAIN, "Symbol"), *(f"{table['tier_label']}: {t}" for t in table["tiers"])]
    rows = []
    for row in table["rows"]:
        pays = _pays(row, words)
        rows.append([row["name"], *pays, *[""] * (len(table["tiers"]) - len(pays))])
    yield "table", (columns, rows)
    yield "note", table["note"]
    for block in [*h["page"].get("features", []), *h["page"].get("sections", [])]:
        yield "h3", block["title"]
        for paragraph in block.get("text", []):
            yield "p", paragraph
        for item in block.get("items", []):
            amount = f" ({words.x(Fraction(item['amount_x']))})" if item.get("amount_x") else ""
            yield "p", f"{item['name']}{amount}: {item['text']}" if item.get("text") else f"{item['name']}{amount}"
        if block.get("ladder"):
            yield "p", " - ".join(words.x(Fraction(r["x"])) + (" *" if r.get("safe") else "") for r in block["ladder"])


def help_lines(certified: dict[str, Any]) -> list[str]:
    """The help as plain text lines (the CLI's output, Markdown reports)."""
    lines: list[str] = []
    for kind, content in _blocks(certified):
        if kind in ("h2", "h3"):
            lines += ["", f"{'#' * int(kind[1])} {content}", ""]
        elif kind == "table":
            columns, rows = content
            esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
            lines += ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
            lines += ["| " + " | ".join(r) + " |" for r in esc]
        else:
            lines += [content, ""]
    return lines


def help_html(certified: dict[str, Any]) -> str:
    """The help as an HTML section, marked with its language and direction (Arabic right to left)."""
    e = html.escape
    lang = certified["language"]
    parts = [f"<section class='help-text' lang='{lang}' dir='{'rtl' if lang in i18n.RTL_LANGUAGES else 'ltr'}'>"]
    for kind, content in _blocks(certified):
        if kind in ("h2", "h3"):
            parts.append(f"<{kind}>{e(content)}</{kind}>")
        elif kind == "table":
            columns, rows = content
            head = "".join(f"<th>{e(c)}</th>" for c in columns)
            body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            parts.append(f"<p class='{'note' if kind == 'note' else ''}'>{e(content)}</p>")
    parts.append("</section>")
    return "\n".join(parts)


def write_help_file(out: Path, certified: dict[str, Any]) -> Path:
    """``help.<lang>.json`` in the package ``out``."""
    import json

    path = Path(out) / help_file(certified["language"])
    path.write_text(json.dumps(certified, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    return path
