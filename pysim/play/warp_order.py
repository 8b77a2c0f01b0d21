"""Warp-level ordering: which accesses of one barrier interval a `cuda.syncwarp()` orders (`pysim.play.races`).

The CUDA C++ Programming Guide, "Synchronization Functions", `__syncwarp()`: "will cause the executing thread
to wait until all warp lanes named in mask have executed a __syncwarp() (with the same mask) before resuming
execution ... Executing __syncwarp() guarantees memory ordering among threads participating in the barrier.
Thus, threads within a warp that wish to communicate via memory can store to memory, execute __syncwarp(),
and then safely read values stored by other threads in the warp."

So an access of lane a comes before an access of lane b of the same warp when a reached one syncwarp instance
after its access and b reached the same instance before its access, each lane naming the other in its mask
(`pysim.play.warps` records whom each lane is ordered with). Lanes of two warps are ordered only by
`cuda.syncthreads()`, which ends the interval. A chain through a third lane (a syncs with c, then c with b) is
not followed: such a kernel is reported as racing, where a GPU's memory model would order it.

An access's ordinal counts the statements its thread executed in the interval up to its own; a syncwarp's is
its own statement's, so an access at ordinal o is before the sync at k when o <= k (the mask's loads included).
"""

from __future__ import annotations

import numpy as np

from .columns import Row
from .intrinsics import WARP_SIZE

Syncs = dict[int, list[tuple[int, int, int]]]  # thread -> (ordinal, round, lanes it is ordered with) per syncwarp


def before(syncs: Syncs, first: int, first_ordinal: int, second: int, second_ordinal: int) -> bool:
    """Whether thread `first`'s access at `first_ordinal` is ordered before `second`'s at `second_ordinal`."""
    if first == second or first // WARP_SIZE != second // WARP_SIZE:
        return False
    later = {
        round_
        for ordinal, round_, lanes in syncs.get(first, ())
        if ordinal >= first_ordinal and lanes >> second % WARP_SIZE & 1
    }
    return any(ordinal < second_ordinal and round_ in later for ordinal, round_, _ in syncs.get(second, ()))


def unordered_pair(rows: np.ndarray, store: np.ndarray, syncs: Syncs) -> tuple[int, int] | None:
    """The first two accesses of one word (`rows`, in the order they ran; `store`: which are stores) by two
    threads, one at least a store, that no syncwarp orders; None when every such pair is ordered."""
    thread = rows[:, Row.THREAD].astype(np.int64).tolist()
    ordinal = rows[:, Row.ORDINAL].astype(np.int64).tolist()
    for i in np.flatnonzero(store).tolist():
        for j in range(len(thread)):
            if thread[i] == thread[j]:
                continue
            if not (
                before(syncs, thread[i], ordinal[i], thread[j], ordinal[j])
                or before(syncs, thread[j], ordinal[j], thread[i], ordinal[i])
            ):
                return (i, j)
    return None


def racing_rows(rows: np.ndarray, store: np.ndarray, pair: tuple[int, int]) -> np.ndarray:
    """Which of one word's accesses to describe for its unordered `pair`: every access of the two threads when
    each both reads and writes the word (a lost update), else the pair alone."""
    thread = rows[:, Row.THREAD].astype(np.int64)
    two = np.isin(thread, thread[list(pair)])
    both = [t for t in {int(thread[k]) for k in pair} if store[thread == t].any() and (~store[thread == t]).any()]
    if len(both) == 2:
        return np.flatnonzero(two)
    return np.array(sorted(pair))
