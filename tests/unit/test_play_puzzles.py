"""Playground puzzles: every reference solution passes its checker; typical wrong answers do not; a kernel
that rebuilds TileLab's public operands from their hash instead of loading them fails every puzzle."""

import re
from pathlib import Path

import numpy as np
import pytest
from stepsums import as_written

from pysim.core.matrices import fresh_operands, operands
from pysim.core.trace import Trace
from pysim.hardware.blocktile_params import Blocktile1DParams
from pysim.kernels import KERNELS
from pysim.play import compile_program, run
from pysim.play.puzzles import PUZZLE_BY_KEY, PUZZLES, Puzzle, starter_for

SOLUTIONS = Path(__file__).resolve().parents[2] / "pysim" / "play" / "solutions"


def solution(puzzle: Puzzle) -> str:
    """The puzzle's reference solution (test data: the site's build leaves the folder out)."""
    return (SOLUTIONS / puzzle.solution_file).read_text(encoding="utf-8")


def test_there_are_at_least_eight_puzzles_with_unique_keys():
    assert len(PUZZLES) >= 8
    assert len(PUZZLE_BY_KEY) == len(PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.key)
def test_reference_solution_passes_its_checker(puzzle):
    grade = puzzle.grade(solution(puzzle))
    failed = [check for check in grade.checks if not check.passed]
    assert grade.passed and not failed and not grade.error, failed
    assert any(check.label.startswith("C equals") for check in grade.checks)
    assert puzzle.hints and puzzle.goal


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.key)
def test_starter_compiles_and_does_not_pass(puzzle):
    starter = starter_for(puzzle)
    compile_program(starter)
    assert not puzzle.grade(starter).passed


def failing_labels(puzzle_key, source):
    grade = PUZZLE_BY_KEY[puzzle_key].grade(source)
    assert not grade.passed
    return {check.label for check in grade.checks if not check.passed}


def test_naive_kernel_fails_the_tiling_budget_but_is_correct():
    naive = solution(PUZZLE_BY_KEY["naive"]).replace("T = 4 ", "T = 8 ")
    failed = failing_labels("tiled", naive)
    assert all(label.startswith("global loads") for label in failed)


def test_strided_naive_fails_only_coalescing():
    failed = failing_labels("coalesced", starter_for(PUZZLE_BY_KEY["coalesced"]))
    assert failed == {label for label in failed if "sectors" in label} and failed


def test_unpadded_transpose_fails_only_bank_conflicts():
    failed = failing_labels("transpose_padded", solution(PUZZLE_BY_KEY["transpose"]))
    assert failed == {label for label in failed if label.startswith("shared wavefronts per")}
    assert any(label.startswith("shared wavefronts per request ≤ 1") for label in failed)


def test_tiled_kernel_without_zero_fill_fails_the_edge_puzzle():
    tiled = solution(PUZZLE_BY_KEY["tiled"])
    unguarded = re.sub(r" if [^\n]* else float32\(0\.0\)", "", tiled)
    assert unguarded != tiled
    assert PUZZLE_BY_KEY["tiled"].grade(unguarded).passed  # multiples of the tile: fine
    failed = failing_labels("tiled_edges", unguarded)
    assert any("diagnostics" in label for label in failed)


def test_tiled_kernel_with_a_missing_barrier_fails_with_the_race():
    tiled = solution(PUZZLE_BY_KEY["tiled"])
    racy = tiled.replace("        cuda.syncthreads()  # stops fast", "        # cuda.syncthreads()  # stops fast")
    grade = PUZZLE_BY_KEY["tiled"].grade(racy)
    details = [check.detail for check in grade.checks if not check.passed]
    assert any("race" in detail for detail in details)


def test_a_file_that_cannot_run_is_a_failed_grade_with_the_error():
    grade = PUZZLE_BY_KEY["copy"].grade("import os\n")
    assert not grade.passed and "line 1" in grade.error
    assert grade.as_dict()["error"] == grade.error


def test_blocktile1d_budgets_are_met_exactly_by_siboehms_kernel_4():
    puzzle = PUZZLE_BY_KEY["blocktile1d"]
    loads, shared, _ = puzzle.budgets
    # M·K·⌈N/64⌉ + K·N·⌈M/64⌉ and 9/8 · M·N·K: 64·16 + 16·64 at 64×64×16, 128·8·2 + 8·128·2 at 128×128×8
    assert [loads.limit(*size) for size in puzzle.sizes] == [2048, 4096]
    assert [shared.limit(*size) for size in puzzle.sizes] == [9 * 64 * 64 * 16 // 8, 9 * 128 * 128 * 8 // 8]
    for M, N, K in puzzle.sizes:  # the solution counts like k05 (the test below): no slack in either budget
        k05 = KERNELS["blocktile1d"].counters(Blocktile1DParams(M=M, N=N, K=K))
        assert (k05.global_loads, k05.shared_loads) == (loads.limit(M, N, K), shared.limit(M, N, K))


def test_naive_and_32_wide_register_1d_kernels_fail_only_the_blocktile1d_budgets():
    naive = failing_labels("blocktile1d", solution(PUZZLE_BY_KEY["naive"]))
    assert naive and all(label.startswith(("global loads", "shared loads")) for label in naive)
    narrow = failing_labels("blocktile1d", solution(PUZZLE_BY_KEY["register_1d"]))  # BM = BN = 32
    assert narrow == {label for label in narrow if label.startswith("global loads")} and narrow


def test_blocktile1d_without_guards_loads_outside_a_and_b():
    reference = solution(PUZZLE_BY_KEY["blocktile1d"])
    unguarded = re.sub(r" if [^\n]* else float32\(0\.0\)", "", reference)
    assert unguarded != reference
    assert {problem.kind for problem in run(unguarded, 9, 11, 5, keep=False).diagnostics} == {"out_of_bounds"}


def test_blocktile1d_solution_counts_like_pysims_kernel_4_except_register_reads():
    result = run(solution(PUZZLE_BY_KEY["blocktile1d"]), 70, 66, 13, keep=False)
    k05 = as_written(Trace(KERNELS["blocktile1d"], Blocktile1DParams(M=70, N=66, K=13)))  # BM = BN = 64, BK = TM = 8
    assert result.c_matches and not result.diagnostics
    # k05 counts its read of the register tmpB per FMA; the playground counts local arrays, and tmpB is a scalar.
    assert result.counters.register_reads == 0 and k05.register_reads == k05.fma
    assert result.counters.as_dict() == {**k05.as_dict(), "register_reads": 0}


# --- grading that cannot be faked ------------------------------------------------------------------------

# pysim.core.matrices.digits, rewritten in the playground's subset: element `index` of the array with `salt`
# is 1 + ((m · GOLDEN mod 2³²) >> 8) mod 9, with m = (index · GOLDEN + salt · 40503 + 12345) mod 2³², then
# m ^= m >> 13. m · GOLDEN mod 2³² is taken in two 16-bit halves of GOLDEN, so no value passes 2⁴⁹.
CHEAT = """
from numba import cuda, float32

GOLDEN = 2654435761
LOW = GOLDEN % 65536
HIGH = GOLDEN // 65536
WORD = 1 << 32
SALT_A = 12345  # A = digits(M, K, salt 0)
SALT_B = 40503 + 12345  # B = digits(K, N, salt 1)


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    M, N = C.shape
    K = A.shape[1]
    if row < M and col < N:
        VALUE
        C[row, col] = total


def launch(M, N, K):
    return ((N + 31) // 32, (M + 7) // 8), (32, 8)
"""


def digit(name: str, index: str, salt: str) -> str:
    """Statements leaving in `name` the public hash's digit `index` of the array with `salt`."""
    return (
        f"{name} = (({index}) * GOLDEN + {salt}) % WORD\n        {name} ^= {name} >> 13\n        "
        f"{name} = 1 + ((({name} * LOW + ({name} * HIGH) % 65536 * 65536) % WORD) >> 8) % 9"
    )


VALUES = {  # C = A, C = Aᵀ, C = A @ B, from the digits alone
    "A": digit("total", "row * K + col", "SALT_A"),
    "Aᵀ": digit("total", "col * K + row", "SALT_A"),
    "A @ B": "total = float32(0.0)\n        for k in range(K):\n            "
    + digit("a", "row * K + k", "SALT_A").replace("\n        ", "\n            ")
    + "\n            "
    + digit("b", "k * N + col", "SALT_B").replace("\n        ", "\n            ")
    + "\n            total += a * b",
    "the row sums of A": "total = float32(0.0)\n        for k in range(K):\n            "
    + digit("a", "row * K + k", "SALT_A").replace("\n        ", "\n            ")
    + "\n            total += a",
}


def cheat_for(puzzle: Puzzle) -> str:
    cheat = CHEAT.replace("VALUE", VALUES[puzzle.expected_label])
    if puzzle.expected_label == "the row sums of A":  # C is one column: rows across a warp's lanes keep 32 active
        cheat = cheat.replace("col, row = cuda.grid(2)", "row, col = cuda.grid(2)")
        cheat = cheat.replace("((N + 31) // 32, (M + 7) // 8), (32, 8)", "((M + 31) // 32, (N + 7) // 8), (32, 8)")
    return cheat


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.key)
def test_a_kernel_that_rebuilds_the_public_operands_fails_every_puzzle(puzzle):
    def first(unnamed):  # the unnamed size every grade here runs
        return unnamed[0]

    cheat = cheat_for(puzzle)
    # On TileLab's public operands the cheat stores the right C with no loads and meets every budget, as
    # the grade before fresh operands accepted...
    public = puzzle.grade(cheat, draw=operands, pick=first)
    for check in public.checks:
        assert check.passed or check.label.startswith("C is computed from loaded values"), check
    assert all(check.value == 0 for check in public.checks if check.label.startswith("global loads"))
    # ...but a grade draws fresh operands at every size, and at every size the cheat loaded nothing.
    sizes = {*puzzle.sizes, puzzle.unnamed[0], *puzzle.edge_sizes}
    grade = puzzle.grade(cheat, pick=first)
    assert not grade.passed and not grade.error
    unloaded = {c.size for c in grade.checks if c.label.startswith("C is computed from loaded") and not c.passed}
    assert unloaded == sizes
    assert all(check.passed for check in grade.checks if check.label.startswith("no diagnostics"))
    # On operands other than the public ones its C is wrong at every size. (Digits shifted by one, so that no
    # 1×1×1 product agrees: a fresh draw does one time in about nine, and the loads check still fails it.)
    shifted = puzzle.grade(cheat, draw=lambda M, N, K: tuple(a % 9 + 1 for a in operands(M, N, K)), pick=first)
    assert {check.size for check in shifted.checks if check.label.startswith("C equals") and not check.passed} == sizes


def test_fresh_operands_are_digits_drawn_anew_at_every_call():
    first, second = fresh_operands(40, 30, 20), fresh_operands(40, 30, 20)
    assert [a.shape for a in first] == [(40, 20), (20, 30)] and all(a.dtype == np.float32 for a in first)
    assert set(np.unique(np.concatenate([a.ravel() for a in first]))) == set(range(1, 10))
    assert not np.array_equal(first[0], second[0]) and not np.array_equal(first[1], second[1])
    assert not np.array_equal(first[0], operands(40, 30, 20)[0])


SKIPS_LAST_K = solution(PUZZLE_BY_KEY["naive"]).replace("range(K)", "range(K - 1)")


def test_loaded_elements_are_those_the_kernel_read():
    M, N, K = 5, 3, 4
    for keep in (True, False):
        loaded_a, loaded_b = run(SKIPS_LAST_K, M, N, K, keep=keep).loaded
        # By hand: every k < K - 1 is read, for every row of A and column of B.
        assert {tuple(cell) for cell in np.argwhere(~loaded_a)} == {(row, K - 1) for row in range(M)}
        assert {tuple(cell) for cell in np.argwhere(~loaded_b)} == {(K - 1, col) for col in range(N)}


def test_a_kernel_that_skips_inputs_fails_the_loads_check_with_the_first_it_missed():
    puzzle = PUZZLE_BY_KEY["naive"]
    grade = puzzle.grade(
        SKIPS_LAST_K,
        draw=lambda M, N, K: (np.zeros((M, K), np.float32), operands(M, N, K)[1]),
        pick=lambda unnamed: unnamed[0],
    )
    loads = [check for check in grade.checks if check.label.startswith("C is computed from loaded values")]
    assert all(check.passed for check in grade.checks if check.label.startswith("C equals"))  # A = 0: C = 0
    assert [check.value for check in loads] == [
        M + N for M, N, _ in (*puzzle.sizes, puzzle.unnamed[0], *puzzle.edge_sizes)
    ]
    assert loads[0].detail == f"A[0, {puzzle.sizes[0][2] - 1}] was never loaded ({sum(puzzle.sizes[0][:2]) - 1} more)"
    assert not grade.passed


UNNAMED = [(puzzle, at) for puzzle in PUZZLES for at in range(len(puzzle.unnamed))]


@pytest.mark.parametrize("puzzle,at", UNNAMED, ids=lambda v: v.key if isinstance(v, Puzzle) else str(v))
def test_reference_solution_meets_every_budget_at_each_size_the_puzzle_does_not_name(puzzle, at):
    size = puzzle.unnamed[at]
    assert size[2] != 8 and size not in puzzle.sizes and size not in puzzle.edge_sizes
    grade = puzzle.grade(solution(puzzle), pick=lambda sizes: sizes[at])
    assert grade.passed, [check for check in grade.checks if not check.passed]
    budgeted = {check.size for check in grade.checks if check.label.startswith("active lanes")}
    assert budgeted == {*puzzle.sizes, size}  # every budget at the named sizes and at the unnamed one
