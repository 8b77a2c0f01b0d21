"""#/playground in CPython, with no worker, so runs happen on the page (site/app/views/playground/runner.py's
run_here) and the editor is the plain text box its module's absence leaves (js_import fails here): links,
runs that fail, the stepping, the score. (Was part of tests/browser/test_playground.py; the browser keeps
the worker's run of the tiled puzzle, CodeMirror (colours, CSP, keys, jumping to a line) and the canvas's
pixels.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.score import scored_keys
from app.views.codeurl import decode, encode
from pysim.play import run
from pysim.play.puzzles import FREE_PLAY_FILE, PUZZLE_BY_KEY, starter_for, starter_text

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "pysim" / "play" / "solutions"
KNOWN_WRONG = ROOT / "tests" / "unit" / "play"


@pytest.fixture
def page(page):
    """The page where no worker starts."""
    del page.window.Worker
    return page


def counter(page, name: str) -> int:
    return page.value(f"counter-{name}")


def test_a_plain_editor_runs_where_its_module_cannot_load(page):
    page.go("#/playground?M=4&N=4&K=4")
    assert page.attribute("editor", "data-editor") == "plain-fallback"
    assert "plain text box" in page.inner_text("editor-note")
    assert page.attribute("worker-status", "data-state") == "main-thread"  # no worker: runs on the page
    source = (SOLUTIONS / "naive.py").read_text()
    page.fill("editor-plain", source).click("run")
    assert page.attribute("run-status", "data-state") == "done"
    assert counter(page, "global_loads") == run(source, 4, 4, 4).counters.global_loads
    assert page.attribute("verify", "data-value") == "ok"


def test_a_shared_link_fills_the_editor_and_runs_nothing_until_run(page):
    source = (KNOWN_WRONG / "missing_first_barrier.py").read_text()
    page.go(f"#/playground?puzzle=tiled&M=8&N=8&K=8&code={encode(source)}")
    assert not page.visible("results")
    assert page.testid("puzzle").value == "tiled"
    assert [page.testid(f"input-{n}").value for n in "MNK"] == ["8", "8", "8"]
    assert "Nothing has run" in page.inner_text("link-note")
    assert page.all('[data-testid="diagnostic"]') == []
    assert "partialSum += tileA[ty, k] * tileB[k, tx]" in page.testid("editor-plain").value
    assert {name: counter(page, name) for name in ("global_loads", "fma")} == {"global_loads": 0, "fma": 0}
    assert page.attribute("grade", "data-value") == "none"
    page.click("run")
    assert page.visible("results")
    assert counter(page, "global_loads") == run(source, 8, 8, 8).counters.global_loads


def test_a_damaged_link_says_so_and_keeps_the_starter(page):
    page.go("#/playground?puzzle=copy&code=not-a-real-link")
    error = page.testid("input-error")
    assert page.visible(error) and "code=" in page.text(error) and "starter" in page.text(error)
    assert page.testid("puzzle").value == "copy"
    text = page.testid("editor-plain").value
    assert "Copy A into C" in text and "not-a-real-link" not in text


def test_link_text_never_becomes_markup(page):
    hostile = '"""<img src=x onerror=alert(1)>"""\n<script>alert(1)</script>\n'
    page.go(f"#/playground?code={encode(hostile)}").click("run")
    assert page.all("img") == [] and page.all("script") == []
    diagnostics = page.all('[data-testid="diagnostic"]')
    assert len(diagnostics) == 1 and diagnostics[0].getAttribute("data-kind") == "error"
    assert page.attribute("results", "data-state") == "failed"


@pytest.mark.parametrize(
    "name, kind",
    [("python_error.py", "error"), ("endless_loop.py", "step_budget"), ("off_by_one.py", "out_of_bounds")],
)
def test_kernels_that_misbehave_show_a_diagnostic_not_a_crash(page, name, kind):
    source = (KNOWN_WRONG / name).read_text()
    page.go(f"#/playground?M=6&N=6&K=6&code={encode(source)}").click("run")
    found = page.all(f'[data-testid="diagnostic"][data-kind="{kind}"]')
    assert found, page.inner_text("run-status")
    assert int(str(found[0].getAttribute("data-line"))) == run(source, 6, 6, 6).diagnostics_of(kind)[0].line


def test_stepping_follows_pysim_interval_by_interval_and_thread_by_thread(page):
    source = (SOLUTIONS / "smem_tiled.py").read_text()
    page.go(f"#/playground?M=16&N=16&K=16&code={encode(source)}").click("run")
    result = run(source, 16, 16, 16)
    last = len(result.intervals) - 1
    assert page.text(page.find(".position")) == f"step 0 of {last}"
    page.click("step")
    assert page.attribute(page.find(".stepping"), "data-shown") == "1:0"
    interval = result.intervals[1]
    lines = sorted(int(str(line.getAttribute("data-line"))) for line in page.all(".code .line.executing"))
    assert lines == sorted(interval.lines())
    assert f"line {interval.barrier_lines[0]}" in page.inner_text("interval-focus")
    page.select("thread", "9")  # thread (1, 1) of an 8×8 block
    assert page.attribute(page.find(".stepping"), "data-shown") == "1:9"
    steps = interval.thread_steps(9)
    assert len(page.all("tbody tr", page.testid("thread-steps"))) == len(steps)
    first_access = next(step for step in steps if step.accesses)
    assert first_access.accesses[0].array in page.inner_text("thread-steps")
    # Warp instructions: 64 threads are 2 warps; every shared read of this interval is conflict-free.
    assert page.all("tbody tr", page.testid("warp-instructions"))
    assert "no conflict" in page.inner_text("warp-instructions")
    page.press("ArrowRight")  # → steps when the focus is outside the editor
    assert page.text(page.find(".position")) == f"step 2 of {last}"


def test_a_warp_instruction_clicked_is_highlighted_with_its_lanes_drawn_under_it(page):
    """Rows grouped by line (a heading row each), then by warp; the picture opens under the row clicked."""
    source = (SOLUTIONS / "smem_tiled.py").read_text()
    page.go(f"#/playground?M=16&N=16&K=16&code={encode(source)}").click("run")
    table = page.testid("warp-instructions")
    headings = [page.text(row) for row in page.all("tr.warp-group", table)]
    assert headings and len(headings) == len(set(headings)), headings  # each line's group once
    rows = page.all("tr.warp-row", table)
    row = rows[-1]
    page.click(row.querySelector("td"))
    assert row.classList.contains("selected") and not rows[0].classList.contains("selected")
    siblings = list(row.parentElement.children)
    following = siblings[siblings.index(row) + 1]
    assert following.querySelector("[data-testid=warp-picture]") is not None


class Recorder:
    """Stands in for site/scorm/score.js (an LMS's side): records what the page reports."""

    def __init__(self) -> None:
        self.answers: list[list] = []

    def answer(self, key: str, ok: bool, total: int, text: str) -> bool:
        self.answers.append([key, ok, total, text])
        return True

    def restored(self) -> str:
        return "{}"


def test_a_solved_puzzle_counts_toward_the_course_score(page):
    page.window.tilelabScore = recorder = Recorder()
    page.go("#/playground?puzzle=copy&quiz=1")
    page.fill("editor-plain", "x = (").click("run")  # a file that cannot run: nothing is reported
    assert recorder.answers == []
    page.fill("editor-plain", (SOLUTIONS / PUZZLE_BY_KEY["copy"].solution_file).read_text()).click("run")
    assert recorder.answers == [["puzzle:copy", True, len(scored_keys()), "solved"]]


# --- as a class exercise (was tests/browser/test_playground_exercise.py; the browser keeps the locked embed's
# first screen and its worker's grade)
def stale(page) -> bool:
    return page.attribute("results", "data-stale") == "true"


def test_results_are_marked_out_of_date_after_an_edit_a_size_change_or_a_puzzle_switch(page):
    good = starter_text(FREE_PLAY_FILE)
    page.go("#/playground?M=4&N=4&K=4").fill("editor-plain", good).click("run")
    assert not stale(page) and not page.visible("stale-note")
    page.fill("editor-plain", good + "\n# a comment\n")
    assert stale(page) and "the code changed since this run" in page.inner_text("stale-note")
    page.fill("editor-plain", good)
    assert not stale(page)  # back to what ran
    page.fill("input-N", "8")
    assert stale(page) and "the sizes changed" in page.inner_text("stale-note")
    page.fill("input-N", "4")
    assert not stale(page)
    page.select("puzzle", "naive")
    assert stale(page) and "the puzzle" in page.inner_text("stale-note")
    page.click("run")
    assert not stale(page)


def test_the_starter_code_asks_before_it_replaces_edits(page):
    page.go("#/playground?puzzle=naive")
    starter = starter_for(PUZZLE_BY_KEY["naive"])
    page.click("load-starter")  # nothing of the student's: loads at once
    assert not page.visible("confirm-starter")
    mine = starter + "\n# my own work\n"
    page.fill("editor-plain", mine).click("load-starter")
    assert page.visible("confirm-starter")
    page.click("keep-code")
    assert not page.visible("confirm-starter") and decode(page.params()["code"]) == mine
    page.click("load-starter").click("replace-code")
    assert "code" not in page.params()  # the address leaves `code` out while the editor holds the starter
    assert page.testid("editor-plain").value == starter


@pytest.mark.parametrize(
    "source, ended",
    [
        ((SOLUTIONS / "naive.py").read_text(), "done"),
        ((KNOWN_WRONG / "endless_loop.py").read_text(), "budget"),
        ("def kernel(A, B, C):\n    import os\n", "refused"),
    ],
    ids=["done", "budget", "refused"],
)
def test_the_status_and_the_summary_beside_run_say_how_the_run_ended(page, source, ended):
    """SPEC §7: one of five words in the status line and the run summary (stopped and timeout need a worker to
    stop: tests/browser/test_playworker.py)."""
    page.go(f"#/playground?M=4&N=4&K=4&code={encode(source)}").click("run")
    assert page.attribute("run-status", "data-ended") == ended
    assert page.inner_text("run-status").startswith(f"{ended}: ")
    assert page.attribute("run-summary", "data-ended") == ended
    assert page.inner_text("run-ending").startswith(f"{ended}: ")
    if ended == "budget":
        assert "step budget of 2,500,000 steps" in page.inner_text("run-status")
    if ended == "done":
        summary = page.inner_text("run-summary")
        assert "C matches" in summary or "equal" in summary, summary  # C's check
        assert f"global loads {run(source, 4, 4, 4).counters.global_loads}" in summary  # the main counters


def test_the_run_summary_sits_beside_run_not_below_the_editor(page):
    page.go("#/playground?M=4&N=4&K=4").click("run")
    bar = page.testid("run")
    summary = page.testid("run-summary")
    results = page.testid("results")
    order = [el for el in page.all("[data-testid]") if el in (bar, summary, results)]
    assert order == [bar, summary, results]


def test_the_results_say_how_atomics_serialised_and_what_went_to_local_memory(page):
    """Issue 43 item 4: pysim's passes of same-address atomics and its local-memory accesses, as pysim counted."""
    split_k = (KNOWN_WRONG / "atomic_split_k.py").read_text()
    page.go(f"#/playground?M=16&N=16&K=16&code={encode(split_k)}").click("run")
    metrics = run(split_k, 16, 16, 16).metrics
    said = page.inner_text("metrics")
    assert (
        f"{metrics.atomic_requests} atomic instruction(s), serialised into {metrics.atomic_wavefronts} pass(es)" in said
    )
    assert "local-memory" not in said
    tile = (KNOWN_WRONG / "exploits" / "one_thread_per_tile.py").read_text()
    page.go(f"#/playground?M=4&N=4&K=2&code={encode(tile)}").click("run")
    metrics = run(tile, 4, 4, 2).metrics
    said = page.inner_text("metrics")
    assert f"{metrics.local_loads + metrics.local_stores:,} local-memory access(es)" in said and "atomic" not in said


def test_the_results_say_how_many_passes_the_constant_reads_took(page):
    """Issue 43: constant memory (pysim.play.constants) is neither a global nor a shared load; the page says
    what pysim counted for it."""
    source = (KNOWN_WRONG / "constant_memory.py").read_text()
    page.go(f"#/playground?M=5&N=9&K=7&code={encode(source)}").click("run")
    m = run(source, 5, 9, 7).metrics
    said = page.inner_text("metrics")
    assert (
        f"{m.constant_loads} constant-memory read(s) in {m.constant_requests} instruction(s), served in "
        f"{m.constant_passes} pass(es)"
    ) in said
