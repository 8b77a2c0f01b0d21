"""Playground puzzles: every reference solution passes its checker; typical wrong answers do not."""

import re

import pytest

from pysim.hardware.blocktile_params import Blocktile1DParams
from pysim.kernels import KERNELS
from pysim.play import compile_program, run
from pysim.play.puzzles import PUZZLE_BY_KEY, PUZZLES, starter_for


def test_there_are_at_least_eight_puzzles_with_unique_keys():
    assert len(PUZZLES) >= 8
    assert len(PUZZLE_BY_KEY) == len(PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.key)
def test_reference_solution_passes_its_checker(puzzle):
    grade = puzzle.grade(puzzle.solution())
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
    naive = PUZZLE_BY_KEY["naive"].solution().replace("T = 4 ", "T = 8 ")
    failed = failing_labels("tiled", naive)
    assert all(label.startswith("global loads") for label in failed)


def test_strided_naive_fails_only_coalescing():
    failed = failing_labels("coalesced", starter_for(PUZZLE_BY_KEY["coalesced"]))
    assert failed == {label for label in failed if "sectors" in label} and failed


def test_unpadded_transpose_fails_only_bank_conflicts():
    failed = failing_labels("transpose_padded", PUZZLE_BY_KEY["transpose"].solution())
    assert failed == {"no bank conflicts (0 extra cycles)"}


def test_tiled_kernel_without_zero_fill_fails_the_edge_puzzle():
    tiled = PUZZLE_BY_KEY["tiled"].solution()
    unguarded = re.sub(r" if [^\n]* else 0\.0", "", tiled)
    assert unguarded != tiled
    assert PUZZLE_BY_KEY["tiled"].grade(unguarded).passed  # multiples of the tile: fine
    failed = failing_labels("tiled_edges", unguarded)
    assert any("diagnostics" in label for label in failed)


def test_tiled_kernel_with_a_missing_barrier_fails_with_the_race():
    tiled = PUZZLE_BY_KEY["tiled"].solution()
    racy = tiled.replace("        cuda.syncthreads()  # stops fast", "        # cuda.syncthreads()  # stops fast")
    grade = PUZZLE_BY_KEY["tiled"].grade(racy)
    details = [check.detail for check in grade.checks if not check.passed]
    assert any("race" in detail for detail in details)


def test_a_file_that_cannot_run_is_a_failed_grade_with_the_error():
    grade = PUZZLE_BY_KEY["copy"].grade("import os\n")
    assert not grade.passed and "line 1" in grade.error
    assert grade.as_dict()["error"] == grade.error


def test_blocktile_1d_budgets_are_met_exactly_by_siboehms_kernel_4():
    puzzle = PUZZLE_BY_KEY["blocktile_1d"]
    loads, shared = puzzle.budgets
    # M·K·⌈N/64⌉ + K·N·⌈M/64⌉ and 9/8 · M·N·K: 64·16 + 16·64 at 64×64×16, 128·8·2 + 8·128·2 at 128×128×8
    assert [loads.limit(*size) for size in puzzle.sizes] == [2048, 4096]
    assert [shared.limit(*size) for size in puzzle.sizes] == [9 * 64 * 64 * 16 // 8, 9 * 128 * 128 * 8 // 8]
    for M, N, K in puzzle.sizes:  # the solution counts like k05 (the test below): no slack in either budget
        k05 = KERNELS["blocktile1d"].counters(Blocktile1DParams(M=M, N=N, K=K))
        assert (k05.global_loads, k05.shared_loads) == (loads.limit(M, N, K), shared.limit(M, N, K))


def test_naive_and_32_wide_register_1d_kernels_fail_only_the_blocktile_1d_budgets():
    naive = failing_labels("blocktile_1d", PUZZLE_BY_KEY["naive"].solution())
    assert naive and all(label.startswith(("global loads", "shared loads")) for label in naive)
    narrow = failing_labels("blocktile_1d", PUZZLE_BY_KEY["register_1d"].solution())  # BM = BN = 32
    assert narrow == {label for label in narrow if label.startswith("global loads")} and narrow


def test_blocktile_1d_without_guards_loads_outside_a_and_b():
    solution = PUZZLE_BY_KEY["blocktile_1d"].solution()
    unguarded = re.sub(r" if [^\n]* else float32\(0\.0\)", "", solution)
    assert unguarded != solution
    assert {problem.kind for problem in run(unguarded, 9, 11, 5, keep=False).diagnostics} == {"out_of_bounds"}


def test_blocktile_1d_solution_counts_like_pysims_kernel_4_except_register_reads():
    result = run(PUZZLE_BY_KEY["blocktile_1d"].solution(), 70, 66, 13, keep=False)
    k05 = KERNELS["blocktile1d"].counters(Blocktile1DParams(M=70, N=66, K=13))  # BM = BN = 64, BK = TM = 8
    assert result.c_matches and not result.diagnostics
    # k05 counts its read of the register tmpB per FMA; the playground counts local arrays, and tmpB is a scalar.
    assert result.counters.register_reads == 0 and k05.register_reads == k05.fma
    assert result.counters.as_dict() == {**k05.as_dict(), "register_reads": 0}
