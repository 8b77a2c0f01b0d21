"""The bulk counting of a run (pysim.play.table, pysim.core.bulk) against counts made warp by warp in plain Python.

Every interval's access counters must equal a per-warp count with Python sets of its Step (the warp
instructions the views draw), and so must the run's per-request metrics, for the playground's own files, a
divergent kernel, a racy one and atomics, at tile-aligned and ragged sizes. (`count_step` counts with the same
pysim.core.bulk as the table, so it is no independent check.)
"""

from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from pysim.core.bulk import groups
from pysim.core.constants import NUM_BANKS, WARP_SIZE, WORDS_PER_SECTOR
from pysim.play import run
from pysim.play.spills import spilled

PLAY = Path(__file__).resolve().parents[2] / "pysim" / "play"
FILES = sorted((PLAY / "starters").glob("*.py")) + sorted((PLAY / "solutions").glob("*.py"))
FILES += sorted((Path(__file__).parent / "play").glob("*.py"))
SIZES = [(16, 16, 16), (5, 7, 3), (33, 18, 9)]


def per_warp(step):
    """(space, op, lanes' words, bank phases) of every warp of every instruction row of a Step: one phase of
    32-bit words, or for 8-byte elements two half-warps each asking two words a lane (LDS.64)."""
    for access in step.accesses:
        words = access.words
        for row in words:
            for first in range(0, len(row), WARP_SIZE):
                warp = [int(w) for w in row[first : first + WARP_SIZE]]
                lanes = [w for w in warp if w >= 0]
                if not lanes:
                    continue
                phases = [lanes]
                if access.element_words == 2:
                    halves = (warp[:16], warp[16:])
                    phases = [[2 * w + half for w in lanes if w >= 0 for half in (0, 1)] for lanes in halves]
                yield access.space, access.op, lanes, [phase for phase in phases if phase]


ACCESS_COUNTERS = (
    "global_loads",
    "global_stores",
    "shared_loads",
    "shared_stores",
    "global_sectors",
    "bank_extra_cycles",
    "shared_wavefronts",
)


def bank_degree(lanes):
    """Most distinct words one bank is asked for (SPEC §2, a 32-bit access)."""
    banks = defaultdict(set)
    for w in lanes:
        banks[w % NUM_BANKS].add(w)
    return max(len(b) for b in banks.values())


def brute_counts(step):
    """The counters a Step's accesses make (SPEC §2), warp by warp with Python sets; each lane moves one word."""
    found = dict.fromkeys(ACCESS_COUNTERS, 0)
    for space, op, lanes, phases in per_warp(step):
        found[f"{space}_{op}s"] += len(lanes)
        if space == "global" and op == "load":
            found["global_sectors"] += len({w // WORDS_PER_SECTOR for w in lanes})
        if space == "shared":
            for phase in phases:
                degree = bank_degree(phase)
                found["bank_extra_cycles"] += degree - 1
                found["shared_wavefronts"] += degree
    return found


def brute_metrics(result):
    found = defaultdict(int)
    for interval in result.intervals:
        for space, op, lanes, phases in per_warp(interval.step):
            if space == "global":
                sectors = len({w // WORDS_PER_SECTOR for w in lanes})
                kind = "load" if op == "load" else "store"
                found[f"global_{kind}_requests"] += 1
                found[f"max_sectors_per_{kind}"] = max(found[f"max_sectors_per_{kind}"], sectors)
                if kind == "store":
                    found["global_store_sectors"] += sectors
            else:
                found["shared_requests"] += 1
                found["max_bank_degree"] = max(found["max_bank_degree"], *map(bank_degree, phases))
    return found | brute_lanes(result)


def brute_lanes(result):
    """Active lanes, atomics, local-memory traffic and constant reads, from every thread's own records: a warp
    instruction is the records of one site, array and occurrence (its row in the interval's Step) in one warp;
    a constant read's, those of one site read for the n-th time by the warp's lanes (lanes in step)."""
    found = defaultdict(int)
    sites, spilled_names = result.program.sites, {a.name for a in spilled(result.program)}
    counted = result.intervals if result.completed else result.intervals[:-1]  # a run stops in its last, uncounted
    for interval in counted:
        instructions, reads, nth = defaultdict(list), defaultdict(list), Counter()
        for thread, record in interval.records():
            tx, ty, tz = (*thread, 0)[:3]  # (tx, ty), or (tx, ty, tz) in a 3-D block
            if record.space == "register":
                if record.array in spilled_names:
                    found[f"local_{record.op}s"] += 1
                continue
            dx, dy = result.launch.block[:2]
            warp = (tx + ty * dx + tz * dx * dy) // WARP_SIZE  # the thread ID of the CUDA Programming Guide
            if record.space == "constant":  # no Access row: the n-th time the thread reads the site is its instruction
                nth[thread, record.site] += 1
                reads[record.site, nth[thread, record.site], warp].append(record.index)
                continue
            instructions[record.site, record.array, record.occurrence, warp].append(record.index)
        for (site, _, _, _), indices in instructions.items():
            if sites[site].atomic and sites[site].op == "store":
                found["atomic_requests"] += 1
                found["atomic_wavefronts"] += max(Counter(indices).values())  # lanes on one word take turns
            else:
                found["memory_requests"] += 1
                found["memory_lanes"] += len(indices)
        for indices in reads.values():  # the constant cache serves one address per pass
            found["constant_loads"] += len(indices)
            found["constant_requests"] += 1
            found["constant_passes"] += len(set(indices))
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_bulk_counts_equal_counting_each_intervals_warp_instructions(path, size):
    try:
        result = run(path.read_text(encoding="utf-8"), *size)
    except Exception as error:  # noqa: BLE001 - a fixture that cannot run at this size (e.g. square only)
        pytest.skip(f"{path.name} does not run at {size}: {error}")
    assert result.intervals
    total = None
    for interval in result.intervals:
        counted = {name: getattr(interval.delta, name) for name in ACCESS_COUNTERS}
        expected = brute_counts(interval.step)
        assert counted == expected, (interval.index, counted, expected)
        total = interval.delta if total is None else total + interval.delta
        assert interval.counters == total  # cumulative, as the deltas add up in order
    assert total == result.counters
    metrics = brute_metrics(result)
    assert {k: v for k, v in result.metrics.__dict__.items() if v} == {k: v for k, v in metrics.items() if v}


@pytest.mark.parametrize("scale", [1, 2**60], ids=["one key", "lexsort"])  # 2**60: the ranges' product passes 2**62
def test_groups_number_distinct_tuples_in_first_seen_order_of_their_sorted_keys(scale):
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 5, 400), rng.integers(-3, 3, 400) * scale
    ids, count, first = groups(a, b)
    seen = {}
    for i, key in enumerate(zip(a.tolist(), b.tolist())):
        seen.setdefault(key, i)
    assert count == len(seen)
    assert sorted(first.tolist()) == sorted(seen.values())
    assert all(ids[i] == ids[seen[key]] for i, key in enumerate(zip(a.tolist(), b.tolist())))
    assert len({int(ids[i]) for i in seen.values()}) == count
    assert [int(ids[seen[key]]) for key in sorted(seen)] == list(range(count))  # numbered in the tuples' order


KERNEL_HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"


def kernel_file(body: str) -> str:
    return KERNEL_HEAD + body + "\n\ndef launch(M, N, K):\n    return 1, 1\n"


def test_the_interval_a_runaway_loop_stopped_in_steps_through_every_store_in_order():
    """Its records are left out of the counting table (made only when a reader steps it): stepping the one
    thread shows each iteration's store, with the value that iteration stored, and none is counted."""
    result = run(kernel_file("    for i in range(10**18):\n        C[0, 0] = float32(i)\n"), 1, 1, 1, max_steps=3_000)
    last = result.intervals[-1]
    store_line = KERNEL_HEAD.count("\n") + 2
    stores = [step.accesses for step in last.thread_steps(0) if step.line == store_line]
    assert len(stores) > 900  # about 3,000 steps / 3 per iteration (its top, the statement, the store)
    assert all(len(accesses) == 1 for accesses in stores)
    assert [(a.array, a.index, a.op, a.value) for (a,) in stores] == [
        ("C", (0, 0), "store", float(i)) for i in range(len(stores))
    ]
    assert result.counters.global_stores == 0 and last.delta.global_stores == 0


def test_a_load_past_any_64_bit_address_is_reported_not_recorded():
    """`A[i * i, 0]` with i = 2**40 asks for word 2**80: out of bounds, reported; no record could hold it."""
    result = run(kernel_file("    i = 1 << 40\n    x = A[i * i, 0]\n    C[0, 0] = x\n"), 1, 1, 1)
    assert result.completed and result.diagnostics_of("out_of_bounds")
    assert result.counters.global_loads == 0 and result.counters.global_stores == 1
