"""Shared fixtures. End-to-end fixtures live in tests/e2e/conftest.py."""

from pathlib import Path

import pytest

from tools.build import site


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """One build of the site for the whole run."""
    return site.build(tmp_path_factory.mktemp("site") / "dist")
