"""Vector accesses (SPEC §6): sectors and shared-memory wavefronts of 32-, 64- and 128-bit lanes,
against tests/bruteforce.py's byte-by-byte count, and the trace records that carry them."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bruteforce import conflict_cycles, vector_banks, vector_sectors
from pysim.core import banks, lanes, sectors
from pysim.core.trace import Access, Step, count_step
from pysim.core.warps import INACTIVE

WIDTHS = (1, 2, 4)


def as_array(starts):
    return np.array([INACTIVE if s is None else s for s in starts], dtype=np.int64)


# Named warps: (description, first word of each of the 32 lanes, None = idle).
CASES = {
    "contiguous": lambda w: [lane * w for lane in range(32)],
    "broadcast": lambda w: [8] * 32,
    "stride 32 words": lambda w: [lane * 32 for lane in range(32)],
    "stride 2 vectors": lambda w: [lane * 2 * w for lane in range(32)],
    "misaligned start": lambda w: [3 + lane * w for lane in range(32)],
    "odd lanes idle": lambda w: [None if lane % 2 else lane * w for lane in range(32)],
    "quarter rows of a transposed tile": lambda w: [(lane % 8) * w + (lane // 8) * 128 for lane in range(32)],
    "all idle": lambda w: [None] * 32,
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", CASES)
def test_sectors_and_banks_match_brute_force(case, width):
    starts = CASES[case](width)
    words = as_array(starts)
    assert int(sectors.warp_sectors(words, width).sum()) == vector_sectors(starts, width)
    waves, extra = vector_banks(starts, width)
    assert banks.costs(words, width) == (extra, waves)
    report = banks.analyse(words, width)
    assert (report.wavefronts, report.extra_cycles) == (waves, extra)


def test_hardware_rule_examples():
    """Quarter-warps for 128-bit (half-warps where lane pairs share addresses), half-warps for 64-bit;
    conflicts only inside a phase."""
    contiguous4 = np.arange(32) * 4
    assert banks.costs(contiguous4, 4) == (0, 4)  # 512 bytes: four conflict-free quarter-warps
    assert banks.costs(np.arange(32) * 2, 2) == (0, 2)
    assert banks.costs(np.arange(32), 1) == (0, 1)
    assert banks.costs(np.full(32, 8), 4) == (0, 2)  # a broadcast float4: lane pairs share, two half-warps
    # lanes 0 and 8 hit the same banks with different words, but sit in different quarter-warps
    assert banks.costs(np.arange(32) % 8 * 4 + np.arange(32) // 8 * 128, 4) == (0, 4)
    # inside one quarter-warp two lanes ask banks 0-3 for different words: degree 2
    assert banks.costs(np.array([0, 32] + [INACTIVE] * 30), 4) == (1, 2)
    assert banks.costs(np.arange(32) * 32, 1) == (31, 32)


@settings(max_examples=150, deadline=None)
@given(
    width=st.sampled_from(WIDTHS),
    starts=st.lists(st.one_of(st.none(), st.integers(0, 300)), min_size=32, max_size=32),
)
def test_random_warps_match_brute_force(width, starts):
    words = as_array(starts)
    assert int(sectors.warp_sectors(words, width).sum()) == vector_sectors(starts, width)
    waves, extra = vector_banks(starts, width)
    assert banks.costs(words, width) == (extra, waves)


@settings(max_examples=60, deadline=None)
@given(starts=st.lists(st.one_of(st.none(), st.integers(0, 300)), min_size=1, max_size=96))
def test_width_one_keeps_the_old_meaning(starts):
    """bank_extra_cycles of a 32-bit access is still degree - 1 per warp; wavefronts add one per busy warp."""
    words = as_array(starts)
    groups = [starts[i : i + 32] for i in range(0, len(starts), 32)]
    old = sum(conflict_cycles([w for w in group if w is not None]) for group in groups)
    busy = sum(any(w is not None for w in group) for group in groups)
    assert banks.extra_cycles(words) == old
    assert banks.wavefronts(words) == old + busy


def wide_access(space, op, width, firsts, stride=64):
    rows, cols = np.divmod(as_array(firsts), stride)
    idle = as_array(firsts) == INACTIVE
    rows, cols = np.where(idle, INACTIVE, rows), np.where(idle, INACTIVE, cols)
    values = np.arange(len(firsts) * width, dtype=np.float32).reshape(len(firsts), width)
    return Access("X", space, op, rows, cols, stride, values if width > 1 else values[:, 0], width=width)


@pytest.mark.parametrize("width", WIDTHS)
def test_count_step_counts_elements_sectors_and_wavefronts(width):
    firsts = [3 + lane * width if lane % 3 else None for lane in range(40)]
    load = wide_access("global", "load", width, firsts)
    read = wide_access("shared", "load", width, firsts)
    counted = count_step(Step("compute", (1,), accesses=(load, read)))
    active = sum(f is not None for f in firsts)
    assert counted.global_loads == counted.shared_loads == width * active
    assert counted.global_sectors == sum(vector_sectors(firsts[i : i + 32], width) for i in (0, 32))
    expected = [vector_banks(firsts[i : i + 32], width) for i in (0, 32)]
    assert counted.shared_wavefronts == sum(w for w, _ in expected)
    assert counted.bank_extra_cycles == sum(e for _, e in expected)


def test_a_wide_store_writes_every_word():
    store = wide_access("global", "store", 4, [0, 8, None, 60], stride=16)
    target = np.zeros((4, 16), dtype=np.float32)
    store.write_into(target)
    assert target[0, :4].tolist() == [0, 1, 2, 3] and target[0, 8:12].tolist() == [4, 5, 6, 7]
    assert target[3, 12:16].tolist() == [12, 13, 14, 15] and np.count_nonzero(target) == 11
    assert store.cells(3) == [(3, 12), (3, 13), (3, 14), (3, 15)]
    assert store.elements == 12


@pytest.mark.parametrize("width", WIDTHS)
def test_lane_records_match_brute_force(width):
    firsts = [5 + lane * width * 2 if lane != 7 else None for lane in range(32)]
    found = lanes.warp_sectors(wide_access("global", "load", width, firsts), 0)
    assert len(found.sectors) == vector_sectors(firsts, width)
    assert found.bytes_used == 4 * width * (len(firsts) - 1)
    assert found.lanes[3].words == tuple(range(firsts[3], firsts[3] + width))
    shared = lanes.warp_banks(wide_access("shared", "load", width, firsts), 0)
    assert (shared.wavefronts, shared.extra_cycles) == vector_banks(firsts, width)
    assert shared.cell_of(firsts[2] + width - 1) == divmod(firsts[2] + width - 1, 64)


def test_trace_json_carries_width_and_the_vector_values():
    args = ["--M", "6", "--N", "8", "--K", "8", "--BM", "16", "--BN", "16", "--BK", "4", "--TM", "4", "--TN", "4"]
    done = subprocess.run(
        [sys.executable, "-m", "pysim", "trace", "--kernel", "vectorized", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    A, B = np.array(lines[0]["A"], dtype=np.float32), np.array(lines[0]["B"], dtype=np.float32)
    c = np.full((6, 8), np.nan, dtype=np.float32)
    widths = set()
    for step in lines[1:-1]:
        for access in step["accesses"]:
            width = access.get("width", 1)
            widths.add((access["space"], access["array"], width))
            assert width in (2, 4) or "width" not in access
            if access["array"] == "A" and access["op"] == "load":
                row, col = access["index"]
                assert access["value"] == A[row, col : col + 4].tolist()
            if access["array"] == "C":
                row, col = access["index"]
                c[row, col : col + width] = access["value"]
    np.testing.assert_array_equal(c, A @ B)
    assert ("global", "A", 4) in widths and ("shared", "As", 1) in widths and ("shared", "Bs", 4) in widths
    assert lines[-1]["c_matches"] is True
