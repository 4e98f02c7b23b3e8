"""The browser client's messages and the ``client`` catalog agree: every text the client shows through
``t(...)``, ``tn(...)`` or a ``data-i18n`` mark of index.html is a message of the English catalog (so every
language has it: tests/test_i18n.py), and the catalog holds no message nobody shows (issue 39)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import reelforge
from reelforge.core import i18n
from reelforge.server.api.games import UNFINISHED_TEXT, UNFINISHED_TITLE
from reelforge.server.errors import GENERIC_MESSAGE, PLAYER_MESSAGES

WEB = Path(reelforge.__file__).parent / "web"
GAMES = Path(reelforge.__file__).parent / "games"
"""A game's own renderer (``games/<game>/client.js``) is part of the client too."""
_CALL = re.compile(r"(?<![\w.$])(tn?)\(")
_STRING = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\')\s*')


def _literal(text: str, at: int) -> tuple[str | None, int]:
    """The JS string literal (or ``"a" + "b"`` concatenation of literals) starting at ``at``; None when the
    argument is anything else (a template, a variable: not extractable, which the test refuses)."""
    parts: list[str] = []
    while True:
        m = _STRING.match(text, at)
        if not m:
            return None, at
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        parts.append(raw.encode("latin-1", "backslashreplace").decode("unicode_escape") if "\\" in raw else raw)
        at = m.end()
        if text.startswith("+", at):
            at += 1
            continue
        return "".join(parts), at


def client_messages() -> tuple[dict[str, str | None], list[str]]:
    """Every message the client shows (English text -> its plural form for ``tn``, else None) and the calls
    whose message is not a plain literal (file and line)."""
    found: dict[str, str | None] = {}
    dynamic: list[str] = []
    for path in [*sorted(WEB.rglob("*.js")), *sorted(GAMES.glob("*/client.js"))]:
        if path.name in ("operator.js", "i18n.js"):  # the operator's page (for staff, in English); t itself
            continue
        text = path.read_text(encoding="utf-8")
        for m in _CALL.finditer(text):
            first, at = _literal(text, m.end())
            where = f"{path.relative_to(WEB.parent)}:{text.count(chr(10), 0, m.start()) + 1}"
            if first is None:
                if not text.startswith(")", m.end()) and "function" not in text[m.start() - 20:m.start()]:
                    dynamic.append(where)
                continue
            if m.group(1) == "tn":
                if not text.startswith(",", at):
                    dynamic.append(where)
                    continue
                second, _ = _literal(text, at + 1)
                if second is None:
                    dynamic.append(where)
                    continue
                found[first] = second
            else:
                found.setdefault(first, None)
    page = (WEB / "index.html").read_text(encoding="utf-8")
    for m in re.finditer(r"<(\w+)\b[^>]*\sdata-i18n(?=[\s>])[^>]*>([^<]*)</\1>", page):
        found.setdefault(html.unescape(m.group(2)).strip(), None)
    for m in re.finditer(r'<[^>]*aria-label="([^"]*)"[^>]*\sdata-i18n-label[^>]*>', page):
        found.setdefault(html.unescape(m.group(1)), None)
    return found, dynamic


def test_every_message_the_client_shows_is_in_the_catalog_and_no_other():
    shown, dynamic = client_messages()
    assert not dynamic, f"t()/tn() with a message that is not a string literal (not extractable): {dynamic}"
    catalog = {m.id if isinstance(m.id, str) else m.id[0]: (None if isinstance(m.id, str) else m.id[1])
               for m in i18n.read_catalog("en", "client") if m.id}
    # the API's refusals (server/errors.py) and the help's platform section (server/api/games.py)
    server = set(PLAYER_MESSAGES.values()) | {GENERIC_MESSAGE, UNFINISHED_TITLE, *UNFINISHED_TEXT}
    missing = {k: v for k, v in shown.items() if catalog.get(k, "absent") != v}
    unused = sorted(set(catalog) - set(shown) - server)
    assert not missing, f"shown by the client but not in client.po as shown: {sorted(missing)[:10]}"
    assert not unused, f"in client.po but shown by nobody: {unused[:10]}"


def test_the_page_marks_every_fixed_text_for_translation():
    """No English words left in index.html outside data-i18n marks (the brand and the texts the script sets)."""
    page = (WEB / "index.html").read_text(encoding="utf-8")
    body = page[page.index("<body>"):]
    unmarked = [t.strip() for t in re.findall(r">([^<>]*[A-Za-z][^<>]*)<", body)
                if not re.search(r"data-i18n[^>]*>\s*" + re.escape(t), body)]
    assert set(unmarked) <= {"reel", "forge", "SPIN", "AUTO"}, unmarked
