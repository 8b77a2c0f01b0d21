"""#/teach in Chromium: the page laid out without clipping on a projector and a phone (axe-core clean), and printed, the worksheet
alone: its questions and blank lines, no answer, no site around it (css/picture.css, "teach")."""

from __future__ import annotations

import pytest

from browser.test_first_screen import SERIOUS
from browser.test_geometry import open_page, problems_on
from browser.test_ladder import AXE

TEACH = "#/teach?view=tiling&M=6&N=6&K=9&T=3"
VISIBLE = "els => els.filter(e => e.checkVisibility()).length"


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (360, 800)])
def test_the_teachers_page_fits(browser, server, width, height):
    visit = open_page(browser, server, TEACH, width, height, "light")
    try:
        assert problems_on(visit.page) == []
        assert visit.page.locator("[data-testid=teach-answer]").evaluate_all(VISIBLE) >= 6
        visit.page.evaluate(AXE.read_text())
        assert visit.page.evaluate(SERIOUS) == []
    finally:
        visit.close()


def test_printed_the_worksheet_shows_alone_without_answers(browser, server):
    visit = open_page(browser, server, TEACH, 1280, 720, "light")
    try:
        page = visit.page
        questions = page.locator("[data-testid=teach-sheet-questions] > li")
        assert questions.count() >= 6
        page.emulate_media(media="print")
        assert page.locator("[data-testid=teach-worksheet]").is_visible()
        assert questions.evaluate_all(VISIBLE) == questions.count()
        for hidden in ("teach-key", "teach-print", "teach-answer", "site-header", "share"):
            assert page.locator(f"[data-testid={hidden}]").evaluate_all(VISIBLE) == 0, hidden
        lines = page.locator("[data-testid=teach-worksheet] .answer-line").first.bounding_box()
        assert lines and lines["height"] > 20  # room to write
        page.emulate_media(media="screen")
        assert page.locator("[data-testid=teach-key]").is_visible()
    finally:
        visit.close()
