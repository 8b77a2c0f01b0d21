"""The playground's page thread during a Run, in the real browser (run on demand: `python bench/playground.py`).

Opens #/playground at a puzzle's size, waits for the worker, types the puzzle's reference solution (read
here from pysim/play/solutions/, test data that the site does not ship) with the tile set by --T, presses
Run and waits for the whole of it: the run, the results drawn, the first interval drawn and the grade.
Target (issue 22): the page never blocks more than 50 ms from the click to the last of these.

Figures, each printed:
- the worker: ready how long after the playground opened (and its own start, in the worker), and the
  worker's Pyodide memory (its WebAssembly heap) at start and after the run and the grade;
- the run: Run to results drawn (and the simulation inside it), the grids drawn, the first interval drawn, the
  grade drawn, from the page's own performance measures (site/app/views/playground/runner.py SPAN_PREFIX);
- the timeline those measures make, part by part: the Run pressed, each request's way to the worker, its time
  there (the simulation is the summary's run_ms; the rest is compiling, summarising and encoding), the way back,
  the decoding, and what the page drew;
- the page: every long task (PerformanceObserver 'longtask', > 50 ms) with when it began after the click,
  frames painted (a requestAnimationFrame counter) and the longest gap between two frames;
- with --trace FILE: a Chrome trace of the whole click (open it in DevTools' Performance panel), and the
  page's tasks with the most CPU time in it (the figure a loaded machine does not inflate: a long task's
  duration is wall time, which counts the time the thread waited for a core), each named by what ran
  (a worker's message, Pyodide's next asyncio part, a layout, PyScript's observer of added elements).

    python bench/playground.py                       # build dist/, 32×32×32 tiled with T=4
    python bench/playground.py --dist /tmp/x/dist    # an existing build
    python bench/playground.py --size 16 --trace /tmp/playground-trace.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.harness import Server, launch, wait_ready  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

TARGET_MS = 50
WAIT_MS = 600_000  # a busy machine's worker boots and simulates slowly
SETTLE_MS = 1000  # after the last result: tasks still queued show up
WATCH = """() => {
  const seen = {tasks: [], frames: 0, gap: 0, last: performance.now(), clicked: performance.now()};
  window.benchSeen = seen;
  new PerformanceObserver(list => list.getEntries().forEach(e => seen.tasks.push([e.startTime - seen.clicked, e.duration])))
    .observe({type: 'longtask'});
  const tick = (now) => { seen.frames++; seen.gap = Math.max(seen.gap, now - seen.last); seen.last = now;
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  document.querySelector('#view-playground [data-testid=run]').click();
}"""
SINCE_CLICK = "() => performance.now() - window.benchSeen.clicked"
SPANS = """() => performance.getEntriesByType('measure').filter(e => e.name.startsWith('playground '))
  .map(e => [e.name.slice('playground '.length), e.startTime - window.benchSeen.clicked, e.duration])"""
# A task on the page's thread as the trace records it, and the events inside it that say what it ran.
TASK_EVENT = "ThreadControllerImpl::RunTask"
CAUSES = {"EventDispatch", "TimerFire", "FireAnimationFrame", "FunctionCall", "UpdateLayoutTree", "Layout", "Paint"}
CAUSE_MS = 3  # an event inside a task named only when it took this much CPU


def solution(puzzle_file: str, tile: int) -> str:
    text = (ROOT / "pysim" / "play" / "solutions" / puzzle_file).read_text()
    return text.replace("T = 8", f"T = {tile}", 1)


def wait_for(page, selector: str) -> float:
    page.wait_for_selector(f"#view-playground {selector}", timeout=WAIT_MS)
    return page.evaluate(SINCE_CLICK)


def busiest_tasks(events: list[dict], count: int) -> list[tuple[float, float, str]]:
    """The `count` tasks of the page's main thread with the most CPU time: (CPU ms, wall ms, what ran in it)."""
    main = next(
        (e["tid"], e["pid"])
        for e in events
        if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"
    )
    on_main = [e for e in events if (e.get("tid"), e.get("pid")) == main and e.get("ph") == "X"]
    tasks = sorted((e for e in on_main if e["name"] == TASK_EVENT), key=lambda e: -e.get("tdur", 0))[:count]
    found = []
    for task in tasks:
        end = task["ts"] + task["dur"]
        what = []
        for e in on_main:
            if task["ts"] <= e["ts"] < end and e["name"] in CAUSES and e.get("tdur", 0) >= CAUSE_MS * 1000:
                data = e.get("args", {}).get("data", {})
                where = data.get("functionName") or data.get("url", "").rsplit("/", 1)[-1] or data.get("type", "")
                label = f"{e['name']} {where} {e['tdur'] / 1000:.0f}".replace("  ", " ")
                if label not in what:
                    what.append(label)
        found.append((task.get("tdur", 0) / 1000, task["dur"] / 1000, "; ".join(what[:4]) or "(nothing named)"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dist", type=Path, help="an existing build (default: build dist/ now)")
    parser.add_argument("--size", type=int, default=32, help="M = N = K (default 32)")
    parser.add_argument("--T", type=int, default=4, help="the tile of the solution (default 4)")
    parser.add_argument("--puzzle", default="tiled", help="the puzzle graded (default tiled)")
    parser.add_argument("--file", default="smem_tiled.py", help="its solution in pysim/play/solutions/")
    parser.add_argument("--trace", type=Path, help="write a Chrome trace of the click to the results here")
    args = parser.parse_args(argv)
    server = Server(args.dist or build())
    size = args.size
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}#/playground?puzzle={args.puzzle}&M={size}&N={size}&K={size}")
            assert wait_ready(page) == "ready"
            page.wait_for_selector("#view-playground [data-testid=worker-status][data-state=ready]", timeout=WAIT_MS)
            worker = page.evaluate("() => ({...window.tilelabPlayworker})")
            page.locator("#view-playground .cm-content").fill(solution(args.file, args.T))
            page.wait_for_timeout(SETTLE_MS)  # the address follows the typing
            session = page.context.new_cdp_session(page) if args.trace else None
            events: list[dict] = []
            if session is not None:
                session.on("Tracing.dataCollected", lambda message: events.extend(message["value"]))
                categories = "devtools.timeline,disabled-by-default-devtools.timeline,toplevel,blink.user_timing"
                session.send("Tracing.start", {"categories": categories, "transferMode": "ReportEvents"})
            page.evaluate(WATCH)
            ran = wait_for(page, "[data-testid=run-status]:is([data-state=done], [data-state=failed])")
            status = page.locator("#view-playground [data-testid=run-status]")
            if status.get_attribute("data-state") != "done":
                why = page.locator("#view-playground [data-testid=diagnostics]").inner_text()
                raise SystemExit(f"the run failed: {status.inner_text()} {why}")
            results = page.locator("#view-playground [data-testid=results]")
            simulated, drawn = (int(results.get_attribute(name) or 0) for name in ("data-sim-ms", "data-draw-ms"))
            interval = wait_for(page, ".stepping[data-shown='0:0']")
            graded = wait_for(page, "[data-testid=grade]:is([data-value=pass], [data-value=fail])")
            page.wait_for_timeout(SETTLE_MS)
            seen = page.evaluate("() => window.benchSeen")
            heap = page.evaluate("() => window.tilelabPlayworker.heapBytes")
            spans = sorted(page.evaluate(SPANS), key=lambda span: span[1])
            grade = page.locator("#view-playground [data-testid=grade]").inner_text()
            if session is not None:
                finished: list[bool] = []
                session.on("Tracing.tracingComplete", lambda message: finished.append(True))
                session.send("Tracing.end")
                while not finished:
                    page.wait_for_timeout(100)
                args.trace.write_text(json.dumps({"traceEvents": events}))
            browser.close()
    finally:
        server.close()
    mib = 2**20
    print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(
        f"worker: ready {worker['readyAfterMs'] / 1000:.1f} s after the playground opened (its own start "
        f"{worker['startMs'] / 1000:.1f} s); Pyodide heap {worker['heapBytes'] / mib:.0f} MiB at start, "
        f"{heap / mib:.0f} MiB after the run and the grade"
    )
    ends = {name: start + duration for name, start, duration in spans}
    print(f"{args.file} T={args.T} at {size}×{size}×{size}, puzzle {args.puzzle}:")
    print(
        f"  Run to results drawn {ends['run: results drawn'] / 1000:.2f} s (simulated in the worker in "
        f"{simulated / 1000:.2f} s, results drawn in {drawn} ms); grids drawn at {ends['run: grids drawn'] / 1000:.2f} s; "
        f"first interval drawn at {ends['interval: first of the run drawn'] / 1000:.2f} s; graded at "
        f"{ends['grade: drawn'] / 1000:.2f} s ({grade.splitlines()[0]})"
    )
    print(
        f"  (as Playwright saw them: run done {ran / 1000:.2f} s, interval {interval / 1000:.2f} s, "
        f"grade {graded / 1000:.2f} s)"
    )
    print("  timeline (ms after the click: start, duration, part):")
    for name, start, duration in spans:
        print(f"    {start:7.0f} {duration:6.0f}  {name}")
    tasks = sorted(seen["tasks"], key=lambda task: -task[1])
    print(
        f"  page: {len(tasks)} long task(s) > {TARGET_MS} ms, longest {tasks[0][1] if tasks else 0:.0f} ms "
        f"(target {TARGET_MS}); {seen['frames']} frames, longest gap between two {seen['gap']:.0f} ms"
    )
    for start, duration in tasks[:12]:
        print(f"    {duration:5.0f} ms at {start / 1000:6.2f} s")
    if args.trace:
        print(f"  trace: {args.trace}; the page's busiest tasks, CPU ms (wall ms): what ran, CPU ms")
        for cpu, wall, what in busiest_tasks(events, 12):
            print(f"    {cpu:5.0f} ({wall:4.0f})  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
