"""Sectors and bank conflicts counted in bulk: one NumPy pass over many warp instructions at once.

Every count of sectors and bank-conflict degrees in pysim comes from here: one step's accesses
(`pysim.core.sectors.warp_sectors`, `pysim.core.banks.phase_degrees`, which `pysim.core.trace.count_step`
sums) and a playground run's table of a few hundred intervals (`pysim.play.table`) alike. The accesses
are rows, each with the group it belongs to (a warp of one instruction, or a phase of one); sectors and
bank degrees are group counts in a handful of NumPy calls, where counting group by group costs a few
small NumPy calls per group (in Pyodide most of a playground run's time).

SPEC §2: a warp-wide global access touches the distinct 32-byte sectors of its words (arrays are
row-major float32 with a base aligned to 128 bytes, so word w lies in sector w // WORDS_PER_SECTOR); a
shared access takes as many wavefronts as the largest number of distinct words one bank is asked for.
"""

from __future__ import annotations

import numpy as np

from .constants import NUM_BANKS, WORDS_PER_SECTOR

KEY_LIMIT = 1 << 62  # `groups`' combined key stays below it: its int64 arithmetic cannot overflow


def groups(*columns: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """Number the distinct tuples of `columns` (equal-length integer arrays): (each row's group, how many
    groups, the first row of each group in row order). Group numbers are NumPy's index type (`np.bincount`
    refuses int64 where that is 32 bits: Pyodide's wasm32)."""
    if not len(columns[0]):
        return np.zeros(0, dtype=np.intp), 0, np.zeros(0, dtype=np.intp)
    order, change = _sorted(columns)
    number = np.cumsum(change) - 1
    ids = np.empty(len(order), dtype=np.intp)
    ids[order] = number
    return ids, int(number[-1]) + 1, order[change]


def firsts(*columns: np.ndarray) -> np.ndarray:
    """The first row of each distinct tuple of `columns`, in the tuples' sorted order (what `groups` finds,
    without numbering every row)."""
    if not len(columns[0]):
        return np.zeros(0, dtype=np.intp)
    order, change = _sorted(columns)
    return order[change]


def _sorted(columns: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The rows in the order of their tuples (a stable sort), and where each distinct tuple starts in it. One
    sort: of one combined key where the columns' ranges allow it (`_combined`: in Pyodide, a lexsort of a warp
    instruction's four columns took nine times as long as sorting their combined key), else a lexsort."""
    change = np.zeros(len(columns[0]), dtype=bool)
    change[0] = True
    key = _combined(columns)
    if key is None:
        order = np.lexsort(columns[::-1])
        for column in columns:
            ordered = column[order]
            change[1:] |= ordered[1:] != ordered[:-1]
    else:
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        change[1:] = ordered[1:] != ordered[:-1]
    return order, change


def _combined(columns: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """One int64 key that orders the rows as the columns do, first column most significant (each column less
    its least value, times the ranges of the columns after it), or None when the product of the columns'
    ranges passes KEY_LIMIT (an out-of-bounds load's word can be near 2**63)."""
    key: np.ndarray | None = None
    span = 1
    for column in columns:
        low = int(column.min())
        extent = int(column.max()) - low + 1
        span *= extent
        if span > KEY_LIMIT:
            return None
        shifted = column.astype(np.int64) - low
        key = shifted if key is None else key * extent + shifted
    return key


def _distinct_keys(group: np.ndarray, count: int, values: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """Each distinct (group, value) once as one sorted key, group · span + value - low, with span and low;
    None where the values' range makes the key pass KEY_LIMIT (an out-of-bounds load's word can be near
    2**63). One sort of the keys, without np.unique's per-call checks (they cost more than the sort for the
    few dozen keys of one warp instruction); a stable one, since a table's rows come nearly in key order
    (instruction by instruction, lane by lane), which its runs-aware merge sort takes in about half the time
    of a quicksort."""
    low = int(values.min())
    span = int(values.max()) - low + 1
    if count * span > KEY_LIMIT:
        return None
    ordered = np.sort(group.astype(np.int64, copy=False) * span + (values - low), kind="stable")
    return ordered[_changes(ordered)], span, low


def _changes(ordered: np.ndarray) -> np.ndarray:
    """Where a sorted array's runs of equal values start (a mask; the first item always does)."""
    change = np.empty(len(ordered), dtype=bool)
    change[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    return change


def distinct_per_group(group: np.ndarray, count: int, values: np.ndarray) -> np.ndarray:
    """How many distinct `values` each of `count` groups holds (`group` < `count`)."""
    if not len(group):
        return np.zeros(count, dtype=np.intp)
    found = _distinct_keys(group, count, values)
    if found is None:
        return np.bincount(group[firsts(group, values)], minlength=count)
    keys, span, _ = found
    return np.bincount((keys // span).astype(np.intp, copy=False), minlength=count)


def sectors_per_group(group: np.ndarray, count: int, words: np.ndarray) -> np.ndarray:
    """The distinct 32-byte sectors each of `count` groups touches (`words`: each row's word, none idle)."""
    return distinct_per_group(group, count, words // WORDS_PER_SECTOR)


def bank_degrees(group: np.ndarray, count: int, words: np.ndarray) -> np.ndarray:
    """Largest number of distinct words one bank is asked for, per each of `count` groups (`words`: each
    row's word, none idle); 0 for a group with no row."""
    degree = np.zeros(count, dtype=np.int64)
    if not len(group):
        return degree
    found = _distinct_keys(group, count, words)
    if found is None:
        first = firsts(group, words)
        of_word, word = group[first].astype(np.int64), words[first]
    else:
        keys, span, low = found
        of_word, word = keys // span, keys % span + low
    # The distinct words of each (group, bank): the lengths of the runs of equal sorted keys.
    per_bank = np.sort(of_word * NUM_BANKS + word % NUM_BANKS, kind="stable")
    starts = np.flatnonzero(_changes(per_bank))
    sizes = np.empty_like(starts)
    sizes[:-1] = starts[1:] - starts[:-1]
    sizes[-1] = len(per_bank) - starts[-1]
    np.maximum.at(degree, (per_bank[starts] // NUM_BANKS).astype(np.intp), sizes)
    return degree


def row_groups(rows: np.ndarray, idle: int) -> tuple[np.ndarray, int, np.ndarray]:
    """The entries of a 2-D array that are not `idle` as rows of `groups`' kind: (each entry's group, the
    number of groups, the entries), one group per row of `rows`."""
    count, width = rows.shape
    busy = rows != idle
    group = np.arange(rows.size, dtype=np.intp) // width
    return group[busy.ravel()], count, rows[busy]
