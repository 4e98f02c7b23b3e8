"""Suite-wide order: the files holding tests marked ``slow`` run first, most first, then the rest, the
files with the most tests first. ``make test`` hands whole files to its two workers in this order
(``--dist loadfile --no-loadscope-reorder``), so the long files start early and the workers end
together on short ones, rather than one worker finishing a long file alone (xdist's own order, by
test count, would put a file of two long tests last)."""

from __future__ import annotations

from collections import Counter

import pytest


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        name = _file(item)
        tests[name] += 1
        slow[name] += item.get_closest_marker("slow") is not None
        first.setdefault(name, index)
    # a stable sort on whole files: each file's tests stay together and in their own order
    items.sort(key=lambda item: (-slow[_file(item)], -tests[_file(item)], first[_file(item)]))
