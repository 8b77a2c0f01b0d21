"""How C fills, step by step (Trace.filling, the verify badge's "so far"), against a count made here:
in the smem kernel a block stores its T×T tile of C (clipped to C) at its store step, and nothing else."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from test_stores import break_stores, minus_one

from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS


def stored_by_brute_force(p: SmemParams, trace: Trace, index: int) -> int:
    """Elements of C whose block has reached its store step by step `index`."""
    step = trace[index]
    done = 0
    for row, col in product(range(p.M), range(p.N)):
        number = trace.blocks.index((col // p.T, row // p.T))
        if number < step.block_number or (number == step.block_number and step.phase == "store"):
            done += 1
    return done


@pytest.mark.parametrize("p", [SmemParams(M=5, N=3, K=4, T=2), SmemParams(M=1, N=1, K=1, T=1)])
def test_filling_counts_what_the_blocks_stored_so_far(p):
    trace = Trace(KERNELS["smem"], p)
    for index in range(len(trace)):
        filling = trace.filling(index)
        expected = stored_by_brute_force(p, trace, index)
        assert (filling.stored, filling.matching, filling.elements) == (expected, expected, p.M * p.N)


def test_a_wrong_store_shows_as_stored_but_not_matching(monkeypatch):
    kernel = KERNELS["smem"]
    break_stores(monkeypatch, kernel, minus_one)
    p = SmemParams(M=4, N=4, K=2, T=2)
    trace = Trace(kernel, p)
    last = trace.filling(len(trace) - 1)
    assert (last.stored, last.matching) == (16, int(np.count_nonzero(trace.expected == -1)))
