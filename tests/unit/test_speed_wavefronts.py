"""The speed model's price of warp instructions (pysim/speed/wavefronts.py), priced many rows at a time
with NumPy, against a brute force that takes one warp at a time with Python sets, as the model's rule
reads: 32-bit accesses in one phase of 32 lanes, 64-bit in two of 16, 128-bit in four of 8, or in two
of 16 when every lane pair (n, n^1) or every pair (n, n^2) shares its address; a phase costs the most
distinct words one bank is asked for; a global request max(that, its 128 B lines / 4), and what the first
adds over the second is counted apart (the bank rule for global loads is unverified)."""

from __future__ import annotations

from math import ceil
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pysim.speed import wavefronts
from pysim.speed.wavefronts import Tally, bank_wavefronts, sectors_lines, tally

KINDS = ("ldg", "ldc", "stg", "lds", "sts")


def phases(addrs: list[int], width: int) -> list[range]:
    if width == 4:
        return [range(32)]
    pairs_share = any(
        all(addrs[n] == addrs[n ^ p] or addrs[n] < 0 or addrs[n ^ p] < 0 for n in range(32)) for p in (1, 2)
    )
    if width == 8 or pairs_share:
        return [range(16), range(16, 32)]
    return [range(first, first + 8) for first in range(0, 32, 8)]


def brute_wavefronts(addrs: list[int], width: int) -> int:
    total = 0
    for phase in phases(addrs, width):
        by_bank: dict[int, set[int]] = {}
        for lane in phase:
            if addrs[lane] >= 0:
                for word in range(addrs[lane] // 4, (addrs[lane] + width) // 4):
                    by_bank.setdefault(word % 32, set()).add(word)
        total += max((len(words) for words in by_bank.values()), default=0)
    return total


def brute_spans(addrs: list[int], width: int, unit: int) -> int:
    return len({byte // unit for a in addrs if a >= 0 for byte in range(a, a + width)})


def brute_tally(kind: str, addrs: list[int], width: int) -> Tally:
    waves = brute_wavefronts(addrs, width)
    if kind in ("lds", "sts"):
        return Tally(lds=kind == "lds", sts=kind == "sts", shared_wavefronts=waves)
    sectors = brute_spans(addrs, width, 32)
    tags = ceil(brute_spans(addrs, width, 128) / 4)
    cost = {"global_wavefronts": max(waves, tags), "global_bank_wavefronts": max(waves - tags, 0)}
    return {
        "ldg": Tally(ldg=1, ldg_sectors=sectors, **cost),
        "ldc": Tally(c_ldg=1, c_sectors=sectors, **cost),
        "stg": Tally(stg=1, stg_sectors=sectors, **cost),
    }[kind]


@st.composite
def warp(draw) -> list[int]:
    """One warp's byte addresses (-1: lane idle), near each other so lanes share words, banks and lines;
    some with every lane pair (n, n^1) or (n, n^2) at one address, as float4 broadcasts are."""
    base = draw(st.sampled_from([0, 4096, 1 << 36]))
    addrs = [base + 4 * draw(st.integers(0, 300)) for _ in range(32)]
    partner = draw(st.sampled_from([0, 1, 2]))
    if partner:
        addrs = [addrs[n & ~partner] for n in range(32)]
    idle = draw(st.sets(st.integers(0, 31), max_size=32))
    return [-1 if lane in idle else a for lane, a in enumerate(addrs)]


@settings(max_examples=200, deadline=None)
@given(st.lists(warp(), min_size=1, max_size=6), st.sampled_from([4, 8, 16]))
def test_rows_priced_as_one_warp_at_a_time(warps, width):
    rows = np.array(warps, dtype=np.int64)
    assert bank_wavefronts(rows, width).tolist() == [brute_wavefronts(a, width) for a in warps]
    sectors, lines = sectors_lines(rows, width)
    assert sectors.tolist() == [brute_spans(a, width, 32) for a in warps]
    assert lines.tolist() == [brute_spans(a, width, 128) for a in warps]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from([4, 8, 16]), warp()), min_size=1, max_size=12),
    st.integers(1, 4),
)
def test_tally_sums_every_instruction(instructions, chunk):
    expected = Tally()
    for kind, width, addrs in instructions:
        expected += brute_tally(kind, addrs, width)
    found = [(kind, width, np.array(addrs, dtype=np.int64)) for kind, width, addrs in instructions]
    assert tally(found) == expected
    with patch.object(wavefronts, "CHUNK_ROWS", chunk):  # priced a few rows at a time: the same sum
        assert tally(found) == expected


def test_an_idle_warp_still_issues_its_instruction():
    idle = np.full((2, 32), -1, dtype=np.int64)
    assert tally([("ldg", 16, idle), ("lds", 4, idle)]) == Tally(ldg=2, lds=2)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from([4, 8, 16]), warp()), min_size=1, max_size=6),
    st.lists(st.integers(0, 40), min_size=1, max_size=4),
    st.booleans(),
)
def test_a_pattern_repeated_at_other_lines_is_priced_as_each_row(instructions, shifts, collide):
    """Rows moved by whole 128 B lines are one pattern, priced once and counted for each row; with every
    fingerprint alike (`collide`) the patterns are still told apart exactly."""
    expected, found = Tally(), []
    for kind, width, addrs in instructions:
        for shift in shifts:
            moved = [a + 128 * shift if a >= 0 else a for a in addrs]
            expected += brute_tally(kind, moved, width)
            found.append((kind, width, np.array(moved, dtype=np.int64)))
    with patch.object(wavefronts, "MIX", wavefronts.MIX * (not collide)):
        assert tally(found) == expected
