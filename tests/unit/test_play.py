"""The kernel playground (pysim.play): counters, C, diagnostics, the subset, the stepping API."""

import re
from pathlib import Path

import numpy as np
import pytest
from stepsums import as_written

from bruteforce import naive, register, smem
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams
from pysim.kernels import KERNELS
from pysim.play import ProgramError, run
from pysim.play.launch import evaluate_launch

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "pysim" / "play" / "solutions"
FIXTURES = Path(__file__).parent / "play"


# The brute force prices shared reads as nvcc issues them (merged into LDS.64/128); the playground as written
# (stepsums.as_written): the element counts are compared with it, the per-instruction ones with the trace.
PER_INSTRUCTION = ("shared_wavefronts", "bank_extra_cycles")


def elements(counts: dict[str, int]) -> dict[str, int]:
    return {name: value for name, value in counts.items() if name not in PER_INSTRUCTION}


def source(name: str, **constants: int) -> str:
    """A playground file with some module-level constants replaced (e.g. T=3)."""
    folder = SOLUTIONS if (SOLUTIONS / name).exists() else FIXTURES
    text = (folder / name).read_text()
    for constant, value in constants.items():
        text, count = re.subn(rf"^{constant} = \d+", f"{constant} = {value}", text, flags=re.M)
        assert count == 1, constant
    return text


def line_of(text: str, fragment: str) -> int:
    """The 1-based line holding `fragment` (found, never hand-counted)."""
    found = [number for number, line in enumerate(text.splitlines(), 1) if fragment in line]
    assert len(found) == 1, (fragment, found)
    return found[0]


SMEM_CASES = [(4, 4, 8, 2), (6, 6, 9, 3), (1, 1, 1, 1), (5, 7, 3, 2), (7, 3, 10, 4), (33, 17, 40, 8), (16, 16, 16, 16)]
NAIVE_CASES = [(4, 4, 8, 2), (1, 1, 1, 1), (5, 7, 3, 2), (33, 9, 10, 4), (20, 40, 3, 16)]
REGISTER_CASES = [
    (8, 8, 8, 4, 4, 4, 2, 2),
    (1, 1, 1, 1, 1, 1, 1, 1),
    (9, 7, 5, 4, 4, 3, 2, 1),
    (32, 32, 32, 16, 16, 8, 4, 4),
    (20, 12, 9, 8, 16, 4, 2, 4),
]


@pytest.mark.parametrize("M,N,K,T", SMEM_CASES)
def test_tiled_playground_file_counts_exactly_like_k02(M, N, K, T):
    result = run(source("smem_tiled.py", T=T), M, N, K)
    assert result.counters == as_written(Trace(KERNELS["smem"], SmemParams(M=M, N=N, K=K, T=T)))
    assert result.counters.as_dict() == {**result.counters.as_dict(), **elements(smem(M, N, K, T))}
    assert result.c_matches and result.completed and not result.diagnostics


@pytest.mark.parametrize("M,N,K,T", NAIVE_CASES)
def test_naive_playground_file_counts_exactly_like_k01(M, N, K, T):
    result = run(source("naive.py", T=T), M, N, K)
    assert result.counters == KERNELS["naive"].counters(NaiveParams(M=M, N=N, K=K, T=T))
    assert result.counters.as_dict() == {**result.counters.as_dict(), **naive(M, N, K, T)}
    assert result.c_matches and not result.diagnostics


@pytest.mark.parametrize("M,N,K,BM,BN,BK,TM,TN", REGISTER_CASES)
def test_register_playground_file_counts_exactly_like_k03(M, N, K, BM, BN, BK, TM, TN):
    text = source("register_tiled.py", BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    result = run(text, M, N, K)
    params = RegisterParams(M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, TM=TM, TN=TN)
    assert result.counters == as_written(Trace(KERNELS["register"], params))
    assert result.counters.as_dict() == {**result.counters.as_dict(), **elements(register(M, N, K, BM, BN, BK, TM, TN))}
    assert result.c_matches and not result.diagnostics


def test_c_comes_from_the_stores_and_a_broken_store_fails_the_check():
    good = source("smem_tiled.py", T=4)
    assert run(good, 6, 6, 9).c_matches
    broken = good.replace("C[globalRow, globalCol] = partialSum", "C[globalRow, globalCol] = partialSum + 1.0")
    result = run(broken, 6, 6, 9)
    assert not result.c_matches and result.mismatches == 36 and result.max_error == 1.0
    assert result.completed and not result.diagnostics  # it ran: a wrong C is not a crash
    np.testing.assert_array_equal(result.C, result.expected + 1)


# --- diagnostics ---------------------------------------------------------------------------------------


def test_missing_first_barrier_is_a_read_after_write_race_at_the_read():
    text = source("missing_first_barrier.py")
    result = run(text, 8, 8, 8)
    races = result.diagnostics_of("race")
    assert {d.line for d in races} == {line_of(text, "partialSum += tileA[ty, k] * tileB[k, tx]")}
    assert {d.other_line for d in races} == {line_of(text, "tileA[ty, tx] ="), line_of(text, "tileB[ty, tx] =")}
    assert all("read-after-write" in d.message and d.block == (0, 0) for d in races)
    assert result.diagnostics == races


def test_missing_second_barrier_is_a_write_after_read_race_at_the_tile_loads():
    text = source("missing_second_barrier.py")
    result = run(text, 8, 8, 8)
    races = result.diagnostics_of("race")
    assert {d.line for d in races} == {line_of(text, "tileA[ty, tx] ="), line_of(text, "tileB[ty, tx] =")}
    assert all("write-after-read" in d.message for d in races)
    one = races[0]
    assert one.thread != one.other_thread and f"thread {one.thread}" in one.message


def test_off_by_one_guard_is_out_of_bounds_naming_the_thread():
    text = source("off_by_one.py")
    result = run(text, 6, 6, 6)  # 4×4 blocks: the second block column holds columns 4..7
    found = result.diagnostics_of("out_of_bounds")
    lines = {d.line for d in found}
    assert line_of(text, "total += A[row, k] * B[k, col]") in lines
    assert line_of(text, "C[row, col] = total") in lines
    load = next(d for d in found if d.line == line_of(text, "total += A[row, k]"))
    assert "thread (2, 0) of block (1, 0)" in load.message and load.thread == (2, 0) and load.block == (1, 0)
    assert "B[0, 6]" in load.message and "(6, 6)" in load.message
    assert result.completed  # skipped accesses, no crash


def test_barrier_in_thread_dependent_if_is_divergence():
    text = source("barrier_in_if.py")
    result = run(text, 8, 8, 8)
    found = result.diagnostics_of("barrier_divergence")
    assert found
    inside_if = line_of(text, "cuda.syncthreads()  # only half")
    assert any(d.line == inside_if or d.other_line == inside_if for d in found)
    assert all(d.thread[0] >= 2 for d in found)  # a thread that skipped the barrier (tx >= T // 2)


def test_early_return_before_a_barrier_is_divergence():
    text = source("smem_tiled.py", T=4).replace(
        "    partialSum = float32(0.0)\n", "    partialSum = float32(0.0)\n    if globalRow >= M:\n        return\n"
    )
    result = run(text, 6, 6, 8)
    found = result.diagnostics_of("barrier_divergence")
    assert found and found[0].block[1] == 1 and "finished without reaching" in found[0].message


def test_runaway_loop_stops_at_the_step_budget():
    text = source("endless_loop.py")
    result = run(text, 4, 4, 4, max_steps=20_000)
    (stop,) = result.diagnostics_of("step_budget")
    assert stop.line in range(line_of(text, "while k < K"), line_of(text, "k never grows") + 1)
    assert stop.thread == (0, 0) and stop.block == (0, 0)
    assert (
        not result.completed and not result.c_matches and result.steps < 20_000 + 10
    )  # checked once per loop iteration


def test_python_error_names_the_students_line_and_thread():
    text = source("python_error.py")
    result = run(text, 4, 4, 4)
    (error,) = result.diagnostics_of("error")
    assert error.line == line_of(text, "scale = 1.0 / (col - 1)")
    assert error.thread == (1, 0) and "ZeroDivisionError" in error.message
    assert not result.completed


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("    x = undefined_name + 1\n", "NameError"),
        ("    x = A[0.5, 0]\n", "whole number"),
        ("    x = A[0]\n", "2 dimension(s)"),
        ("    x = 1.5\n    y = x[0]\n", "not an array"),
    ],
)
def test_runtime_mistakes_are_diagnostics_not_crashes(body, fragment):
    text = (
        "from numba import cuda\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
        + body
        + "\n\ndef launch(M, N, K):\n    return 1, 1\n"
    )
    result = run(text, 2, 2, 2)
    (error,) = result.diagnostics_of("error")
    assert fragment in error.message and error.line >= 6


# --- the subset ----------------------------------------------------------------------------------------

KERNEL_HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
LAUNCH = "\n\ndef launch(M, N, K):\n    return 1, 1\n"


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        ("import os\n" + KERNEL_HEAD + "    pass\n" + LAUNCH, 1, "import"),
        ("from numba import cuda, njit\n" + KERNEL_HEAD + "    pass\n" + LAUNCH, 1, "njit"),
        (KERNEL_HEAD + "    x = A.__class__\n" + LAUNCH, 6, "A.__class__ is not part"),
        (KERNEL_HEAD + "    _pl_x = 1\n" + LAUNCH, 6, "reserved"),
        (KERNEL_HEAD + "    x = A.T\n" + LAUNCH, 6, "A.T"),
        (KERNEL_HEAD + "    open('x')\n" + LAUNCH, 6, "does nothing"),
        (KERNEL_HEAD + "    x = open(1)\n" + LAUNCH, 6, "open() is not supported"),
        (KERNEL_HEAD + "    x = 'text'\n" + LAUNCH, 6, "only numbers"),
        (KERNEL_HEAD + "    x = len(A, B)\n" + LAUNCH, 6, "len takes one array"),
        (KERNEL_HEAD + "    x = [1, 2]\n" + LAUNCH, 6, "a list"),
        (KERNEL_HEAD + "    x = lambda: 1\n" + LAUNCH, 6, "lambda"),
        (KERNEL_HEAD + "    t = cuda.shared.array((A.shape[0], 2), float32)\n" + LAUNCH, 6, "constant"),
        (KERNEL_HEAD + "    x = cuda.threadIdx.q\n" + LAUNCH, 6, ".x, .y and .z, not .q"),
        (KERNEL_HEAD + "    if cuda.syncthreads():\n        pass\n" + LAUNCH, 6, "own"),
        (KERNEL_HEAD + "    return 1\n" + LAUNCH, 6, "returns nothing"),
        (KERNEL_HEAD + "    x = A[0:2, 0]\n" + LAUNCH, 6, "slice"),
        (KERNEL_HEAD + "    while True:\n        pass\n    else:\n        pass\n" + LAUNCH, 6, "else"),
        (KERNEL_HEAD + "    x = (y := 1)\n" + LAUNCH, 6, ":="),
        (KERNEL_HEAD + "    x = 1\n" + "\n\ndef launch(M, N, K):\n    import os\n    return 1, 1\n", 10, "launch"),
        (KERNEL_HEAD + "    x = 1\n" + "\n\ndef launch(M, N, K):\n    return M.bit_length(), 1\n", 10, "launch"),
        ("from numba import cuda\n\n\ndef kernel(A, B, C):\n    pass\n" + LAUNCH, 4, "@cuda.jit"),
        (KERNEL_HEAD + "    pass\n", 0, "launch"),
        (KERNEL_HEAD + "    x = (\n", 6, "syntax"),
        ("X = open\n" + KERNEL_HEAD + "    pass\n" + LAUNCH, 1, "constant"),
    ],
)
def test_files_outside_the_subset_are_refused_with_their_line(text, line, fragment):
    with pytest.raises(ProgramError) as caught:
        run(text, 2, 2, 2)
    assert caught.value.line == line
    assert fragment in caught.value.message


def test_launch_limits_are_refused_before_running():
    text = KERNEL_HEAD + "    pass\n" + "\n\ndef launch(M, N, K):\n    return 1, (64, 32)\n"
    with pytest.raises(ProgramError, match="2,048 threads per block"):
        run(text, 2, 2, 2)
    big = "from numba import cuda, float32\n\nT = 128\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
    big += "    t = cuda.shared.array((T, T), float32)\n" + LAUNCH
    with pytest.raises(ProgramError, match="65,536 bytes of shared memory"):
        run(big, 2, 2, 2)


def test_module_constants_and_main_guard_are_allowed():
    text = source("smem_tiled.py", T=4) + '\n\nif __name__ == "__main__":\n    import numpy\n    print(numpy)\n'
    assert run(text, 5, 5, 5).c_matches
    launch = evaluate_launch(run(text, 5, 5, 5).program, 5, 5, 5)
    assert launch.grid == (2, 2) and launch.block == (4, 4)


def test_chained_indexing_and_while_loops_count_like_the_tuple_form():
    text = source("smem_tiled.py", T=4)
    chained = text.replace("tileA[ty, k] * tileB[k, tx]", "tileA[ty][k] * tileB[k][tx]")
    looped = chained.replace(
        "        for k in range(T):\n            partialSum",
        "        k = -1\n        while k < T - 1:\n            k += 1\n            partialSum",
    )
    expected = run(text, 7, 5, 9).counters
    assert run(chained, 7, 5, 9).counters == expected
    assert run(looped, 7, 5, 9).counters == expected


# --- the stepping API the view uses --------------------------------------------------------------------


def test_intervals_are_barrier_intervals_with_cumulative_counters():
    text = source("smem_tiled.py", T=2)
    result = run(text, 4, 4, 4)
    tiles, blocks = 2, 4
    assert len(result.intervals) == blocks * (2 * tiles + 1)
    first = result.intervals[0]
    assert first.block == (0, 0) and first.number == 0
    assert first.barrier_lines == (line_of(text, "cuda.syncthreads()  # the whole tile"),)
    assert result.intervals[2 * tiles].barrier_lines == ()  # the last interval ends when the threads finish
    assert result.intervals[-1].counters == result.counters
    total = result.intervals[0].delta
    for interval in result.intervals[1:]:
        total = total + interval.delta
    assert total == result.counters
    # The interval's accesses are warp instructions: pysim.core.trace.Access, as the built-in kernels record them.
    loads = [a for a in first.accesses if a.array == "A"]
    assert len(loads) == 1 and loads[0].rows.shape == (1, 4)


def test_thread_steps_follow_one_thread_statement_by_statement():
    text = source("smem_tiled.py", T=2)
    result = run(text, 4, 4, 4)
    steps = result.intervals[1].thread_steps((1, 0))  # between the barriers of tile 0: the products
    fma_line = line_of(text, "partialSum += tileA[ty, k] * tileB[k, tx]")
    products = [s for s in steps if s.line == fma_line]
    assert len(products) == 2
    reads = products[1].accesses
    assert [(r.array, r.index, r.op, r.space) for r in reads] == [
        ("tileA", (0, 1), "load", "shared"),
        ("tileB", (1, 1), "load", "shared"),
    ]
    assert reads[0].value == result.A[0, 1] and reads[1].value == result.B[1, 1]
    assert products[1].accesses[0].occurrence == 1
    assert result.intervals[1].thread_steps(1) == steps
    assert fma_line in result.intervals[1].lines()
    records = result.intervals[0].records()
    assert ((0, 0), records[0][1]) == records[0] and records[0][1].as_dict((0, 0))["space"] == "global"


def test_keep_false_counts_the_same_without_intervals():
    text = source("smem_tiled.py", T=4)
    kept, dropped = run(text, 9, 7, 5), run(text, 9, 7, 5, keep=False)
    assert dropped.intervals == () and dropped.counters == kept.counters and dropped.c_matches


def test_as_dict_has_the_spec_keys():
    result = run(source("off_by_one.py"), 6, 6, 6)
    found = result.as_dict()
    for name in ("global_loads", "global_stores", "shared_loads", "shared_stores", "global_sectors", "c_matches"):
        assert name in found
    (first, *_) = found["diagnostics"]
    assert set(first) >= {"kind", "line", "thread", "block", "message"}
    assert first["kind"] == "out_of_bounds" and isinstance(first["thread"], list)


def test_sizes_must_be_whole_numbers():
    with pytest.raises(ProgramError, match="M must be"):
        run(source("naive.py"), 0, 2, 2)


def test_a_32_cubed_tiled_kernel_runs_quickly():
    """The browser target is 2 s in Pyodide (about 3× slower than CPython)."""
    import time

    start = time.perf_counter()
    result = run(source("smem_tiled.py", T=16), 32, 32, 32)
    elapsed = time.perf_counter() - start
    assert result.c_matches and not result.diagnostics
    assert elapsed < 2.0
