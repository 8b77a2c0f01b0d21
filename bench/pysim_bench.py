"""pysim speed and memory, in CPython (run on demand: `python bench/pysim_bench.py`).

(a) closed-form counters for N=4096: smem T=16 and register 128/128/8/8/8, and for the largest sizes the forms
    accept (16,384³) the Hopper kernel at its smallest tiles, 64×8, whose TMA boxes it counts (target < 50 ms each;
    that one took 11 s, the page frozen in counts-only mode, when it counted box by box)
(b) build and walk every step of a 64×64×64, T=16 smem trace: steps per second
(c) peak Python memory of (b), by tracemalloc
(d) the speed model at the ladder's default (N=4096): each rung's estimate, the ladder page's roofline and
    why-faster sentences for one device (target < 300 ms), and `python -m pysim speed` for its slowest rung
    as a whole process, Python's start and imports included (target <= 0.3 s of CPU)
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pysim.core import sectors  # noqa: E402
from pysim.core.trace import Trace
from pysim.hardware.params import RegisterParams, SmemParams
from pysim.hardware.wgmma_params import WgmmaParams
from pysim.kernels import KERNELS, k03_smem_tiled, k05_register_tiled  # noqa: E402
from pysim.lessons import ladder
from pysim.lessons.ladder import LadderParams, siboehm_ladder
from pysim.lessons.roofline import roofline
from pysim.lessons.speed_of_light import why_faster
from pysim.speed import estimate

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50.0
LADDER_TARGET_MS = 300.0
CLI_TARGET_S = 0.3


def clear_caches() -> None:
    sectors.clear_cache()
    k03_smem_tiled.shared_costs_per_tile.cache_clear()
    k05_register_tiled.shared_costs_per_tile.cache_clear()
    ladder.report_for.cache_clear()
    ladder.profile_for.cache_clear()


def time_ms(fn, repeats: int, clock=time.perf_counter) -> float:
    """Median time of a cold call (caches cleared before each)."""
    samples = []
    for _ in range(repeats):
        clear_caches()
        start = clock()
        fn()
        samples.append((clock() - start) * 1000)
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
        f"wgmma counters N={4 * n} 64/8/32": (
            KERNELS["wgmma"],
            WgmmaParams(M=4 * n, N=4 * n, K=4 * n, BM=64, BN=8, BK=32, stages=1, consumers=1),
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
    speed_model(4096 if not args.quick else 256, repeats)
    return 0


def speed_model(n: int, repeats: int) -> None:
    params = LadderParams(N=n)
    rungs = [rung for rung in siboehm_ladder(params) if rung.params is not None]
    # CPU time, not wall: on a machine shared with other work the wall clock says more about the others.
    print(f"(d) the speed model at N={n} on the {params.device}, CPU time")
    slowest, slowest_ms = rungs[0], 0.0
    for rung in rungs:
        ms = time_ms(lambda rung=rung: estimate(rung.kernel, rung.params, params.device), repeats, time.process_time)
        print(f"    estimate {rung.key:<32} {ms:8.2f} ms")
        slowest, slowest_ms = (rung, ms) if ms > slowest_ms else (slowest, slowest_ms)

    def page() -> None:
        rows = siboehm_ladder(params)
        roofline(params, rows)
        why_faster(rows)

    ms = time_ms(page, repeats, time.process_time)
    ratio = ms / LADDER_TARGET_MS
    print(
        f"    ladder rows + roofline + why_faster   {ms:8.2f} ms   target < {LADDER_TARGET_MS:.0f} ms   ratio {ratio:.2f}"
    )
    cpu, wall = process_seconds(["-m", "pysim", "speed", *slowest.cli, "--json"], repeats)
    print(
        f"    python -m pysim speed ({slowest.key}), whole process: {cpu:.3f} s of CPU ({wall:.3f} s wall)"
        f"   target <= {CLI_TARGET_S} s   ratio {cpu / CLI_TARGET_S:.2f}"
    )
    # What no change to pysim can remove: Python's start and NumPy's import (with PYTHONDONTWRITEBYTECODE
    # set, pysim's own modules are compiled again by every process, ~50 ms here, as NumPy's are not).
    cpu, wall = process_seconds(["-c", "import numpy"], repeats)
    print(f"    python -c 'import numpy', the floor of the above:   {cpu:.3f} s of CPU ({wall:.3f} s wall)")


def process_seconds(arguments: list[str], repeats: int) -> tuple[float, float]:
    """Median CPU (user + system, the child's own: load on the machine barely moves it) and wall seconds of
    `python *arguments`."""
    cpu, wall = [], []
    for _ in range(repeats):
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run([sys.executable, *arguments], cwd=ROOT, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(time.perf_counter() - start)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(cpu), statistics.median(wall)


if __name__ == "__main__":
    sys.exit(main())
