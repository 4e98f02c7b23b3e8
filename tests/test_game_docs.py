"""README.md's games table and docs/maths.md's games' figures are written from the games' folders
(reelforge.ops.game_docs): they say what the folders say, and a page out of date is named."""

import shutil

import pytest

from reelforge.ops.game_docs import ROOT, GameDocsError, docs_entry, markers, stale, written


def test_the_readme_and_maths_pages_say_what_the_games_folders_say():
    assert stale() == [], "run `python -m reelforge.ops.game_docs` and commit README.md and docs/maths.md"


def test_a_page_edited_by_hand_or_a_game_changed_in_its_folder_is_named(tmp_path):
    (tmp_path / "docs").mkdir()
    for rel in ("README.md", "docs/maths.md"):
        shutil.copy(ROOT / rel, tmp_path / rel)
    assert stale(tmp_path) == []
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("| 96.0 94.0 (v2.0; 1.0) |", "| 96.0 (v2.0; 1.0) |", 1))
    maths = tmp_path / "docs" / "maths.md"
    maths.write_text(maths.read_text().replace("### Golden Vault (exact)", "### Golden Vault", 1))
    assert stale(tmp_path) == [readme, maths]


def test_the_maximum_wins_table_is_each_builds_derived_maximum_and_an_edit_is_named(tmp_path):
    """docs/maths.md's maximum wins are written from Game.published_max_win (what the lobby shows), never by hand."""
    maths = ROOT / "docs" / "maths.md"
    row = next(line for line in maths.read_text().splitlines() if line.startswith("| Canyon Ways |"))
    assert "| 5,000x, the cap | a constructed round: " in row and "every free spin" in row   # the game's own words
    assert "| 2,600x, the cap | exact: " in maths.read_text() and "2.242e-44; 1.067e-44 (exact) |" in maths.read_text()
    (tmp_path / "docs").mkdir()
    for rel in ("README.md", "docs/maths.md"):
        shutil.copy(ROOT / rel, tmp_path / rel)
    edited = tmp_path / "docs" / "maths.md"
    edited.write_text(edited.read_text().replace(row, row.replace("5,000x, the cap", "10,000x, the cap")))
    assert stale(tmp_path) == [edited]


def test_the_written_part_is_only_what_stands_between_the_markers():
    begin, end = markers("games table")
    page = f"# Games\n\nBy hand.\n{begin}\nold\n{end}\nAlso by hand.\n"
    assert written(page, "games table", "| new |") == f"# Games\n\nBy hand.\n{begin}\n\n| new |\n\n{end}\nAlso by hand.\n"
    with pytest.raises(GameDocsError, match="no part 'games table' between the lines"):
        written("# Games\n| id |\n", "games table", "| new |")


def test_a_game_without_its_docs_lines_is_refused_in_one_line(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text('id = "new-game"\nclass = "x:Y"\norder = 70\n\n[docs]\nsummary = "5x3, 20 lines"\n')
    with pytest.raises(GameDocsError, match=r"game.toml: its \[docs\] table wants first_build_rtp \(README.md's"):
        docs_entry(path)
