"""Attacks on the playground's runtime (issue 22): each one stops with a message naming the line and the
limit, or is refused before it runs; none hangs. Wall-clock bounds are generous (a loaded 2-core machine)
and are asserted only where the point is that the run ends quickly.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pysim.play import ProgramError, run
from pysim.play.limits import GRID_LIMITS, LOCAL_LIMIT_BYTES, TOTAL_THREAD_LIMIT

HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1  # the kernel body's first line


def kernel(body: str, launch: str = "1, 1") -> str:
    return HEAD + body + f"\n\ndef launch(M, N, K):\n    return {launch}\n"


def timed(source: str, *sizes: int, **options):
    start = time.perf_counter()
    result = run(source, *sizes, **options)
    return result, time.perf_counter() - start


def refused(source: str, *sizes: int) -> ProgramError:
    with pytest.raises(ProgramError) as caught:
        run(source, *sizes)
    return caught.value


def test_a_loop_whose_body_records_nothing_stops_at_the_budget():
    result, elapsed = timed(kernel("    for i in range(10**18):\n        pass\n"), 1, 1, 1, max_steps=50_000)
    (stop,) = result.diagnostics_of("step_budget")
    assert stop.line == FIRST and "50,000 steps" in stop.message and not result.completed
    assert elapsed < 10


def test_an_empty_kernel_on_a_huge_grid_is_refused_at_once():
    start = time.perf_counter()
    error = refused(kernel("    pass\n", "(65535, 65535), (32, 32)"), 1, 1, 1)
    assert time.perf_counter() - start < 5
    assert f"{TOTAL_THREAD_LIMIT:,}" in error.message and "4,397,912,294,400 threads" in error.message


def test_every_block_and_thread_started_costs_a_step():
    """256 blocks of 1,024 empty threads (the cap): the budget stops them, not their statements."""
    result = run(kernel("    pass\n", "(256, 1), (32, 32)"), 1, 1, 1, max_steps=10_000)
    (stop,) = result.diagnostics_of("step_budget")
    assert stop.block == (9, 0)  # 9 blocks of 1 + 1,024 steps fit in 10,000; starting the 10th crosses it
    assert result.steps == 10 * 1025


@pytest.mark.parametrize(
    "grid,fragment",
    [
        ("(2**31, 1)", f"gridDim.x = 2,147,483,648, but CUDA allows at most {GRID_LIMITS[0]:,}"),
        ("(1, 65536)", "gridDim.y = 65,536, but CUDA allows at most 65,535"),
        ("(2**31 - 1, 1)", "threads in all"),  # a legal grid, but more threads than the playground runs
    ],
)
def test_the_grid_limits_are_cudas(grid, fragment):
    error = refused(kernel("    pass\n", f"{grid.replace('2**31', '2147483648')}, 1"), 1, 1, 1)
    assert fragment in error.message


def test_a_grid_wider_than_65535_blocks_runs():
    """gridDim.x may exceed 65,535 (CUDA allows 2**31 - 1); the budget ends this one early."""
    result = run(kernel("    pass\n", "(70000, 1), 1"), 1, 1, 1, max_steps=2_000)
    assert result.launch.grid == (70000, 1) and result.diagnostics_of("step_budget")


def test_big_integers_stop_at_64_bits_without_hanging():
    text = kernel("    x = 3**65536\n    x = x * x\n")
    (error,) = run(text, 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST and "does not fit in 64 bits" in error.message
    squaring = kernel("    x = 3\n    for i in range(100):\n        x = x * x\n")
    (error,) = run(squaring, 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST + 2 and "64 bits" in error.message
    huge = kernel("    x = 3 ** (2**62)\n")  # decided from bit lengths: computing it would never end
    (error,) = run(huge, 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST and "does not fit in 64 bits" in error.message
    shifted = kernel("    x = 1 << 10**8\n")
    (error,) = run(shifted, 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST and "does not fit in 64 bits" in error.message


def test_integers_up_to_64_bits_are_fine():
    text = kernel("    x = 2**62 + (2**62 - 1)\n    y = -x - 1\n    C[0, 0] = float32(y // 2**62)\n")
    result = run(text, 1, 1, 1, expected=lambda a, b: np.full((1, 1), -2, dtype=np.float32))
    assert result.c_matches and not result.diagnostics


def test_augmented_integer_growth_is_bounded_too():
    text = kernel("    x = 3\n    for i in range(100):\n        x *= x\n")
    (error,) = run(text, 1, 1, 1).diagnostics_of("error")
    assert error.line == FIRST + 2 and "64 bits" in error.message


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("    t = A.shape\n    t = t + t\n", "A.shape is a tuple: unpack it"),
        ("    t = (1, 2)\n", "a tuple is only for unpacking"),
        ("    p = cuda.grid(2) + cuda.grid(2)\n", "cuda.grid(2) is a tuple"),
        ("    a, b = 1, 2, 3\n", "2 names but 3 values"),
    ],
)
def test_tuples_are_only_for_unpacking_so_none_can_grow(body, fragment):
    error = refused(kernel(body), 1, 1, 1)
    assert error.line == FIRST and fragment in error.message


def test_unpacking_shapes_len_and_swaps_work():
    body = (
        "    M, K = A.shape\n    n = len(B)\n    a, b = 1, 2\n    a, b = b, a\n"
        "    C[0, 0] = float32(M * 100 + K * 10 + n + a)\n"
    )
    result = run(kernel(body), 2, 1, 3, expected=lambda a, b: np.full((2, 1), 0, dtype=np.float32))
    assert result.C[0, 0] == 2 * 100 + 3 * 10 + 3 + 2 and not result.diagnostics


def test_a_local_array_past_cudas_512_kb_is_refused():
    words = LOCAL_LIMIT_BYTES // 4 + 1
    error = refused(kernel(f"    t = cuda.local.array({words}, float32)\n"), 1, 1, 1)
    assert error.line == FIRST and "524,292 bytes per thread" in error.message and "512 KB" in error.message


def test_a_fresh_large_local_array_in_every_iteration_stops_at_the_budget():
    words = LOCAL_LIMIT_BYTES // 4
    body = f"    for i in range(10**9):\n        t = cuda.local.array({words}, float32)\n"
    result, elapsed = timed(kernel(body), 1, 1, 1, max_steps=1_500_000)
    (stop,) = result.diagnostics_of("step_budget")
    assert stop.line in (FIRST, FIRST + 1) and elapsed < 10  # about 11 arrays fit in the budget


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        (kernel("    print(1)\n"), FIRST, "print is not available"),
        (kernel("    x = 1\n    n = 2 * cuda.syncthreads_count(x)\n"), FIRST + 1, "is a barrier: assign it on a line"),
        (
            kernel("    t = cuda.const.array_like(A)\n"),
            FIRST,
            "cuda.const.array_like takes a module-level NumPy array",
        ),
        (
            kernel("    pass\n").replace("@cuda.jit", "@cuda.jit(device=True)"),
            FIRST - 2,
            "@cuda.jit takes no arguments",
        ),
        (kernel("    x = cuda.atomic.add(C, (0, 0), 1.0) + 1\n"), FIRST, "stands on a line of its own"),
        (kernel("    cuda.atomic.sub(C, (0, 0), 1.0)\n"), FIRST, "add, max, min, exch and cas are"),
    ],
)
def test_unsupported_calls_are_refused_with_their_line(text, line, fragment):
    error = refused(text, 1, 1, 1)
    assert error.line == line and fragment in error.message


def test_an_out_of_bounds_load_is_reported_and_counted_as_issued():
    """A warp of 4 lanes loads A[0, lane] from a 1×2 A: lanes 2 and 3 are outside, still 4 loads, 1 sector."""
    text = kernel("    C[0, 0] = A[0, cuda.threadIdx.x]\n", "1, 4")
    result = run(text, 1, 1, 2)
    (found,) = result.diagnostics_of("out_of_bounds")
    assert found.line == FIRST and found.count == 2
    assert result.counters.global_loads == 4 and result.counters.global_sectors == 1
    # addresses 0..3 of A: the same 32-byte sector as A's own two words
    inside = run(kernel("    C[0, 0] = A[0, cuda.threadIdx.x]\n", "1, 2"), 1, 1, 2)
    assert inside.counters.global_loads == 2


def cli(path: Path, *options: str) -> subprocess.CompletedProcess:
    """`python -m pysim run FILE --M 1 --N 1 --K 1 --json` (SPEC §5), as a real subprocess."""
    command = [sys.executable, "-m", "pysim", "run", str(path), "--M", "1", "--N", "1", "--K", "1", "--json", *options]
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=root)


def test_the_cli_refuses_a_huge_empty_launch_and_stops_a_runaway_loop(tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text(kernel("    pass\n", "(65535, 65535), (32, 32)"))
    out = cli(empty)
    assert out.returncode == 2 and f"at most {TOTAL_THREAD_LIMIT:,}" in out.stderr and out.stderr.count("\n") == 1
    endless = tmp_path / "endless.py"
    endless.write_text(kernel("    for i in range(10**18):\n        pass\n"))
    out = cli(endless, "--max-steps", "30000")
    assert out.returncode == 0, out.stderr
    (stop,) = json.loads(out.stdout)["diagnostics"]
    assert stop["kind"] == "step_budget" and stop["line"] == FIRST and "30,000 steps" in stop["message"]
