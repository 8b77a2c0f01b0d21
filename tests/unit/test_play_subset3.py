"""The playground's round-three subset (issue 43 item 1, SPEC §7): cuda.grid/gridsize tuples, math.*, cuda.fma,
cuda.laneid/warpsize and the warp primitives, each against Numba's CUDA simulator where it has the form, and
against a brute-force answer where it does not (the simulator has no shuffles, votes or syncwarp); their bad
inputs are diagnostics with the line; what is still unsupported is refused, naming it."""

import importlib.util
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from test_play_numba import under_numba

from pysim.core.matrices import operands
from pysim.play import ProgramError, run
from pysim.play.intrinsics import fma
from pysim.play.policy.calls import ACCEPTED_CALLS
from pysim.play.puzzles import PUZZLE_BY_KEY

FIXTURES = Path(__file__).parent / "play"
SOLUTIONS = Path(__file__).resolve().parents[2] / "pysim" / "play" / "solutions"
HEAD = "import math\nfrom numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
FIRST = HEAD.count("\n") + 1  # the kernel body's first line
numba_needed = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")


def kernel(body: str, launch: str = "1, 32") -> str:
    return HEAD + body + f"\n\ndef launch(M, N, K):\n    return {launch}\n"


def numba_cases(path: Path, sizes: list[tuple[int, int, int]]) -> list[dict]:
    cases = []
    for M, N, K in sizes:
        A, B = operands(M, N, K)
        cases.append({"file": str(path), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()})
    return cases


def _clipped(A, B):
    return (np.clip(A, 2, 7) @ B - np.clip(np.arange(B.shape[1]), 1, 3)).astype(np.float32)


# (file, harness, sizes, what C must equal (None: only Numba's C), a check of the counters): each file runs
# the same under Numba's simulator and pysim, C bit for bit.
NUMBA_CASES = [
    (
        "subset_grid_math.py",
        "numba_harness.py",
        [(7, 23, 5), (9, 40, 3)],
        None,
        lambda r, M, N, K: r.counters.fma == M * sum(c % 10 == 7 for c in range(N)),
    ),
    # the simulator has no shuffles: numba_warp_harness.py adds them (block-wide exchanges), valid for the
    # reference because every warp of these sizes has a row (M a multiple of ROWS = 4)
    (
        SOLUTIONS / "warp_reduce.py",
        "numba_warp_harness.py",
        [(8, 1, 70), (4, 1, 3)],
        lambda A, B: A.sum(axis=1, keepdims=True),
        lambda r, M, N, K: r.counters.atomics == 0,
    ),
    (
        "device_functions.py",
        "numba_harness.py",
        [(5, 9, 4)],
        _clipped,
        lambda r, M, N, K: r.counters.fma == M * N * K and r.counters.global_loads == 2 * M * N * K,
    ),
    ("typed_arrays.py", "numba_harness.py", [(5, 9, 4)], None, lambda r, M, N, K: True),
    (
        "shared_3d.py",
        "numba_harness.py",
        [(8, 8, 8), (13, 6, 5)],
        None,
        lambda r, M, N, K: (
            r.counters.atomics == 64 * ((M + 7) // 8) and r.counters.shared_loads == r.counters.atomics + M * N
        ),
    ),
    (
        "shared_float64.py",
        "numba_harness.py",
        [(3, 20, 7), (2, 32, 32)],
        None,
        # 8-byte banks (pysim.core.banks): each half-warp a phase; the stride-16 read is 2-way in both
        lambda r, M, N, K: (r.counters.shared_wavefronts, r.counters.bank_extra_cycles) == (12 * M, 2 * M),
    ),
    (
        "constant_memory.py",
        "numba_harness.py",
        [(5, 9, 7), (13, 8, 21)],
        None,
        # constant reads are neither global nor shared loads (pysim.play.constants)
        lambda r, M, N, K: r.metrics.constant_loads == M * N * (K + 5) and r.counters.global_loads == 2 * M * N * K,
    ),
    ("atomics_typed.py", "numba_harness.py", [(5, 11, 9)], None, lambda r, M, N, K: r.counters.atomics == M * K + 3),
    ("counting_barriers.py", "numba_harness.py", [(5, 3, 9)], None, lambda r, M, N, K: r.counters.barriers == 3),
    (
        "dynamic_shared.py",
        "numba_harness.py",
        [(5, 20, 20)],
        lambda A, B: A[:, ::-1] + 32,
        lambda r, M, N, K: r.counters.shared_stores == r.counters.shared_loads == M * K,
    ),
]


@numba_needed
@pytest.mark.parametrize(
    "name,harness,sizes,expected,counted",
    NUMBA_CASES,
    ids=lambda x: str(x).split("/")[-1] if isinstance(x, (str, Path)) else "",
)
def test_round_three_forms_give_numbas_c_bit_for_bit(name, harness, sizes, expected, counted):
    path = FIXTURES / name
    for (M, N, K), numba_c in zip(sizes, under_numba(FIXTURES / harness, numba_cases(path, sizes))):
        numba_c = np.array(numba_c, dtype=np.float32)
        ours = run(path.read_text(), M, N, K, expected=expected or (lambda A, B, c=numba_c: c))
        assert ours.c_matches and not ours.diagnostics, ours.diagnostics
        np.testing.assert_array_equal(numba_c, ours.C)
        assert counted(ours, M, N, K), ours.counters


WARP_BODY = """    lane = cuda.laneid
    v = A[0, lane]
    C[0, lane] = cuda.shfl_sync(0xffffffff, v, (lane * 7) % 32)
    C[1, lane] = cuda.shfl_up_sync(0xffffffff, v, 3)
    C[2, lane] = cuda.shfl_down_sync(0xffffffff, v, 5)
    C[3, lane] = cuda.shfl_xor_sync(0xffffffff, v, 6)
    cuda.syncwarp()
    C[4, lane] = float32(cuda.ballot_sync(0xffffffff, v > 4.0) % 1000)
    C[5, lane] = float32(cuda.all_sync(0xffffffff, v > 0.0)) + float32(cuda.any_sync(0xffffffff, v > 8.0))
"""


def brute_force_warp(A: np.ndarray) -> np.ndarray:
    """Each row of WARP_BODY's C from its definition in the PTX ISA, lane by lane."""
    v = A[0, :32]
    C = np.zeros((6, 32), dtype=np.float32)
    for lane in range(32):
        C[0, lane] = v[(lane * 7) % 32]
        C[1, lane] = v[lane - 3] if lane >= 3 else v[lane]
        C[2, lane] = v[lane + 5] if lane + 5 < 32 else v[lane]
        C[3, lane] = v[lane ^ 6]
        C[4, lane] = sum(1 << i for i in range(32) if v[i] > 4) % 1000
        C[5, lane] = float(all(v > 0)) + float(any(v > 8))
    return C


def test_shuffles_and_votes_give_the_ptx_result_lane_by_lane():
    result = run(kernel(WARP_BODY), 6, 32, 32, expected=lambda a, b: brute_force_warp(a))
    assert result.c_matches and not result.diagnostics, result.diagnostics


@pytest.mark.parametrize(
    "body,line,fragment",
    [
        ("    x = cuda.shfl_sync(0xffffffff, 1.0, cuda.laneid + 40)\n", FIRST, "source lane 40 is outside 0..31"),
        (
            "    if cuda.laneid < 16:\n        x = cuda.shfl_down_sync(0xffffffff, 1.0, 1)\n",
            FIRST + 1,
            "names lane(s) 16, 17, 18, 19 and 12 more, which do not run it",
        ),
        ("    x = cuda.shfl_xor_sync(0xffff, 1.0, 1)\n", FIRST, "which leaves it out"),
        ("    x = cuda.shfl_sync(0x0000ffff, 1.0, 20)\n", FIRST, "takes no part in it"),
        ("    cuda.syncwarp(0xfffffffe)\n", FIRST, "lane 0 runs cuda.syncwarp at line"),
    ],
)
def test_warp_primitive_misuse_is_a_diagnostic_with_its_line(body, line, fragment):
    result = run(kernel(body), 1, 1, 1)
    problems = result.diagnostics_of("warp_sync")
    assert problems and all(p.line == line for p in problems)
    assert any(fragment in p.message for p in problems), [p.message for p in problems]
    assert result.completed


def test_a_bad_mask_or_lane_type_stops_the_run_with_the_line_not_a_crash():
    result = run(kernel("    x = cuda.shfl_sync(1.5, 1.0, 0)\n"), 1, 1, 1)
    (error,) = result.diagnostics_of("error")
    assert error.line == FIRST and "mask" in error.message


def test_a_runaway_loop_of_shuffles_stops_at_the_step_budget():
    body = "    x = 0.0\n    while True:\n        x += cuda.shfl_xor_sync(0xffffffff, x, 1)\n"
    result = run(kernel(body), 1, 1, 1, max_steps=50_000)
    assert result.diagnostics_of("step_budget") and not result.completed


def test_cuda_fma_rounds_once_and_counts_as_a_multiply_add():
    generator = np.random.default_rng(7)
    a, b, c = (generator.standard_normal(2000).astype(np.float32) for _ in range(3))
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        got = fma(x, y, z, True)
        neighbours = [np.nextafter(np.float32(got), np.float32(d)) for d in (-np.inf, np.inf)]
        assert np.float32(got) == got
        assert all(abs(Fraction(got) - exact) <= abs(Fraction(float(n)) - exact) for n in neighbours)
    # 1 + 2**-23 squared minus 1: one rounding keeps 2**-22 + 2**-46 as float32's nearest, two lose the tail
    body = "    x = A[0, 0] + float32(2.0**-23)\n    C[0, 0] = cuda.fma(x, x, float32(-1.0))\n"
    result = run(
        kernel(body, "1, 1"), 1, 1, 1, A=np.ones((1, 1)), expected=lambda A, B: np.full((1, 1), 2.0**-22 + 2.0**-46)
    )
    assert result.c_matches and result.counters.fma == 1


def test_math_on_float32_is_float32_and_domain_errors_are_nan():
    body = "    x = math.sqrt(A[0, 0])\n    C[0, 0] = x * x\n    C[0, 1] = math.sqrt(-A[0, 0])\n"
    result = run(kernel(body, "1, 1"), 1, 2, 1, A=np.full((1, 1), 2.0), expected=lambda A, B: np.zeros((1, 2)))
    root = np.sqrt(np.float32(2.0))
    assert result.C[0, 0] == root * root  # float32 times float32, not float64's 2.0000000000000004
    assert np.isnan(result.C[0, 1]) and not result.diagnostics


def test_a_grid_tuple_cannot_grow():
    with pytest.raises(ProgramError) as caught:
        run(kernel("    p = cuda.grid(2)\n    p = p[0] + 1\n"), 1, 1, 1)
    assert caught.value.line == FIRST + 1 and "holds cuda.grid(2)'s tuple" in caught.value.message


# What a course writes that the playground does not yet run: refused with the line, naming the form.
REFUSED = [
    ("    x = cuda.threadIdx.w\n", "cuda.threadIdx has .x, .y and .z, not .w"),
    ("    x = cuda.grid(4)\n", "cuda.grid(1), cuda.grid(2) or cuda.grid(3)"),
    ("    n = 1 + cuda.syncthreads_count(1)\n", "cuda.syncthreads_count is a barrier: assign it on a line of its own"),
    ("    cuda.atomic.inc(C, (0, 0), 1.0)\n", "cuda.atomic.inc is not in the playground: Numba runs it on uint32"),
    ("    cuda.atomic.dec(C, (0, 0), 1.0)\n", "cuda.atomic.dec is not in the playground"),
    ("    cuda.atomic.sub(C, (0, 0), 1.0)\n", "cuda.atomic.sub is not in the playground"),
    ("    t = cuda.local.array(0, float32)\n", "at least 1"),
    ("    t = cuda.shared.array(4, int16)\n", "pass float32, float64, int32 or int64 as the dtype"),
    ("    t = cuda.shared.array(4, int32)\n", "import int32: `from numba import cuda, int32`"),
    ("    x = math.fma(1.0, 2.0, 3.0)\n", "use cuda.fma(a, b, c)"),
    ("    x = math.factorial(3)\n", "math.factorial is not supported"),
    ("    x = cuda.activemask()\n", "cuda.activemask() is not supported"),
]
ACCEPTED = {name.strip() for name in ACCEPTED_CALLS.split(",")}


@pytest.mark.parametrize("body,fragment", REFUSED)
def test_unsupported_forms_are_refused_naming_them_and_never_listed_as_accepted(body, fragment):
    with pytest.raises(ProgramError) as caught:
        run(kernel(body), 1, 1, 1)
    assert caught.value.line == FIRST and fragment in caught.value.message, caught.value.message
    refused_name = body.split("=")[-1].strip().split("(")[0]
    # a refused form of an accepted call (cuda.grid(3), an array of 0) names the form, not the call
    assert refused_name not in ACCEPTED or refused_name in ("cuda.grid", "cuda.shared.array", "cuda.local.array")


def test_a_counting_barrier_in_a_branch_is_barrier_divergence():
    body = "    if cuda.threadIdx.x < 5:\n        n = cuda.syncthreads_count(1)\n"
    result = run(kernel(body), 1, 1, 1)
    (found,) = result.diagnostics_of("barrier_divergence")
    assert found.line == FIRST + 1


@pytest.mark.parametrize(
    "returned,fragment",
    [
        ("1, 32", "declares dynamic shared memory"),
        ("1, 32, 0, 64 * 1024", "65,536 bytes of shared memory"),
        ("1, 32, 1, 128", "got stream 1"),
    ],
)
def test_dynamic_shared_memory_needs_a_size_within_the_limit(returned, fragment):
    with pytest.raises(ProgramError) as caught:
        run(kernel("    t = cuda.shared.array(0, float32)\n    t[0] = 1.0\n", returned), 1, 1, 1)
    assert fragment in caught.value.message


@pytest.mark.parametrize("call", ["cas(C, (0, 0), 0.0, 1.0)", "exch(C, (0, 0), 1.0)"])
def test_cas_and_exch_on_a_float_array_stop_with_the_line(call):
    """Numba's CUDA target types both for integer arrays only (numba/cuda/cudadecl.py)."""
    result = run(kernel(f"    old = cuda.atomic.{call}\n", "1, 1"), 1, 1, 1)
    (error,) = result.diagnostics_of("error")
    name = call.split("(")[0]
    assert error.line == FIRST and f"cuda.atomic.{name} needs an int32 or int64 array" in error.message


def test_an_int32_array_wraps_and_truncates_as_numbas_store_does():
    head = HEAD.replace("float32\n", "float32, int32\n")
    body = "    t = cuda.local.array(2, int32)\n    t[0] = 2**31 + 5\n    t[1] = -7.9\n    C[0, 0] = t[0]\n    C[0, 1] = t[1]\n"
    text = head + body + "\n\ndef launch(M, N, K):\n    return 1, 1\n"
    result = run(text, 1, 2, 1, expected=lambda A, B: np.array([[-(2**31) + 5, -7]]))
    assert result.c_matches and not result.diagnostics


DEVICE = "@cuda.jit(device=True)\ndef {name}(x):\n{body}\n\n\n"


def with_device(body: str, *devices: tuple[str, str]) -> str:
    text = kernel(body, "1, 1")
    definitions = "".join(DEVICE.format(name=name, body=inner) for name, inner in devices)
    return text.replace("@cuda.jit\ndef kernel", definitions + "@cuda.jit\ndef kernel")


def test_a_device_functions_lines_are_kept_in_diagnostics():
    text = with_device("    C[0, 0] = f(3)\n", ("f", "    y = A[x, 0]\n    return y"))
    result = run(text, 1, 1, 1)
    (found,) = result.diagnostics_of("out_of_bounds")
    assert text.splitlines()[found.line - 1] == "    y = A[x, 0]"


@pytest.mark.parametrize(
    "devices,fragment",
    [
        ((("f", "    return f(x)"),), "'f' calls itself (f -> f): recursion is not supported"),
        ((("f", "    return g(x)"), ("g", "    return f(x) + 1")), "calls itself (f -> g -> f)"),
        ((("f", "    if x > 0:\n        return 1\n    return 2"),), "returns before its end"),
        ((("f", "    y = x"),), "returns no value"),
    ],
)
def test_recursive_and_unusual_device_functions_are_refused_with_the_line(devices, fragment):
    with pytest.raises(ProgramError) as caught:
        run(with_device("    C[0, 0] = f(3)\n", *devices), 1, 1, 1)
    assert caught.value.line > 0 and fragment in caught.value.message, caught.value.message


def test_device_functions_that_multiply_when_inlined_are_refused_quickly():
    """Eight functions each calling the next three times: 3**7 copies of the last, refused once the inlined
    kernel passes MAX_INLINED statements, in about a second."""
    devices = [
        (f"f{i}", f"    y = x + 1\n    return f{i + 1}(x) + f{i + 1}(x + 1) + f{i + 1}(x + 2)") for i in range(7)
    ]
    start = time.perf_counter()
    with pytest.raises(ProgramError) as caught:
        run(with_device("    C[0, 0] = f0(3)\n", *devices, ("f7", "    return x")), 1, 1, 1)
    assert "statements once its device functions are inlined" in caught.value.message and caught.value.line > 0
    assert time.perf_counter() - start < 20  # a loaded 2-core machine


def test_a_device_call_in_a_while_test_or_a_condition_is_refused():
    for body in ("    while f(1) > 2:\n        pass\n", "    y = 1 if f(1) > 0 else 2\n"):
        with pytest.raises(ProgramError) as caught:
            run(with_device(body, ("f", "    return x")), 1, 1, 1)
        assert "device function" in caught.value.message and caught.value.line > 0


WARP_PUZZLE = PUZZLE_BY_KEY["warp_reduce"]
REFERENCE = (SOLUTIONS / "warp_reduce.py").read_text()


def failed_labels(source: str) -> set[str]:
    grade = WARP_PUZZLE.grade(source)
    assert not grade.passed and not grade.error, grade.error
    return {check.label.split(" ")[0] + " " + check.label.split(" ")[1] for check in grade.checks if not check.passed}


def test_the_warp_puzzle_needs_its_shuffles():
    assert WARP_PUZZLE.grade(REFERENCE).passed
    # lanes' partial sums through shared memory instead of shuffles
    shared = REFERENCE.replace(
        "        offset = 16\n",
        "        sums = cuda.shared.array((ROWS, 32), float32)\n        sums[cuda.threadIdx.y, lane] = acc\n        offset = 16\n",
    )
    assert "no shared" in failed_labels(shared)
    # every lane adds its partial sum to C with an atomic
    atomic = REFERENCE.replace("        if lane == 0:\n            C[row, 0] = acc\n", "").replace(
        "        offset = 16\n", "        cuda.atomic.add(C, (row, 0), acc)\n        offset = 16\n"
    )
    assert "no atomics" in failed_labels(atomic)
    # the shuffle inside `if lane == 0`: the mask names lanes that never run it
    inside = REFERENCE.replace("        while offset > 0:\n", "        while offset > 0 and lane == 0:\n")
    assert "no diagnostics" in failed_labels(inside)
