"""Suite-wide order: the files holding tests marked ``slow`` run first, most first, then the rest, the
files with the most tests first. ``make test`` hands whole files to its two workers in this order
(``--dist loadfile --no-loadscope-reorder``), so the long files start early and the workers end
together on short ones, rather than one worker finishing a long file alone (xdist's own order, by
test count, would put a file of two long tests last)."""

from __future__ import annotations

from collections import Counter

import pytest

SHARED_EXACT = ("tests/games/test_problab_demos.py", "tests/test_conformance.py", "tests/games/test_exact_games.py",
                "tests/analysis/test_stake.py", "tests/test_game_contract.py", "tests/server/test_stake_rgs.py")
"""Files that enumerate the same builds exactly (Seven Lines 96.0 and 94.0, Golden Vault's, problab's demo_normal:
seconds to a minute of CPU each; test_stake_rgs.py exports Seven Lines 96.0, whose exact figures alone take
10.8 CPU s). ``make test`` hands them to one worker together, so each build is enumerated once there and read
from the process's cache of exact figures (``once_per_build``) after, rather than once per worker that
happens to take one of the files."""


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without xdist (one process) nothing to schedule
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadfile`` as xdist does it (whole files, in this file's order), the files of
    :data:`SHARED_EXACT` as one unit."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedExactTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return SHARED_EXACT[0] if scope in SHARED_EXACT else scope

    return SharedExactTogether(config, log)


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


def pytest_configure(config: pytest.Config) -> None:
    import os

    if os.environ.get("REELFORGE_TEST_COSTS"):
        from tests.cost_log import ENV, CostLog

        config.pluginmanager.register(CostLog(os.environ[ENV]), "reelforge-cost-log")
