"""#/hierarchy in Chromium: every number follows N and T, banks, walls, quiz, keyboard."""

import pytest

from e2e.conftest import go, url_has, view
from pysim.formulas import naive_loads, tiled_loads


def section(app):
    return view(app, "hierarchy")


def number(app, testid):
    return int(section(app).locator(f"[data-testid={testid}]").get_attribute("data-value"))


def test_defaults_show_the_seed_numbers(app):
    go(app, "#/hierarchy?N=1024&T=16")
    text = section(app).inner_text()
    assert "2,147,483,648" in text and "134,217,728" in text
    assert number(app, "naive-total") == 2_147_483_648
    assert number(app, "tiled-total") == 134_217_728


@pytest.mark.parametrize("N,T", [(1000, 16), (512, 8), (300, 7), (64, 1)])
def test_numbers_follow_n_and_t(app, N, T):
    go(app, f"#/hierarchy?N={N}&T={T}")
    # Independent closed forms, written out here: 2N³ and 2N²⌈N/T⌉.
    assert number(app, "naive-total") == 2 * N**3 == naive_loads(N, N, N)
    assert number(app, "tiled-total") == 2 * N * N * -(-N // T) == tiled_loads(N, N, N, T)
    assert number(app, "per-thread-loads") == 2 * N
    assert number(app, "tiles-per-row") == -(-N // T)
    speedup = float(section(app).locator("[data-testid=speedup]").get_attribute("data-value"))
    assert speedup == pytest.approx((2 * N**3) / (2 * N * N * -(-N // T)))


def test_edge_tiles_explain_the_fifteen_times(app):
    go(app, "#/hierarchy?N=1000&T=16")
    text = section(app).locator("[data-testid=walk-step-4]").inner_text()
    assert "126,000,000" in text and "125,000,000" in text


def test_bank_step_32_way_and_padding(app):
    go(app, "#/hierarchy?N=1024&T=16&step=6")
    assert number(app, "bank-degree") == 32
    section(app).locator("[data-testid=input-pad]").select_option("1")
    assert number(app, "bank-degree") == 1
    assert url_has(app.page, "pad=1")
    section(app).locator("[data-testid=input-pad]").select_option("2")
    assert number(app, "bank-degree") == 2
    section(app).locator("[data-testid=input-access]").select_option("row")
    assert number(app, "bank-degree") == 1


def test_wall_appears_past_the_thread_limit(app):
    go(app, "#/hierarchy?N=1024&T=32")
    assert "fits" in section(app).locator("[data-testid=wall-message]").inner_text()
    go(app, "#/hierarchy?N=1024&T=33")
    message = section(app).locator("[data-testid=wall-message]").inner_text()
    assert "1,089 threads per block" in message


def test_quiz_marks_right_and_wrong(app):
    go(app, "#/hierarchy?N=1024&T=16")
    quiz = section(app)
    quiz.locator("[data-testid=quiz-tiled]").fill("33,554,432")
    quiz.locator("[data-testid=quiz-tiled-check]").click()
    assert quiz.locator("[data-testid=quiz-tiled-feedback]").get_attribute("class") == "feedback right"
    quiz.locator("[data-testid=quiz-bank]").fill("16")
    quiz.locator("[data-testid=quiz-bank-check]").click()
    feedback = quiz.locator("[data-testid=quiz-bank-feedback]")
    assert feedback.get_attribute("class") == "feedback wrong" and "32" in feedback.inner_text()
    quiz.locator("[data-testid=quiz-naive]").fill("<img src=x onerror=alert(1)>")
    quiz.locator("[data-testid=quiz-naive-check]").click()
    assert "whole number" in quiz.locator("[data-testid=quiz-naive-feedback]").inner_text()


def test_keyboard_moves_through_all_steps(app):
    go(app, "#/hierarchy?N=1024&T=16&step=0")
    app.page.locator("#view-hierarchy h1").click()
    for expected in range(1, 8):
        app.page.keyboard.press("ArrowRight")
        assert url_has(app.page, f"step={expected}")
        assert section(app).locator(f"[data-testid=walk-step-{expected}]").get_attribute("aria-current") == "step"
    app.page.keyboard.press("ArrowRight")
    assert url_has(app.page, "step=7")
    app.page.keyboard.press("ArrowLeft")
    assert url_has(app.page, "step=6")


def test_bad_url_values_show_an_error_and_keep_state(app):
    go(app, "#/hierarchy?N=1024&T=16")
    go(app, "#/hierarchy?N=abc&T=16")
    assert "N must be a whole number" in section(app).locator("[data-testid=input-error]").inner_text()
    assert number(app, "naive-total") == 2_147_483_648


def test_both_walls_are_drawn(app):
    go(app, "#/hierarchy?N=1024&T=16&step=7")
    walls = section(app).locator("[data-testid=walk-step-7] svg .wall")
    assert walls.count() == 2
    labels = section(app).locator("[data-testid=walk-step-7] svg").text_content()
    assert "1,024 threads" in labels and "shared memory" in labels
