"""Reports in English plus a chosen language: ``summary --lang`` and ``certify --lang`` add the help text as the
game shows it to players in that language; the certification package keeps it, its manifest and --verify cover
it (tests/analysis/test_certify.py); an unknown language is one line and exit 2."""

import json
import subprocess
import sys

import pytest

from reelforge.analysis.help_text import certified_help, help_html, help_lines
from reelforge.core.i18n import LANGUAGES
from reelforge.games.registry import get_game


def cli(*args):
    """The command line in this process (the kernels already compiled): exit code, stdout, stderr."""
    from typer.testing import CliRunner

    from reelforge.cli import app
    from reelforge.cli.common import CliError

    result = CliRunner().invoke(app, list(args))
    if isinstance(result.exception, CliError):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_summary_lang_de_prints_the_english_summary_and_the_german_help():
    code, out, err = cli("summary", "forge-of-fortunes", "--build", "96.2", "--lang", "de")
    assert code == 0, err
    assert "RTP" in out                                          # the English summary first
    assert "Help text as certified / Hilfetext wie zertifiziert: German (Deutsch)" in out
    assert "Gewinntabelle" in out and "## Regeln" in out
    assert "Der Maximalgewinn beträgt 2.500x des Gesamteinsatzes" in out   # German words, German digits
    assert "Paytable" not in out.split("Hilfetext", 1)[1]


def test_summary_json_carries_the_help_in_the_language():
    code, out, err = cli("summary", "forge-of-fortunes", "--build", "96.2", "--lang", "ja", "--json")
    assert code == 0, err
    text = json.loads(out)["help_text"]
    assert text["language"] == "ja" and text["help"]["language"] == "ja"
    assert text["help"]["page"]["paytable"]["title"] == "ペイテーブル"


def test_an_unknown_lang_is_one_line_and_exit_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "reelforge", "summary", "forge-of-fortunes", "--lang", "xx"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == "error: --lang: unknown language 'xx'; languages: " + ", ".join(LANGUAGES)
    from reelforge.cli.common import CliError

    with pytest.raises(CliError, match="--lang: unknown language 'pt-XX'"):   # the same line, exit 2 (cli.main)
        cli("certify", "forge-of-fortunes", "--out", str(tmp_path / "x"), "--lang", "pt-XX")
    assert not (tmp_path / "x").exists()


def test_the_arabic_help_section_reads_right_to_left():
    game = get_game("forge-of-fortunes")
    certified = certified_help(game, game.load_build(game.default_build()), "ar")
    html = help_html(certified)
    assert "lang='ar' dir='rtl'" in html and "جدول الدفع" in html
    assert any("جدول الدفع" in line for line in help_lines(certified))
