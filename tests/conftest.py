"""Shared fixtures. End-to-end fixtures live in tests/e2e/conftest.py."""

from pathlib import Path

import pytest

import build


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """One build of the site for the whole run."""
    return build.build(tmp_path_factory.mktemp("site") / "dist")
