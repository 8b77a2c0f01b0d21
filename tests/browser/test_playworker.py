"""#/playground runs students' kernels in a Web Worker (site/playworker.js): the page keeps painting while a
kernel hangs, Stop and the wall-clock limit end it with a message, a kernel that crashes the simulator is
reported, the next Run works each time, and the worker downloads nothing the page has downloaded. Where no
worker can start, runs happen on the page's thread and the page says so."""

from __future__ import annotations

import json
import re
from pathlib import Path

from browser.test_playground import by_testid, press_run, shown, type_code, wait_for_editor
from browser.test_scorm import SUB_PATH, lms_server, unzip
from pysim.play.puzzles import FREE_PLAY_FILE, starter_text
from tools.harness import launch_persistent, wait_ready
from tools.sitebuild import scorm

ROOT = Path(__file__).resolve().parents[2]
GOOD = starter_text(FREE_PLAY_FILE)
# `for i in range(10**18): pass` froze the tab before issue 22; the step budget now ends it within seconds, so
# the body here is as costly a statement as the subset allows: 89 operators, 45 of them powers (a power costs
# the simulation about 8 times a product: with products the budget ran out in 1.9 s in a quiet worker, before
# the Stop test's 2 s; with powers it takes 12 s in CPython), so the kernel is still running when the Stop
# and limit tests need it to be.
HEAVY = " + ".join(["x ** 0.5"] * 45)
HANG = GOOD.replace(
    "    col, row = cuda.grid(2)\n",
    f"    col, row = cuda.grid(2)\n    x = 1.0\n    for i in range(10**18):\n        x = {HEAVY}\n",
)
# The 214-character link of issue 22: an expression of 16,000 terms overflowed Pyodide's stack in the parser.
DEEP = GOOD.replace(
    "    col, row = cuda.grid(2)\n", "    col, row = cuda.grid(2)\n    x = " + "+".join(["1"] * 16_000) + "\n"
)
RUNTIME_FILE_BYTES = 10_000  # larger than any response's headers: a revalidation moves less than its body
WORKER_READY_MS = 120_000  # a busy CI machine boots a second Pyodide slowly
LIMIT_MS = 30_000  # site/app/views/playground/runner.py RUN_LIMIT_MS, as the page states it
FRAMES = """() => { window.frames_seen = 0; const tick = () => { window.frames_seen++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick); }"""


def wait_for_worker(page, state: str = "ready") -> None:
    page.wait_for_selector(f"#view-playground [data-testid=worker-status][data-state={state}]", timeout=WORKER_READY_MS)


def open_playground(visit, sizes: str = "M=4&N=4&K=4") -> object:
    visit.open(f"#/playground?{sizes}")
    page = visit.page
    wait_for_editor(page)
    wait_for_worker(page)
    return page


def run_good(page) -> str:
    type_code(page, GOOD)
    press_run(page)
    assert by_testid(page, "run-status").get_attribute("data-state") == "done"
    return by_testid(page, "run-summary").inner_text()


def untimed(summary: str) -> str:
    """A run summary without its seconds, which differ from run to run."""
    return re.sub(r"after [0-9.]+ s", "after … s", summary)


def start_run(page, source: str) -> None:
    type_code(page, source)
    by_testid(page, "run").click()
    page.wait_for_selector("#view-playground [data-testid=run-status][data-state=running]")


def ended(page, why: str, timeout: int) -> str:
    page.wait_for_selector(f"#view-playground [data-testid=run-status][data-why={why}]", timeout=timeout)
    return by_testid(page, "run-status").inner_text()


def test_a_hanging_kernel_keeps_the_page_painting_and_stop_ends_it(visit):
    page = open_playground(visit)
    assert "a run may take 30 s" in by_testid(page, "worker-status").inner_text()
    last_good = run_good(page)
    start_run(page, HANG)
    page.evaluate(FRAMES)
    page.wait_for_timeout(2000)
    frames = page.evaluate("window.frames_seen")
    assert frames >= 20, f"the page painted {frames} frames in 2 s while the kernel ran"
    assert by_testid(page, "run-status").get_attribute("data-state") == "running"
    by_testid(page, "stop").click()
    assert ended(page, "stopped", 5000).startswith("stopped: you stopped the run")
    assert by_testid(page, "run-status").get_attribute("data-ended") == "stopped"
    assert by_testid(page, "run-summary").inner_text() == last_good  # the last good result stays
    assert by_testid(page, "results").get_attribute("data-state") == "done"
    wait_for_worker(page)
    assert untimed(run_good(page)) == untimed(last_good)
    assert visit.errors == []


def test_a_run_past_its_limit_is_stopped_with_a_message_and_the_next_run_works(visit):
    """The page's clock is Playwright's from here on: the limit passes at once, whatever this machine's speed
    (a kernel may no longer outrun the step budget for 10 s of real time)."""
    page = open_playground(visit)
    page.clock.install()
    start_run(page, HANG)
    page.clock.fast_forward(LIMIT_MS // 2)  # (the fake clock also runs on in real time meanwhile)
    page.wait_for_timeout(300)
    status = by_testid(page, "run-status")
    assert status.get_attribute("data-state") == "running", status.inner_text()  # not before its limit
    page.clock.fast_forward(LIMIT_MS)
    message = ended(page, "timeout", 5000)
    assert message.startswith("timeout: your kernel ran for 30 s without finishing")
    assert status.get_attribute("data-ended") == "timeout"
    wait_for_worker(page)
    run_good(page)
    assert visit.errors == []


def test_the_16000_term_expression_never_takes_the_page_down(visit):
    page = open_playground(visit)
    type_code(page, DEEP)
    press_run(page)
    status = by_testid(page, "run-status")
    if status.get_attribute("data-why") == "crashed":  # the interpreter died in the worker, not on the page
        assert status.inner_text().startswith("refused: your kernel crashed the simulator: ")
        wait_for_worker(page)
    else:  # refused before the parser sees it: a diagnostic naming the limit
        assert by_testid(page, "diagnostic").count() == 1
    assert page.evaluate("document.documentElement.dataset.state") == "ready"
    run_good(page)
    assert visit.errors == []


def test_where_no_worker_starts_runs_happen_on_the_page_and_it_says_so(visit):
    visit.server.faults["playworker.js"] = "missing"
    visit.open("#/playground?M=4&N=4&K=4")
    page = visit.page
    wait_for_editor(page)
    wait_for_worker(page, "main-thread")
    line = by_testid(page, "worker-status").inner_text()
    assert "Runs happen on this page's thread here" in line and "the worker could not start" in line
    run_good(page)
    assert by_testid(page, "stop").is_disabled()
    # The page's own boot guard knows nothing of the worker's files: it stays ready.
    assert page.evaluate("document.documentElement.dataset.state") == "ready"


def test_the_worker_downloads_nothing_the_page_downloaded(tmp_path, server, browser):
    """A profile on disk (a student's browser) and no service worker (a course package has none, and one that
    answers hides what the HTTP cache did): the worker's runtime files come from the HTTP cache (or are
    revalidated, a few hundred bytes of headers), never downloaded whole a second time."""
    context = launch_persistent(browser.browser_type, tmp_path / "profile", service_workers="block")
    try:
        page = context.new_page()
        page.goto(server.url + "#/playground")
        assert wait_ready(page) == "ready"
        wait_for_worker(page)
        report = page.evaluate(
            """() => ({worker: window.tilelabPlayworker.resources,
                       page: performance.getEntriesByType('resource').map(e => e.name)})"""
        )
    finally:
        context.close()
    fetched = [entry for entry in report["worker"] if entry["encodedBodySize"] > RUNTIME_FILE_BYTES]
    names = {entry["name"].removeprefix(server.url) for entry in fetched}
    assert {
        "tilelab.zip",
        "pyodide/pyodide.asm.wasm",
        "pyodide/python_stdlib.zip",
        "pyodide/numpy-bytecode.zip",
    } <= names
    assert any(name.startswith("pyodide/numpy-") and name.endswith(".whl") for name in names)
    for entry in fetched:
        assert entry["name"] in report["page"], f"the page never loaded {entry['name']}"
        assert entry["transferSize"] < entry["encodedBodySize"], f"downloaded twice: {json.dumps(entry)}"


LONG_TASKS = """() => { window.long_tasks = [];
    new PerformanceObserver(list => list.getEntries().forEach(e => window.long_tasks.push(e.duration)))
        .observe({type: 'longtask'}); }"""
# A run on the page's thread held it for the whole run, seconds (issue 22); with the worker only decoding the
# reply and drawing it are left, in parts. The target is 50 ms, but a long task's duration is wall time, and on
# a loaded machine a 20 ms part waits hundreds of ms for a core: the bound asserted leaves room for that, and
# bench/playground.py measures each task's CPU time in a Chrome trace.
PAGE_BLOCK_BOUND_MS = 1000
# When each frame's callbacks ran, to count the frames inside one of the page's measures (not the frame's own
# timestamp: a frame due while a task held the thread runs after it, stamped with a time inside it).
FRAME_TIMES = """() => { window.frame_times = [];
    const tick = () => { window.frame_times.push(performance.now()); requestAnimationFrame(tick); };
    requestAnimationFrame(tick); }"""
# The page's measures of a Run (site/app/views/playground/runner.py SPAN_PREFIX): name -> [start, end].
SPANS = """() => Object.fromEntries(performance.getEntriesByType('measure')
    .filter(e => e.name.startsWith('playground ')).map(e => [e.name, [e.startTime, e.startTime + e.duration]]))"""
TILED_T4 = (ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text().replace("T = 8", "T = 4", 1)


def test_a_tiled_run_leaves_the_page_free_and_is_measured(visit):
    """Tiled with T=4 at 16×16×16 (a size that finishes within the run's limit on a loaded CI machine): the
    results are drawn in the task that receives them, the stepping's grids after, in parts with frames painted
    between them (not in one task); prints the run, the page's longest task, and the worker's start time and
    memory."""
    visit.open("#/playground?M=16&N=16&K=16")
    page = visit.page
    opened = page.evaluate("performance.now()")
    wait_for_editor(page)
    wait_for_worker(page)
    worker = page.evaluate("({start: window.tilelabPlayworker.startMs, heap: window.tilelabPlayworker.heapBytes})")
    ready = page.evaluate("performance.now()") - opened
    type_code(page, TILED_T4)
    page.evaluate(LONG_TASKS)
    page.evaluate(FRAME_TIMES)
    started = page.evaluate("performance.now()")
    press_run(page)
    run_ms = page.evaluate("performance.now()") - started
    status = by_testid(page, "run-status")
    assert status.get_attribute("data-state") == "done", status.inner_text()
    shown(page, 0, 0)
    page.wait_for_timeout(500)  # any task still queued is seen
    tasks = sorted(page.evaluate("window.long_tasks"), reverse=True)
    longest = tasks[0] if tasks else 0
    results = by_testid(page, "results")
    spans = page.evaluate(SPANS)
    start, end = spans["playground run: grids drawn"]
    frames = [time for time in page.evaluate("window.frame_times") if start < time < end]
    pressed = spans["playground run: Run pressed"][0]
    print(
        f"\nplayground worker: ready {ready / 1000:.1f} s after the playground opened (its own start "
        f"{worker['start'] / 1000:.1f} s), Pyodide heap {worker['heap'] / 2**20:.0f} MiB; tiled 16×16×16 T=4: "
        f"Run to results drawn {(spans['playground run: results drawn'][1] - pressed) / 1000:.2f} s (simulated in "
        f"{int(results.get_attribute('data-sim-ms')) / 1000:.2f} s, drawn in {results.get_attribute('data-draw-ms')} "
        f"ms), grids drawn {(end - pressed) / 1000:.2f} s ({len(frames)} frame(s) painted meanwhile); "
        f"Playwright saw it done after {run_ms / 1000:.2f} s; the page's long tasks (ms): {[round(t) for t in tasks[:8]]}"
    )
    assert longest < PAGE_BLOCK_BOUND_MS
    assert spans["playground run: results drawn"][1] <= start  # the results first, then the grids
    assert frames, f"the grids were drawn in one task of {end - start:.0f} ms"


def test_a_course_package_runs_kernels_in_its_worker_despite_moodles_mime_types(browser, tmp_path):
    """The full SCORM package, served with Moodle's MIME table (.wasm, .mjs and .whl as document/unknown):
    the worker finds the renamed interpreter and compiles the WebAssembly from bytes, as the page does."""
    root = unzip(scorm.full_package(tmp_path / "full"), tmp_path / "lms" / SUB_PATH).parents[4]
    serving = lms_server(root)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(serving.url + SUB_PATH + "index.html#/playground?M=4&N=4&K=4")
        assert wait_ready(page) == "ready"
        wait_for_editor(page)
        wait_for_worker(page)  # in a worker, not on the page's thread
        run_good(page)
    finally:
        context.close()
        serving.close()


CLOSED = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "importScripts", "Worker", "caches"]


def test_the_worker_keeps_no_way_to_the_network(visit):
    """Issue 45, item 5: once booted, the worker where students' kernels run has no network API left in its
    global scope or on its prototypes (what Python's `js` module would reach, were a kernel to escape the subset:
    `import js` itself is refused, tests/unit/test_play_cli.py's "import os" case and test_play.py's subset tests)."""
    page = open_playground(visit)
    (worker,) = [w for w in page.workers if w.url.endswith("playworker.js")]
    assert worker.evaluate("names => names.filter(name => name in self)", CLOSED) == []
    assert run_good(page)  # and kernels still run
