"""pysim.core.bulk, the one sector and bank counter, against counts with Python sets, on random groups of
words: close together (one sorted key) and spread over 2**61 (an out-of-bounds load's word can be that far: a
combined key would overflow, so the lexsort path counts)."""

from collections import defaultdict

import numpy as np
import pytest

from pysim.core.bulk import bank_degrees, distinct_per_group, sectors_per_group
from pysim.core.constants import NUM_BANKS, WORDS_PER_SECTOR


def plain(group, words, key):
    """Per group, the Python set of `key(word)`."""
    found = defaultdict(set)
    for g, w in zip(group.tolist(), words.tolist()):
        found[g].add(key(w))
    return found


@pytest.mark.parametrize("spread", [0, 2**61], ids=["words close together", "words 2**61 apart"])
@pytest.mark.parametrize("seed", range(4))
def test_sectors_and_bank_degrees_per_group_equal_a_count_with_sets(spread, seed):
    rng = np.random.default_rng(seed)
    count = 12
    group = rng.integers(0, count - 2, 300).astype(np.intp)  # the last two groups hold no row
    words = rng.integers(0, 2, 300) * spread + rng.integers(0, 200, 300)
    sectors = plain(group, words, lambda w: w // WORDS_PER_SECTOR)
    assert sectors_per_group(group, count, words).tolist() == [len(sectors[g]) for g in range(count)]
    assert distinct_per_group(group, count, words).tolist() == [len(plain(group, words, int)[g]) for g in range(count)]
    expected = []
    for g in range(count):
        banks = defaultdict(set)
        for w in plain(group, words, int)[g]:
            banks[w % NUM_BANKS].add(w)
        expected.append(max((len(b) for b in banks.values()), default=0))
    assert bank_degrees(group, count, words).tolist() == expected


def test_no_rows_count_nothing():
    empty = np.zeros(0, dtype=np.int64)
    assert sectors_per_group(empty.astype(np.intp), 3, empty).tolist() == [0, 0, 0]
    assert bank_degrees(empty.astype(np.intp), 3, empty).tolist() == [0, 0, 0]
