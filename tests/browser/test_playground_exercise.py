"""#/playground as a class exercise (issue 23): a locked, embedded puzzle keeps Run, Stop and its card on the
first screen of an 800×600 frame and grades. That results say when they are out of date and the starter code
never replaces a student's edits without asking: tests/views/test_playground.py."""

from __future__ import annotations

from browser.test_playground import by_testid, press_run, wait_for_editor
from browser.test_playworker import wait_for_worker

FRAME = {"width": 800, "height": 600}


def inside_first_screen(page, testid: str) -> bool:
    box = by_testid(page, testid).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= FRAME["height"]


def test_a_locked_embedded_puzzle_keeps_run_stop_and_its_card_and_grades(visit):
    visit.page.set_viewport_size(FRAME)
    visit.open("#/playground?puzzle=copy&M=8&N=8&K=8&embed=1&lock=1")
    page = visit.page
    wait_for_editor(page)
    assert not by_testid(page, "input-M").is_visible() and not by_testid(page, "puzzle").is_visible()
    for testid in ("run", "stop"):
        assert by_testid(page, testid).is_visible() and inside_first_screen(page, testid), testid
    assert by_testid(page, "puzzle-card").is_visible()
    wait_for_worker(page)
    press_run(page)
    page.wait_for_selector("#view-playground [data-testid=grade]:not([data-value=pending])", timeout=120_000)
    assert by_testid(page, "grade").get_attribute("data-value") in ("pass", "fail")  # graded: the starter is unsolved
