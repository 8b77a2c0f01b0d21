"""pysim.lessons.motion: what travels in a step, against the trace itself (the values that arrive are the
values the step stored), and the followed thread's register tile against the shared arrays it copies."""

from __future__ import annotations

import numpy as np
import pytest

from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from pysim.lessons.motion import load_moves, register_moves, register_tile


def trace_at_preset(name: str, preset: int = 0) -> tuple:
    kernel = KERNELS[name]
    raw = list(kernel.PARAMS.PRESETS.values())[preset]
    params = kernel.PARAMS.parse({key: str(value) for key, value in raw.items()})
    return kernel, params, Trace(kernel, params)


@pytest.mark.parametrize("name", ["smem", "register", "blocktile1d", "vectorized", "warptile", "transpose"])
def test_a_load_moves_every_active_lanes_values_into_the_cells_they_are_stored_in(name):
    kernel, params, trace = trace_at_preset(name)
    step = next(s for s in trace if s.phase == "load")
    moves = load_moves(step, limit=100_000)
    load, store = step.accesses
    assert len(moves) == store.elements - len(store.zero_cells()) > 0, "one move per stored element, from every lane"
    assert {m.thread for m in moves} == set(np.nonzero(load.active.any(axis=0))[0].tolist())
    for move in moves:
        assert (move.source, move.target) == (load.array, store.array)
        assert step.shared[move.target][move.target_cell] == move.value
    assert load_moves(step, limit=3) == moves[:3]


def test_no_step_but_a_load_moves_values_through_memory():
    _, _, trace = trace_at_preset("smem")
    assert all(load_moves(step, 100) == () for step in trace if step.phase != "load")


@pytest.mark.parametrize("name", ["register", "vectorized", "warptile"])
def test_the_register_tile_holds_what_the_thread_copied_and_its_fmas_meet_in_their_results(name):
    kernel, params, trace = trace_at_preset(name)
    thread = 1
    fma_steps = 0
    for step in list(trace)[: min(len(trace), 80)]:
        tile = register_tile(kernel, params, step, thread)
        assert tile is not None and tile.results.shape == (tile.column.size, tile.row.size)
        moves = register_moves(step, tile, thread)
        if not tile.current:
            continue
        fma_steps += 1
        focus = kernel.focus(params, step, thread)
        assert [step.shared["As"][c] for c in focus.operands["As"]] == tile.column.tolist()
        assert [step.shared["Bs"][c] for c in focus.operands["Bs"]] == tile.row.tolist()
        assert step.fma == kernel.threads(params) * len(tile.current), "every thread's FMAs of this step"
        assert {m.target_cell for m in moves} == set(tile.current)
        assert {(m.source, m.value) for m in moves} >= {("regM", float(tile.column[i])) for i, _ in tile.current}
    assert fma_steps > 0


def test_a_kernel_without_regm_and_regn_has_no_register_tile():
    kernel, params, trace = trace_at_preset("blocktile1d")
    assert register_tile(kernel, params, trace[5], 0) is None
    assert register_moves(trace[5], None, 0) == ()
