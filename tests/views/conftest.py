"""Fixtures of the views layer: `page`, a fresh app in CPython on the build's DOM (tests/views/page.py)."""

from __future__ import annotations

import pytest

from views.page import Page, body_markup


@pytest.fixture(scope="session")
def markup(tmp_path_factory) -> str:
    """The page's <body>, with its partials, once per run."""
    return body_markup(tmp_path_factory.mktemp("page"))


@pytest.fixture
def page(markup):
    opened = Page(markup)
    yield opened
    opened.close()


@pytest.fixture
def guided_page(markup):
    """A fresh app whose addresses are left as written: the guided views open guided."""
    opened = Page(markup, guided=True)
    yield opened
    opened.close()
