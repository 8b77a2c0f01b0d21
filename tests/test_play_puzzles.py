"""Playground puzzles: every reference solution passes its checker; typical wrong answers do not."""

import re

import pytest

from pysim.play import compile_program
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
