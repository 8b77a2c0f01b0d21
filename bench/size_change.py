"""Size-change latency in the real browser (run on demand: `python bench/size_change.py`).

A student who changes a size waits for a new trace (pysim/core/trace.py: its closed-form counters and
the issue plan of pysim/core/instructions.py) and its first step drawn. For each stepping view's preset,
this sets the address to the preset with K (the transpose: n) changed, `--changes` times to sizes not
seen before (the issue plan is cached per parameter set, so a size seen twice would time the cache), and
times each from the address change to the view's DOM updated and laid out: the app's hashchange
handler runs synchronously, and a listener added after it runs when it is done.
Prints median and maximum per case.

    python bench/size_change.py                              # every preset, 5 changes each
    python bench/size_change.py --only wgmma --changes 3      # the cases whose label holds wgmma
    python bench/size_change.py --dist /tmp/old/dist          # time an existing build (before/after)
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "site"))

from app.core.urlstate import STEPPING_VIEWS, format_hash  # noqa: E402
from bench.step_latency import bench_parser, site_page  # noqa: E402
from pysim.kernels import KERNELS  # noqa: E402

TIMED_CHANGE = """(hash) => new Promise((done) => {
  const start = performance.now();
  window.addEventListener("hashchange", () => {
    document.body.getBoundingClientRect();
    done(performance.now() - start);
  }, { once: true });
  location.hash = hash;
})"""


def changed_sizes(params_class, raw: dict[str, str], changes: int) -> Iterator[str]:
    """The preset `raw` with its depth (K, or n) set to `changes` other values the view steps through."""
    key = "K" if "K" in raw else "n"
    found = 0
    depth = int(raw[key])
    for value in sorted(set(range(1, depth * 4 + 64)) - {depth}, key=lambda v: abs(v - depth)):  # nearest first
        try:
            p = params_class.parse({**raw, key: str(value)})
        except ValueError:
            continue
        if p.too_large_to_animate():  # the view would show counts only: no trace to time
            continue
        yield p
        found += 1
        if found == changes:
            return


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(__doc__)
    parser.add_argument("--changes", type=int, default=5, help="timed size changes per preset (default 5)")
    args = parser.parse_args(argv)
    with site_page(args.dist) as page:
        for view in STEPPING_VIEWS:
            params_class = KERNELS[view.kernel].PARAMS
            for label, preset in params_class.PRESETS.items():
                name = f"{view.path.strip('/')} {label.split(':')[0]}"
                if args.only not in name:
                    continue
                raw = {key: str(value) for key, value in preset.items()}
                page.evaluate("hash => { location.hash = hash; }", format_hash(view.path, raw) + "&guide=0")
                page.wait_for_timeout(500)  # the view is built: its first visit imports it
                samples = [
                    page.evaluate(TIMED_CHANGE, format_hash(view.path, p.as_strings()) + "&guide=0&step=0")
                    for p in changed_sizes(params_class, raw, args.changes)
                ]
                if samples:
                    print(f"{name:<28} median {statistics.median(samples):7.1f} ms  max {max(samples):7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
