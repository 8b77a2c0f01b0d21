"""Step latency in the real browser (run on demand: `python bench/step_latency.py`).

For each case: open the view, then time N clicks of `step`, each from the
click to the DOM being updated and laid out (the Python handler runs
synchronously inside the click). Prints median and 95th percentile, and the
median of each part: the click's handler (Python in Pyodide, and the DOM
writes it makes) and the style and layout the browser then does.
Targets: median <= 16 ms at the presets, <= 50 ms at 32×32×32; p95 <= 50 ms.

    python bench/step_latency.py                                   # every case, 200 steps each
    python bench/step_latency.py --only "T=32" --steps 100         # the cases whose label holds T=32
    python bench/step_latency.py --dist /tmp/old/dist              # time an existing build (before/after)
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.harness import Server, launch, wait_ready  # noqa: E402
from tools.sitebuild.site import build  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))

from app.core.urlstate import STEPPING_VIEWS, format_hash  # noqa: E402
from pysim.kernels import KERNELS  # noqa: E402

# Beyond the presets: the strided naive map, and the largest sizes a step must stay quick at.
EXTRA = (
    ("naive 32×32×8 T=32 map=row", "#/naive?M=32&N=32&K=8&T=32&map=row&guide=0", 16),
    ("tiling 32×32×32 T=8", "#/tiling?M=32&N=32&K=32&T=8&guide=0", 50),
    ("register 32³ 16/16/8 4×4", "#/register?M=32&N=32&K=32&BM=16&BN=16&BK=8&TM=4&TN=4&guide=0", 50),
    # #/mma's swizzle at the smallest sizes it is allowed at: 4 warps, 32-word rows (its presets pad).
    (
        "mma 32×32×64 4 warps swizzle=1",
        "#/mma?M=32&N=32&K=64&BM=32&BN=32&BK=32&WM=16&WN=16&stages=2&swizzle=1&split=1&guide=0",
        16,
    ),
)
PRESET_TARGET_MS = 16


def preset_cases() -> list[tuple[str, str, int]]:
    """Every preset of every stepping view in the route table (so a new view is timed too)."""
    cases = []
    for view in STEPPING_VIEWS:
        params = KERNELS[view.kernel].PARAMS
        for label, raw in params.PRESETS.items():
            p = params.parse({key: str(value) for key, value in raw.items()})
            # The free view (guide=0): a guided view's step stops at its questions, so it would time no-ops.
            route = format_hash(view.path, p.as_strings()) + "&guide=0"
            cases.append((f"{view.path.strip('/')} {label}", route, PRESET_TARGET_MS))
    return cases


CASES = (*preset_cases(), *EXTRA)
TIMED_CLICK = """(view) => {
  const button = document.querySelector(`#view-${view} [data-testid=step]`);
  if (button.disabled) document.querySelector(`#view-${view} [data-testid=reset]`).click();
  const start = performance.now();
  button.click();
  const handled = performance.now();
  document.body.getBoundingClientRect();
  return [performance.now() - start, handled - start];
}"""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options every browser bench here takes: --only and --dist."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only the cases whose label contains this text")
    parser.add_argument("--dist", type=Path, help="time this build instead of building dist/")
    return parser


@contextmanager
def site_page(dist: Path | None) -> Iterator[Page]:
    """A page of the site (`dist`, or dist/ built now) served locally, opened at #/ and ready."""
    server = Server(dist or build())
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url + "#/")
            wait_ready(page)
            yield page
            browser.close()
    finally:
        server.close()


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--steps", type=int, default=200, help="timed steps per case (default 200)")
    args = parser.parse_args(argv)
    with site_page(args.dist) as page:
        for label, route, target in CASES:
            if args.only not in label:
                continue
            view = route.split("?")[0][2:]
            page.evaluate("hash => { location.hash = hash; }", route + "&step=0")
            page.wait_for_timeout(300)
            timed = [page.evaluate(TIMED_CLICK, view) for _ in range(args.steps)]
            samples = [total for total, _ in timed]
            median = statistics.median(samples)
            handler = statistics.median(handled for _, handled in timed)
            layout = statistics.median(total - handled for total, handled in timed)
            print(
                f"{label:<30} median {median:6.2f} ms  p95 {percentile(samples, 0.95):6.2f} ms  "
                f"(handler {handler:5.2f}, style+layout {layout:5.2f})  target {target} ms  ratio {median / target:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
