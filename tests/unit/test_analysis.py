"""Bank and sector analysis on hand-checked cases."""

import numpy as np

from pysim.core import banks, sectors
from pysim.core.warps import INACTIVE


def test_broadcast_is_one_word_no_conflict():
    report = banks.analyse([5] * 32)
    assert report.degree == 1 and report.broadcast_words == 1 and report.banks_used == 1


def test_stride_32_is_a_32_way_conflict():
    report = banks.analyse(np.arange(32) * 32)
    assert report.degree == 32 and report.extra_cycles == 31
    assert report.words_per_bank[0] == tuple(range(0, 1024, 32))


def test_stride_33_is_conflict_free():
    report = banks.analyse(np.arange(32) * 33)
    assert report.degree == 1 and report.banks_used == 32


def test_stride_2_is_two_way():
    assert banks.analyse(np.arange(32) * 2).degree == 2


def test_inactive_lanes_are_ignored():
    assert banks.analyse([INACTIVE] * 31 + [7]).threads == 1


def test_tile_warp_words():
    assert banks.analyse(banks.tile_warp_words(32, 0, "column")).degree == 32
    assert banks.analyse(banks.tile_warp_words(32, 1, "column")).degree == 1
    assert banks.analyse(banks.tile_warp_words(32, 2, "column")).degree == 2
    assert banks.analyse(banks.tile_warp_words(32, 0, "row")).degree == 1
    assert banks.analyse(banks.tile_warp_words(32, 0, "broadcast")).broadcast_words == 1


def test_degrees_per_warp_match_analyse():
    rng = np.random.default_rng(1)
    words = rng.integers(0, 200, size=96)
    per_warp = banks.degrees(words)
    assert list(per_warp) == [banks.analyse(words[i : i + 32]).degree for i in (0, 32, 64)]


def test_sectors_of_a_coalesced_and_a_strided_warp():
    assert sectors.warp_sectors(np.arange(32)).tolist() == [4]
    assert sectors.warp_sectors(np.arange(32) * 8).tolist() == [32]
    assert sectors.warp_sectors(np.arange(4, 36)).tolist() == [5]
    assert sectors.warp_sectors(np.full(32, INACTIVE)).tolist() == [0]
