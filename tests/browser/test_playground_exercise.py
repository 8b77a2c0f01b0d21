"""#/playground as a class exercise (issue 23): a locked, embedded puzzle keeps Run, Stop and its card on the
first screen of an 800×600 frame and grades; results say when they are out of date; the starter code never
replaces a student's edits without asking."""

from __future__ import annotations

from browser.test_playground import by_testid, editor_text, press_run, type_code, wait_for_editor
from browser.test_playworker import GOOD, wait_for_worker
from pysim.play.puzzles import PUZZLE_BY_KEY, starter_for

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


def stale(page) -> bool:
    page.wait_for_timeout(100)
    return by_testid(page, "results").get_attribute("data-stale") == "true"


def test_results_are_marked_out_of_date_after_an_edit_a_size_change_or_a_puzzle_switch(visit):
    visit.open("#/playground?M=4&N=4&K=4")
    page = visit.page
    wait_for_editor(page)
    wait_for_worker(page)
    type_code(page, GOOD)
    press_run(page)
    assert not stale(page) and not by_testid(page, "stale-note").is_visible()
    type_code(page, GOOD + "\n# a comment\n")
    assert stale(page) and "the code changed since this run" in by_testid(page, "stale-note").inner_text()
    type_code(page, GOOD)
    assert not stale(page)  # back to what ran
    by_testid(page, "input-N").fill("8")
    assert stale(page) and "the sizes changed" in by_testid(page, "stale-note").inner_text()
    by_testid(page, "input-N").fill("4")
    assert not stale(page)
    by_testid(page, "puzzle").select_option("naive")
    assert stale(page) and "the puzzle" in by_testid(page, "stale-note").inner_text()
    press_run(page)
    assert not stale(page)


def test_the_starter_code_asks_before_it_replaces_edits(visit):
    visit.open("#/playground?puzzle=naive")
    page = visit.page
    wait_for_editor(page)
    starter = starter_for(PUZZLE_BY_KEY["naive"])
    by_testid(page, "load-starter").click()  # nothing of the student's: loads at once
    assert not by_testid(page, "confirm-starter").is_visible()
    mine = starter + "\n# my own work\n"
    type_code(page, mine)
    by_testid(page, "load-starter").click()
    assert by_testid(page, "confirm-starter").is_visible()
    by_testid(page, "keep-code").click()
    assert not by_testid(page, "confirm-starter").is_visible() and editor_text(page, mine) == mine
    by_testid(page, "load-starter").click()
    by_testid(page, "replace-code").click()
    assert editor_text(page, "") == ""  # the address leaves `code` out while the editor holds the starter
    assert visit.errors == []
