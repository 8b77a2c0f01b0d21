"""The one 128-bit shared-memory rule (pysim/core/banks.py) against the Nsight Compute figures posted in
NVIDIA's developer forum, thread 373160 (cc 8.6 and 9.0), through every path that prices it."""

from __future__ import annotations

import numpy as np

from pysim.core import banks
from pysim.core.constants import WARP_SIZE
from pysim.speed.wavefronts import bank_wavefronts

LANES = np.arange(WARP_SIZE)
# Pattern 1: lanes i and i+16 read the 16 bytes at 32*i (words 8*i); Pattern 2: lanes 0-15 read bytes 0-15,
# lanes 16-31 bytes 32-47. Nsight Compute: 8 and 2 wavefronts.
PATTERN_1 = 8 * (LANES % 16)
PATTERN_2 = np.where(LANES < 16, 0, 8)


def test_the_forum_figures_in_the_counters_and_the_speed_model() -> None:
    for words, measured in ((PATTERN_1, 8), (PATTERN_2, 2)):
        assert banks.wavefronts(words, 4) == measured
        assert banks.analyse(words, 4).wavefronts == measured
        assert bank_wavefronts((4 * words)[None, :], 16).tolist() == [measured]


def test_a_conflict_free_128_bit_read_takes_four_and_a_broadcast_two() -> None:
    assert banks.wavefronts(4 * LANES, 4) == 4  # 32 lanes, 512 distinct bytes: one quarter-warp each
    assert banks.wavefronts(np.zeros(WARP_SIZE, dtype=int), 4) == 2  # every lane one address: pairs share
    assert banks.wavefronts(4 * (LANES // 4), 4) == 2  # four lanes per address: (n, n^1) pairs share


def test_pairs_n_xor_2_count_too_and_idle_lanes_never_break_a_pair() -> None:
    words = 4 * ((LANES // 4) * 2 + (LANES % 2))  # lanes n and n^2 share
    assert banks.wavefronts(words, 4) == 2
    idle = np.where(LANES % 2 == 1, banks.INACTIVE, 0)
    assert banks.wavefronts(idle, 4) == 2
