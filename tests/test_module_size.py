"""Modules by concept (issue 37): every module of the package is under 500 lines, or says at its top why
it is longer (the words ``longer than 500 lines`` in its first 30 lines, with the reason)."""

from pathlib import Path

import reelforge

LIMIT = 500
ROOT = Path(reelforge.__file__).parent


def test_every_module_is_under_500_lines_or_says_why_at_its_top():
    long = []
    for path in sorted(ROOT.rglob("*.py")):
        lines = path.read_text().splitlines()
        if len(lines) >= LIMIT and "longer than 500 lines" not in "\n".join(lines[:30]):
            long.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
    assert not long, "modules of 500 lines or more that do not say why at their top:\n" + "\n".join(long)
