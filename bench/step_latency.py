"""Step latency in the real browser (run on demand: `python bench/step_latency.py`).

For each case: open the view, then time N clicks of `step`, each from the
click to the DOM being updated and laid out (the Python handler runs
synchronously inside the click). Prints median and 95th percentile.
Targets: median <= 16 ms at the presets, <= 50 ms at 32×32×32.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import build  # noqa: E402
from bench.harness import Server, launch, wait_ready  # noqa: E402

CASES = (
    ("tiling preset 4×4×8 T=2", "#/tiling?M=4&N=4&K=8&T=2", 16),
    ("tiling preset 6×6×9 T=3", "#/tiling?M=6&N=6&K=9&T=3", 16),
    ("tiling 32×32×32 T=8", "#/tiling?M=32&N=32&K=32&T=8", 50),
    ("register seed 8³ 4/4/4 2×2", "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2", 16),
    ("register 32³ 16/16/8 4×4", "#/register?M=32&N=32&K=32&BM=16&BN=16&BK=8&TM=4&TN=4", 50),
    ("naive preset 32×32×8 T=32 col", "#/naive?M=32&N=32&K=8&T=32&map=col", 16),
    ("naive preset 32×32×8 T=32 row", "#/naive?M=32&N=32&K=8&T=32&map=row", 16),
    ("naive preset 16×16×8 T=8 row", "#/naive?M=16&N=16&K=8&T=8&map=row", 16),
    ("naive seed 4×4×8 T=2", "#/naive?M=4&N=4&K=8&T=2&map=col", 16),
    ("transpose preset n=32 T=32 pad=0", "#/transpose?n=32&T=32&pad=0", 16),
    ("transpose preset n=64 T=32 pad=1", "#/transpose?n=64&T=32&pad=1", 16),
    ("transpose preset n=8 T=4", "#/transpose?n=8&T=4&pad=0", 16),
)
TIMED_CLICK = """(view) => {
  const button = document.querySelector(`#view-${view} [data-testid=step]`);
  if (button.disabled) document.querySelector(`#view-${view} [data-testid=reset]`).click();
  const start = performance.now();
  button.click();
  document.body.getBoundingClientRect();
  return performance.now() - start;
}"""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200, help="timed steps per case (default 200)")
    args = parser.parse_args(argv)
    server = Server(build.build())
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url + "#/")
            wait_ready(page)
            for label, route, target in CASES:
                view = route.split("?")[0][2:]
                page.evaluate("hash => { location.hash = hash; }", route + "&step=0")
                page.wait_for_timeout(300)
                samples = [page.evaluate(TIMED_CLICK, view) for _ in range(args.steps)]
                median = statistics.median(samples)
                print(
                    f"{label:<30} median {median:6.2f} ms  p95 {percentile(samples, 0.95):6.2f} ms  "
                    f"target {target} ms  ratio {median / target:.2f}"
                )
            browser.close()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
