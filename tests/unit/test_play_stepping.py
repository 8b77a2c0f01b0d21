"""What the playground's stepping draws comes from pysim.play's RunResult: memory after an interval, the
thread that stored a C element, the warp instructions with their sectors and bank degrees."""

from pathlib import Path

import numpy as np

from pysim.play import run
from pysim.play.puzzles import FREE_PLAY_FILE, PUZZLE_BY_KEY, starter_for, starter_text
from pysim.play.session import expected_shape

ROOT = Path(__file__).resolve().parents[2]
TILED = (ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py").read_text()
TRANSPOSE = (ROOT / "pysim" / "play" / "solutions" / "transpose.py").read_text()


def test_memory_after_the_last_interval_is_what_the_threads_stored():
    result = run(TILED, 16, 16, 16)
    shared, c = result.memory_after(len(result.intervals) - 1)
    assert np.array_equal(c, result.C)
    assert set(shared) == {a.name for a in result.shared_allocations}
    assert all(grid.shape == a.grid_shape for a, grid in zip(result.shared_allocations, shared.values()))
    _, first = result.memory_after(0)
    assert np.isnan(first).all()  # the first interval only fills the tiles


def test_the_storer_of_a_c_element_stored_it():
    result = run(TILED, 16, 16, 16)
    index, thread = result.storer_of(5, 9)
    stores = [
        record.index
        for step in result.intervals[index].thread_steps(thread)
        for record in step.accesses
        if record.array == "C" and record.op == "store"
    ]
    assert (5, 9) in stores
    assert result.storer_of(99, 99) is None


def test_next_block_interval_moves_to_another_block():
    result = run(TILED, 16, 16, 16)
    later = result.next_block_interval(0)
    assert result.intervals[later].block != result.intervals[0].block
    assert result.next_block_interval(len(result.intervals) - 1) == len(result.intervals) - 1


def test_warp_instructions_agree_with_the_metrics_and_the_lanes():
    result = run(TRANSPOSE, 64, 64, 64)
    instructions = [i for index in range(len(result.intervals)) for i in result.warp_instructions(index)]
    loads = [i.count for i in instructions if i.is_global and i.access.op == "load"]
    shared = [i.count for i in instructions if not i.is_global]
    assert max(loads) == result.metrics.max_sectors_per_load
    assert max(shared) == result.metrics.max_bank_degree
    for instruction in instructions[:40]:
        if instruction.is_global:
            assert len(instruction.sectors().sectors) == instruction.count
            assert instruction.sectors().active == instruction.active
        else:
            assert instruction.banks().degree == instruction.count


def test_roles_mismatches_and_expected_shapes():
    result = run(TILED, 8, 8, 8)
    assert [result.role_of(name) for name in result.program.params] == ["A", "B", "C"]
    assert result.role_of("tileA") == "tileA"
    assert result.mismatched_cells() == []
    assert expected_shape(PUZZLE_BY_KEY["copy"], 4, 6, 6) == (4, 6)
    assert expected_shape(PUZZLE_BY_KEY["naive"], 4, 6, 3) == (4, 6)


def test_starters_are_files_beside_the_solutions():
    assert starter_for(PUZZLE_BY_KEY["tiled"]) == starter_text("smem_tiled.py")
    assert run(starter_text(FREE_PLAY_FILE), 8, 8, 8).c_matches
