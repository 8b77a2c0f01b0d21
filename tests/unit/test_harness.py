"""Which Chromium the browser tests and benchmarks launch."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from tools.harness import find_chromium

DEBIAN = Path("/usr/bin/chromium")


@pytest.mark.skipif(not DEBIAN.exists(), reason="Debian's chromium is not installed")
def test_debians_chromium_is_chosen_over_playwrights_download(tmp_path, monkeypatch):
    """CI once held both, and the tests ran in Playwright's Chrome for Testing, not the pinned browser."""
    monkeypatch.delenv("TILELAB_CHROMIUM", raising=False)
    downloaded = tmp_path / "chrome"
    downloaded.touch()
    assert find_chromium(SimpleNamespace(executable_path=str(downloaded))) == str(DEBIAN)


def test_the_environment_names_the_browser_first(monkeypatch):
    monkeypatch.setenv("TILELAB_CHROMIUM", "/opt/chrome/chrome")
    assert find_chromium(SimpleNamespace(executable_path="")) == "/opt/chrome/chrome"
