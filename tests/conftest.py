"""Shared fixtures, and the layers: each folder of tests/ is one, marked by its name.

`tests/unit/` (pysim and tools), `tests/views/` (views built in CPython on the build's DOM),
`tests/build/` (the build and its files) and `tests/browser/` (Chromium against dist/). `make
test-fast` runs every layer but the browser's (`-m "not browser"`). Browser fixtures live in
tests/browser/conftest.py; helpers shared across layers (bruteforce.py, timetext.py) beside this file.
"""

from pathlib import Path

import pytest

from tools.sitebuild import site

TESTS = Path(__file__).resolve().parent
LAYERS = ("unit", "views", "build", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        layer = item.path.relative_to(TESTS).parts[0]
        if layer not in LAYERS:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in one of tests/{{{','.join(LAYERS)}}}/")
        item.add_marker(getattr(pytest.mark, layer))


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """One build of the site for the whole run."""
    return site.build(tmp_path_factory.mktemp("site") / "dist")
