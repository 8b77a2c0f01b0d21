"""pysim speed and memory, in CPython (run on demand: `python bench/pysim_bench.py`).

(a) closed-form counters for N=4096: smem T=16 and register 128/128/8/8/8 (target < 50 ms each)
(b) build and walk every step of a 64×64×64, T=16 smem trace: steps per second
(c) peak Python memory of (b), by tracemalloc
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pysim.core import sectors  # noqa: E402
from pysim.core.trace import Trace
from pysim.hardware.params import RegisterParams, SmemParams
from pysim.kernels import KERNELS, k03_smem_tiled, k05_register_tiled  # noqa: E402

TARGET_MS = 50.0


def clear_caches() -> None:
    sectors.clear_cache()
    k03_smem_tiled.shared_costs_per_tile.cache_clear()
    k05_register_tiled.shared_costs_per_tile.cache_clear()


def time_ms(fn, repeats: int) -> float:
    """Median time of a cold call (caches cleared before each)."""
    samples = []
    for _ in range(repeats):
        clear_caches()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def walk(trace: Trace) -> int:
    count = 0
    for step in trace:
        count += step.delta.fma >= 0
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat (used by the test suite)")
    args = parser.parse_args(argv)
    n, repeats, side = (256, 1, 16) if args.quick else (4096, 9, 64)

    cases = {
        f"smem counters N={n} T=16": (KERNELS["smem"], SmemParams(M=n, N=n, K=n, T=16)),
        f"register counters N={n} 128/128/8/8/8": (
            KERNELS["register"],
            RegisterParams(M=n, N=n, K=n, BM=128, BN=128, BK=8, TM=8, TN=8),
        ),
    }
    print("(a) closed-form counters")
    for label, (kernel, params) in cases.items():
        ms = time_ms(lambda kernel=kernel, params=params: kernel.counters(params), repeats)
        print(f"    {label:<40} {ms:8.2f} ms   target < {TARGET_MS:.0f} ms   ratio {ms / TARGET_MS:.2f}")

    params = SmemParams(M=side, N=side, K=side, T=16)
    start = time.perf_counter()
    trace = Trace(KERNELS["smem"], params)
    steps = walk(trace)
    seconds = time.perf_counter() - start
    print(
        f"(b) {side}×{side}×{side} T=16 smem trace: {steps:,} steps in {seconds:.2f} s = {steps / seconds:,.0f} steps/s"
    )

    tracemalloc.start()
    walk(Trace(KERNELS["smem"], params))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"(c) peak traced memory while walking (b): {peak / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
