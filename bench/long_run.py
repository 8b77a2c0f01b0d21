"""Long runs (run on demand: `python bench/long_run.py`).

Steps every view to its end at the largest animatable size, as fast as the
page answers (faster than the fastest play speed), and reports the slowest
step and memory after the run against after the first step. Targets: no step
over 100 ms; memory within 1.5× (JS heap + Python's WebAssembly memory).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import build  # noqa: E402
from bench.harness import Server, launch, wait_ready  # noqa: E402

CASES = (
    ("tiling 64×64×64 T=8", "tiling", "#/tiling?M=64&N=64&K=64&T=8&step=0"),
    ("register 64³ 16/16/8 4×4", "register", "#/register?M=64&N=64&K=64&BM=16&BN=16&BK=8&TM=4&TN=4&step=0"),
    ("hierarchy N=16384 T=32", "hierarchy", "#/hierarchy?N=16384&T=32&step=0"),
)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=10**7, help="stop each run after this many steps")
    parser.add_argument("--view", choices=("tiling", "register", "hierarchy"), help="run only this view")
    args = parser.parse_args(argv)
    server = Server(build.build())
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            cdp = page.context.new_cdp_session(page)

            def memory() -> float:
                cdp.send("HeapProfiler.collectGarbage")
                return cdp.send("Runtime.getHeapUsage")["usedSize"] + page.evaluate("window.tilelabWasmBytes()")

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
            browser.close()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
