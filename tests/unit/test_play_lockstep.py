"""Warp instructions grouped by lockstep: the lanes of a warp that reach a load in the same iteration of its loops
issue it together, so a divergent kernel's requests and sectors are those of hardware.

The expected counts come from a plain model of the kernel in tests/unit/play/divergent_loop.py, written here: each
thread's loads listed with the iteration they happen in, grouped per (warp, load, iteration). Its C comes from
Numba's CUDA simulator.
"""

import importlib.util
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from pysim.core.constants import SECTOR_BYTES, WARP_SIZE, WORD_BYTES
from pysim.core.matrices import operands
from pysim.play import run

DIVERGENT = Path(__file__).parent / "play" / "divergent_loop.py"
BLOCK = (16, 4)  # launch() of divergent_loop.py
WORDS_PER_SECTOR = SECTOR_BYTES // WORD_BYTES


def lockstep_model(M, N, K, by_iteration=True):
    """{(block, warp, load, key): [word, ...]} for divergent_loop.py; key is the iteration of the loop around the
    load (by_iteration) or how many times the thread had made that load before (what a grouping by each thread's
    n-th execution would use)."""
    loads = defaultdict(list)
    for by in range(-(-M // BLOCK[1])):
        for bx in range(-(-N // BLOCK[0])):
            for t in range(BLOCK[0] * BLOCK[1]):
                tx, ty = t % BLOCK[0], t // BLOCK[0]
                col, row = bx * BLOCK[0] + tx, by * BLOCK[1] + ty
                if not (row < M and col < N):
                    continue
                warp = (bx, by, t // WARP_SIZE)
                made = defaultdict(int)

                def load(name, iteration, word, warp=warp, made=made):
                    key = iteration if by_iteration else made[name]
                    made[name] += 1
                    loads[(warp, name, key)].append(word)

                for k in range(K):
                    if (col + k) % 3 == 0:
                        load("A", k, row * K + k)
                        load("B in the for", k, k * N + col)
                for i, k in enumerate(range(col % 4, K)):
                    load("B in the while", i, k * N + col)
    return loads


def totals(loads):
    words = sum(len(w) for w in loads.values())
    sectors = sum(len({word // WORDS_PER_SECTOR for word in w}) for w in loads.values())
    return words, sectors, len(loads)


@pytest.mark.parametrize("M, N, K", [(5, 37, 7), (4, 16, 6), (1, 3, 1)])
def test_divergent_kernel_counts_loads_sectors_and_requests_in_lockstep(M, N, K):
    result = run(DIVERGENT.read_text(), M, N, K, keep=False)
    loads, sectors, requests = totals(lockstep_model(M, N, K))
    assert result.counters.global_loads == loads
    assert result.counters.global_sectors == sectors
    assert result.metrics.global_load_requests == requests
    assert not result.diagnostics


def test_the_model_tells_lockstep_from_each_threads_nth_execution():
    """At 5×37×7 grouping by each thread's n-th execution gives other sectors, so the test above can tell."""
    lockstep, nth = totals(lockstep_model(5, 37, 7)), totals(lockstep_model(5, 37, 7, by_iteration=False))
    assert lockstep[1] != nth[1]


def test_warp_instructions_of_one_interval_are_the_lockstep_groups():
    M, N, K = 4, 16, 6
    result = run(DIVERGENT.read_text(), M, N, K)
    model = lockstep_model(M, N, K)
    (interval,) = result.intervals  # one block, no barrier
    found = sorted(
        (i.active, i.count) for i in result.warp_instructions(interval.index) if i.is_global and i.access.op == "load"
    )
    expected = sorted((len(w), len({x // WORDS_PER_SECTOR for x in w})) for w in model.values())
    assert found == expected


def test_one_threads_records_name_their_warp_instruction():
    """AccessRecord.occurrence is the row of the interval's Access that holds the record's lane."""
    result = run(DIVERGENT.read_text(), 4, 16, 6)
    interval = result.intervals[0]
    thread = (5, 1)
    linear = thread[0] + thread[1] * BLOCK[0]
    records = [r for step in interval.thread_steps(thread) for r in step.accesses if r.space == "global"]
    assert len(records) > 3
    for record in records:
        held = [
            (int(a.rows[record.occurrence, linear]), int(a.cols[record.occurrence, linear]))
            for a in interval.accesses
            if (a.array, a.op) == (record.array, record.op) and record.occurrence < len(a.rows)
        ]
        assert record.index in held  # B has two sites (two Accesses): its row in one of them


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
def test_divergent_kernel_stores_numbas_c():
    from test_play_numba import HARNESS, under_numba

    M, N, K = 5, 37, 7
    A, B = operands(M, N, K)
    (numba_c,) = under_numba(
        HARNESS, [{"file": str(DIVERGENT), "M": M, "N": N, "K": K, "A": A.tolist(), "B": B.tolist()}]
    )
    np.testing.assert_array_equal(np.array(numba_c, dtype=np.float32), run(DIVERGENT.read_text(), M, N, K).C)
