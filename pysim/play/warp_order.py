"""Warp-level ordering: which accesses of one barrier interval a `cuda.syncwarp()` orders (`pysim.play.races`).

The CUDA C++ Programming Guide, "Synchronization Functions", `__syncwarp()`: "will cause the executing thread
to wait until all warp lanes named in mask have executed a __syncwarp() (with the same mask) before resuming
execution ... Executing __syncwarp() guarantees memory ordering among threads participating in the barrier.
Thus, threads within a warp that wish to communicate via memory can store to memory, execute __syncwarp(),
and then safely read values stored by other threads in the warp."

So an access of lane a comes before an access of lane b of the same warp when a reached one syncwarp instance
after its access and b reached the same instance before its access, each lane naming the other in its mask
(`pysim.play.warps` records whom each lane is ordered with). The order is transitive, so a chain through
other lanes orders too: a writes, syncs with c; c, later, syncs with b; b reads. The PTX ISA's "Memory
Consistency Model" defines base causality order ("a transitive order") as program order and synchronizes-with
composed ("X precedes Z in base causality order and Z precedes Y in base causality order"), and
`bar.warp.sync` is what `__syncwarp()` compiles to. A chain whose middle lane syncs with b before it syncs with
a orders nothing. Lanes of two warps are ordered only by `cuda.syncthreads()`, which ends the interval.

An access's ordinal counts the statements its thread executed in the interval up to its own; a syncwarp's is
its own statement's, so an access at ordinal o is before the sync at k when o <= k (the mask's loads included).
"""

from __future__ import annotations

import numpy as np

from .columns import Row
from .intrinsics import WARP_SIZE

INFINITE = 1 << 62  # past every ordinal
Syncs = dict[int, list[tuple[int, int, int]]]  # thread -> (ordinal, round, lanes it is ordered with) per syncwarp


Members = dict[tuple[int, int], dict[int, int]]  # (round, warp) -> {thread: its ordinal at that syncwarp}


def instances(syncs: Syncs) -> Members:
    """Each syncwarp instance's threads, with the ordinal each reached it at: a round resolves one instance
    per warp (`pysim.play.scheduler`)."""
    members: Members = {}
    for thread, reached in syncs.items():
        for ordinal, round_, _ in reached:
            members.setdefault((round_, thread // WARP_SIZE), {})[thread] = ordinal
    return members


def before(syncs: Syncs, members: Members, first: int, first_ordinal: int, second: int, second_ordinal: int) -> bool:
    """Whether thread `first`'s access at `first_ordinal` is ordered before `second`'s at `second_ordinal`:
    a chain of syncwarp instances, each joining two lanes that name each other, leads from `first` after its
    access to `second` before its access, each lane of the chain leaving by a syncwarp no earlier than the one
    it came in by (the module docstring)."""
    if first == second or first // WARP_SIZE != second // WARP_SIZE:
        return False
    reached = {first: first_ordinal}  # thread -> the earliest ordinal from which its syncwarps carry the order
    waiting = [first]
    while waiting:
        thread = waiting.pop()
        for ordinal, round_, lanes in syncs.get(thread, ()):
            if ordinal < reached[thread]:
                continue
            for other, at in members[round_, thread // WARP_SIZE].items():
                if lanes >> other % WARP_SIZE & 1 and at < reached.get(other, INFINITE):
                    reached[other] = at
                    waiting.append(other)
    return reached.get(second, INFINITE) < second_ordinal


def unordered_pair(rows: np.ndarray, store: np.ndarray, syncs: Syncs) -> tuple[int, int] | None:
    """The first two accesses of one word (`rows`, in the order they ran; `store`: which are stores) by two
    threads, one at least a store, that no syncwarp orders; None when every such pair is ordered."""
    members = instances(syncs)
    thread = rows[:, Row.THREAD].astype(np.int64).tolist()
    ordinal = rows[:, Row.ORDINAL].astype(np.int64).tolist()
    for i in np.flatnonzero(store).tolist():
        for j in range(len(thread)):
            if thread[i] == thread[j]:
                continue
            if not (
                before(syncs, members, thread[i], ordinal[i], thread[j], ordinal[j])
                or before(syncs, members, thread[j], ordinal[j], thread[i], ordinal[i])
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
