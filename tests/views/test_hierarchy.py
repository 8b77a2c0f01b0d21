"""#/hierarchy in CPython: every number follows N and T, banks, walls, quiz, steps, times and sources.

(Was tests/browser/test_hierarchy.py; the browser keeps scrolling to a step, labels inside their
pictures, the prose before Python, and the keyboard.)"""

import re

import pytest

from pysim.hardware.devices import DEVICES
from pysim.hardware.params import HierarchyParams
from pysim.lessons.formulas import naive_loads, tiled_loads
from pysim.lessons.ladder import measured_seconds
from pysim.lessons.walkthrough import Walkthrough
from pysim.speed import measured
from timetext import bound_times, durations


def test_defaults_show_the_seed_numbers(page):
    page.go("#/hierarchy?N=1024&T=16")
    text = page.inner_text()
    assert "2,147,483,648" in text and "134,217,728" in text
    assert page.value("naive-total") == 2_147_483_648
    assert page.value("tiled-total") == 134_217_728


@pytest.mark.parametrize("N,T", [(1000, 16), (512, 8), (300, 7), (64, 1)])
def test_numbers_follow_n_and_t(page, N, T):
    page.go(f"#/hierarchy?N={N}&T={T}")
    # Independent closed forms, written out here: 2N³ and 2N²⌈N/T⌉.
    assert page.value("naive-total") == 2 * N**3 == naive_loads(N, N, N)
    assert page.value("tiled-total") == 2 * N * N * -(-N // T) == tiled_loads(N, N, N, T)
    assert page.value("per-thread-loads") == 2 * N
    assert page.value("tiles-per-row") == -(-N // T)
    speedup = float(str(page.attribute("speedup", "data-value")))
    assert speedup == pytest.approx((2 * N**3) / (2 * N * N * -(-N // T)))


def test_edge_blocks_explain_the_excess(page):
    page.go("#/hierarchy?N=1000&T=16")
    text = page.inner_text("walk-step-4")
    assert "126,000,000" in text and "125,000,000" in text
    assert "zero-filled" in text and "only 8 wide" in text and "1,000,000 more" in text


def test_reduction_is_computed_not_fifteen(page):
    page.go("#/hierarchy?N=1024&T=40")
    step5 = page.testid("walk-step-5")
    assert page.text(page.testid("speedup", step5)) == "39.38×"
    assert "15×" not in page.inner_text()
    assert "global-load reduction" in page.inner_text(step5) and "L2" in page.inner_text(step5)


def test_tile_wider_than_matrix_explains_the_2n2_floor(page):
    page.go("#/hierarchy?N=8&T=16")
    assert page.visible("floor-loads") and page.attribute("floor-loads", "data-value") == "128"
    text = page.inner_text("walk-step-4")
    assert "2N²" in text and "capped" in text and "= 8" in text
    assert page.value("tiled-total") == 128
    page.go("#/hierarchy?N=1024&T=16")
    assert not page.visible("floor-loads")


def test_enter_in_a_quiz_box_checks_it(page):
    page.go("#/hierarchy?N=1024&T=16")
    page.fill("quiz-padded", "1").press("Enter", "quiz-padded")
    assert page.attribute("quiz-padded-feedback", "class") == "feedback right"
    assert page.visible(page.find("form[data-quiz=padded] .explain"))
    assert page.params()["N"] == "1024"  # still on the page: the form did not navigate


def test_controls_are_bound_once(page):
    page.go("#/hierarchy?N=1024&T=16&step=6")
    pad = page.testid("input-pad")
    for value in ("1", "0", "2", "0"):
        page.select(pad, value)
    page.go("#/hierarchy?N=512&T=8&step=6")
    assert page.testid("input-pad") is pad and page.view.contains(pad)  # the same select, updated, not rebuilt
    assert page.value("bank-degree") == 32


def test_bank_step_32_way_and_padding(page):
    page.go("#/hierarchy?N=1024&T=16&step=6")
    assert page.value("bank-degree") == 32
    page.select("input-pad", "1")
    assert page.value("bank-degree") == 1
    assert page.params()["pad"] == "1"
    page.select("input-pad", "2")
    assert page.value("bank-degree") == 2
    page.select("input-access", "row")
    assert page.value("bank-degree") == 1


def test_wall_appears_past_the_thread_limit(page):
    page.go("#/hierarchy?N=1024&T=32")
    assert "fits" in page.inner_text("wall-message")
    page.go("#/hierarchy?N=1024&T=33")
    assert "1,089 threads per block" in page.inner_text("wall-message")


def test_quiz_marks_right_and_wrong(page):
    page.go("#/hierarchy?N=1024&T=16")
    page.fill("quiz-tiled", "33,554,432").click("quiz-tiled-check")
    assert page.attribute("quiz-tiled-feedback", "class") == "feedback right"
    page.fill("quiz-bank", "16").click("quiz-bank-check")
    feedback = page.testid("quiz-bank-feedback")
    assert page.attribute(feedback, "class") == "feedback wrong" and "32" not in page.text(feedback)  # see test_quiz
    page.fill("quiz-naive", "<img src=x onerror=alert(1)>").click("quiz-naive-check")
    assert "whole number" in page.text("quiz-naive-feedback")


def test_next_and_back_move_through_all_steps(page):
    """The step buttons (the keyboard's arrows are the browser's test_keyboard_moves_through_all_steps)."""
    page.go("#/hierarchy?N=1024&T=16&step=0")
    for expected in range(1, 8):
        page.click("step")
        assert page.params()["step"] == str(expected)
        assert page.attribute(f"walk-step-{expected}", "aria-current") == "step"
    assert page.testid("step").disabled
    page.click("prev")
    assert page.params()["step"] == "6"
    page.press("ArrowLeft")
    assert page.params()["step"] == "5"


def test_bad_url_values_show_an_error_and_keep_state(page):
    page.go("#/hierarchy?N=1024&T=16")
    page.go("#/hierarchy?N=abc&T=16")
    assert "N must be a whole number" in page.inner_text("input-error")
    assert page.value("naive-total") == 2_147_483_648


def test_both_walls_are_drawn(page):
    page.go("#/hierarchy?N=1024&T=16&step=7")
    picture = page.find("svg", page.testid("walk-step-7"))
    assert len(page.all(".wall", picture)) == 2
    labels = page.text(picture)
    assert "1,024 threads" in labels and "shared memory" in labels
    ticks = [page.text(tick) for tick in page.all("text", picture)]
    assert "20" in ticks and "40" in ticks and not any("." in t for t in ticks if t.replace(".", "").isdigit())


@pytest.mark.parametrize("route", ["N=1024&T=16", "N=1000&T=16", "N=8&T=16", "N=1&T=1", "N=16384&T=256&device=h100"])
def test_every_step_draws_a_labelled_picture(page, route):
    """(That each label lies inside its picture is the browser's test_every_svg_label_inside_its_picture.)"""
    for step in range(8):
        page.go(f"#/hierarchy?{route}&step={step}")
        assert page.all("svg.picture text", page.testid(f"walk-step-{step}")), step


# --- steps 5 and 7: a time is the bound or a labelled estimate, and only for a tile that launches ---------
def siboehm_seconds(*numbers: int) -> list[float]:
    """siboehm's measured times at 4096³ on the RTX A6000 (0: cuBLAS)."""
    return [measured_seconds(measured(n).gflops) for n in numbers]


def test_no_bound_on_the_page_is_beaten_by_siboehms_kernels(page):
    # His kernel 2 (naive, coalesced, 32×32 blocks) and kernel 3 (shared-memory tiled, 32): the kernels of this page
    # at his size on his card. A bound holds for any kernel, so it must not exceed cuBLAS's time either.
    page.go("#/hierarchy?N=4096&T=32&device=rtxa6000&step=5")
    text = page.inner_text()
    printed = bound_times(text)
    assert printed, "the page prints the bound"
    assert max(printed) <= min(siboehm_seconds(1, 2, 3, 0))
    bound = float(str(page.attribute("time-bound", "data-value")))
    assert bound == Walkthrough(HierarchyParams(N=4096, T=32, device="rtxa6000")).bound.seconds
    estimate = page.testid("time-estimate")
    assert "Estimate (speed model, not a measurement)" in page.inner_text(estimate)
    assert float(str(estimate.getAttribute("data-naive"))) >= bound
    assert float(str(estimate.getAttribute("data-tiled"))) >= bound
    assert "global-load reduction" in text and "32.00×" in text


def test_a_tile_that_cannot_launch_prints_no_speed(page):
    page.go("#/hierarchy?N=100&T=33&step=5")
    text = page.inner_text()
    assert durations(text) == [] and "FLOP/s" not in text
    assert not page.visible("time-bound") and not page.visible("time-estimate")
    why = page.testid("no-time")
    assert page.visible(why) and "cannot launch" in page.text(why) and "1,089 threads per block" in page.text(why)
    assert "gives no time" in page.inner_text("wall-message")
    step5 = page.inner_text("walk-step-5")  # no traffic for a kernel that cannot run
    assert not page.visible("no-reuse") and "would reach DRAM" not in step5
    assert "not a run" in page.text(why)
    page.go("#/hierarchy?N=100&T=32&step=5")  # one smaller, and the times come back
    assert page.visible("time-bound") and page.visible("no-reuse") and not page.visible("no-time")


@pytest.mark.parametrize("device", ["a100", "h200", "t4"])
def test_each_latency_links_its_source_or_says_it_is_an_assumption(page, device):
    page.go(f"#/hierarchy?N=1024&T=16&device={device}&step=0")
    d = DEVICES[device]
    for field in ("latency_register", "latency_shared", "latency_l2", "latency_global"):
        figure, link = getattr(d, field), page.find(f"[data-source={field}]")
        if not figure.source.startswith("https://"):  # a modelled assumption
            assert link.getAttribute("href") is None and page.text(link) == "none: a modelled assumption"
        else:
            assert link.getAttribute("href") == figure.source and page.text(link) == "source"
    text = page.inner_text("walk-step-0")
    assert "ticks of arithmetic" not in text and "other warps" in text and "four places" in text


@pytest.mark.parametrize("N, T", [(1, 1), (8, 1), (17, 16), (1024, 16)])
def test_reuse_counts_read_right_in_every_step(page, N, T):
    page.go(f"#/hierarchy?N={N}&T={T}&step=0")
    text = page.inner_text()
    # A reuse of 1 reads "1 thread", "1 time", "1 output cell", "1 use"; never a plural after 1.
    assert not re.findall(r"\b1 (?:threads|times|uses|values|output cells)\b", text)
    reuse = Walkthrough(HierarchyParams(N=N, T=T)).reuse
    assert f"used by up to {reuse} {'thread' if reuse == 1 else 'threads'}" in " ".join(text.split())
