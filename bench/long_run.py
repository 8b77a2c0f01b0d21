"""Long runs (run on demand: `python bench/long_run.py`).

Steps every view to its end at the largest animatable size, as fast as the
page answers (faster than the fastest play speed), and reports the slowest
step and memory after the run against after the first step. Targets: no step
over 100 ms; memory within 1.5× (JS heap + Python's WebAssembly memory).

Then the lifetimes: the four stepping views are stepped to the end and played
and paused many times, and the playground runs the tiled puzzle's reference
solution at 32×32×32 twenty times in a row. After the first and the last round
it reports the live pyodide proxies and the JS heap. Proxies are counted by
app.core.dom's Listeners (every listener and timer proxy the app makes goes
through it; `window.tilelabLiveProxies`): pyodide 0.27 has no public count of
live proxies. The JS heap is read after a forced collection (CDP's
HeapProfiler.collectGarbage, then Runtime.getHeapUsage: the same figure as
performance.memory.usedJSHeapSize after gc(), without its coarse buckets).
Target: both within 1.1× of after the first round.

    python bench/long_run.py [--view tiling] [--rounds 20] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))

from app.views.codeurl import encode  # noqa: E402
from tools.harness import Server, launch, wait_ready  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CASES = (
    ("tiling 64×64×64 T=8", "tiling", "#/tiling?M=64&N=64&K=64&T=8&step=0&guide=0"),
    ("register 64³ 16/16/8 4×4", "register", "#/register?M=64&N=64&K=64&BM=16&BN=16&BK=8&TM=4&TN=4&step=0&guide=0"),
    ("hierarchy N=16384 T=32", "hierarchy", "#/hierarchy?N=16384&T=32&step=0"),
)
# Stepping views for the lifetime check: a round is Reset, step to the end, then Play and Pause PLAYS times.
LIFETIME_CASES = (
    ("tiling", "#/tiling?M=32&N=32&K=32&T=8&step=0&guide=0"),
    ("register", "#/register?M=32&N=32&K=32&BM=16&BN=16&BK=8&TM=4&TN=4&step=0&guide=0"),
    ("naive", "#/naive?M=32&N=32&K=8&T=32&map=row&thread=0,0&step=0&guide=0"),
    ("transpose", "#/transpose?n=64&T=32&pad=0&step=0&guide=0"),
)
PLAYS = 10
TARGET = 1.1
STEP_UNTIL_END = """([view, limit]) => {
  const button = document.querySelector(`#view-${view} [data-testid=step]`);
  let slowest = 0, at = 0, steps = 0;
  while (!button.disabled && steps < limit) {
    const start = performance.now();
    button.click();
    const took = performance.now() - start;
    if (took > slowest) [slowest, at] = [took, steps + 1];
    steps++;
  }
  return [steps, slowest, at];
}"""
# One round of a stepping view: from the start to the end, then Play/Pause (each Play starts the timer).
STEPPING_ROUND = """([view, plays]) => {
  const q = (id) => document.querySelector(`#view-${view} [data-testid=${id}]`);
  q("reset").click();
  while (!q("step").disabled) q("step").click();
  q("reset").click();
  for (let i = 0; i < plays; i++) { q("play").click(); q("play").click(); }
}"""
PLAYGROUND_RUN = """async () => {
  const q = (id) => document.querySelector(`#view-playground [data-testid=${id}]`);
  q("run").click();
  const settled = () => q("results").getAttribute("data-state") === "done"
    && !["pending", "none"].includes(q("grade").getAttribute("data-value"));
  q("grade").setAttribute("data-value", "none");
  while (!settled()) await new Promise((resolve) => setTimeout(resolve, 50));
  q("step").click();
  q("next-block").click();
}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=10**7, help="stop each run after this many steps")
    views = ("tiling", "register", "hierarchy", "naive", "transpose", "playground")
    parser.add_argument("--view", choices=views, help="run only this view")
    parser.add_argument("--rounds", type=int, default=20, help="rounds (playground: Runs) of the lifetime check")
    parser.add_argument("--out", type=Path, help="build here (default: a temporary folder, leaving dist/ alone)")
    args = parser.parse_args(argv)
    scratch = tempfile.TemporaryDirectory()
    server = Server(build(args.out or Path(scratch.name) / "dist"))
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            cdp = page.context.new_cdp_session(page)

            def js_heap() -> float:
                cdp.send("HeapProfiler.collectGarbage")
                return cdp.send("Runtime.getHeapUsage")["usedSize"]

            def memory() -> float:
                return js_heap() + page.evaluate("window.tilelabWasmBytes()")

            def lifetimes(label: str, one_round) -> None:
                one_round()
                proxies, heap = page.evaluate("window.tilelabLiveProxies"), js_heap()
                for _ in range(args.rounds - 1):
                    one_round()
                last_proxies, last_heap = page.evaluate("window.tilelabLiveProxies"), js_heap()
                print(
                    f"{label:<28} {args.rounds} rounds  proxies {proxies:,} → {last_proxies:,} "
                    f"(×{last_proxies / proxies:.3f})  JS heap {heap / 2**20:.1f} → {last_heap / 2**20:.1f} MiB "
                    f"(×{last_heap / heap:.3f}; target {TARGET})"
                )

            page.goto(server.url + "#/")
            wait_ready(page)
            for label, view, route in CASES:
                if args.view and view != args.view:
                    continue
                page.evaluate("hash => { location.hash = hash; }", route)
                page.wait_for_timeout(500)
                page.click(f"#view-{view} [data-testid=step]")
                first = memory()
                steps, slowest, at = page.evaluate(STEP_UNTIL_END, [view, args.limit])
                ratio = memory() / first
                print(
                    f"{label:<28} {steps + 1:>7,} steps  slowest {slowest:6.1f} ms at step {at} (target 100)  memory ×{ratio:.3f} (target 1.5)"
                )
            for view, route in LIFETIME_CASES:
                if args.view and view != args.view:
                    continue
                page.evaluate("hash => { location.hash = hash; }", route)
                page.wait_for_timeout(500)
                lifetimes(f"{view} step + play", lambda view=view: page.evaluate(STEPPING_ROUND, [view, PLAYS]))
            if args.view in (None, "playground"):
                code = encode((ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text(encoding="utf-8"))
                route = f"#/playground?puzzle=tiled&M=32&N=32&K=32&code={code}"
                page.evaluate("hash => { location.hash = hash; }", route)
                page.wait_for_selector("#view-playground [data-testid=run]")
                page.wait_for_timeout(500)
                lifetimes("playground tiled 32³ Run", lambda: page.evaluate(PLAYGROUND_RUN))
            browser.close()
    finally:
        server.close()
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
