"""Global memory as a GPU's concurrent threads can see it, for the words a run found racy.

The scheduler runs one thread after another, so without help a racing
read-modify-write (`C[r, c] += partial` by two threads with no atomic) would
see the other thread's store and C would come out right, as if the update were
atomic. On a GPU the racing threads run at the same time: both can read the old
value, and one update is lost.

`StaleReads` is the array behind a global array when a run is repeated to show
that outcome (pysim.play.execute.run). For a racy word, a load sees

- the thread's own latest store to it, else
- the latest store by a thread of its own block in an earlier barrier interval
  (cuda.syncthreads() makes those visible), else
- the value the word held when the kernel started,

never a store of another block or of another thread in the same interval: every
racing thread reads before any of the others stores, as if they all ran at once.
Memory itself keeps the store that runs last in TileLab's order (block by block,
thread by thread within an interval), so that is the value the word is left with.
Writes by several lanes of one warp to one address leave one of them, which one
being undefined (CUDA C++ Programming Guide, "SIMT Architecture": "which thread
performs the final write is undefined",
https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture);
last in order is one allowed outcome. Words that are not racy behave as before.
"""

from __future__ import annotations

from array import array
from typing import Any


class StaleReads(array):
    """array('f') whose racy words read as described in the module docstring."""

    racy: frozenset[int]
    runtime: Any  # pysim.play.runtime.Runtime: which block, interval and thread is running
    initial: array
    stores: dict[int, list[tuple[tuple[int, ...], int, int, float]]]  # word -> (block, interval, thread, value)

    def __new__(cls, data: array, racy: frozenset[int], runtime: Any) -> StaleReads:
        view = super().__new__(cls, "f", data)
        view.racy, view.runtime, view.initial, view.stores = racy, runtime, array("f", data), {}
        return view

    def __getitem__(self, word: Any) -> Any:
        if word.__class__ is int and word in self.racy:
            rt = self.runtime
            for block, interval, thread, value in reversed(self.stores.get(word, ())):
                if block == rt.block and (thread == rt.thread or interval < rt.interval):
                    return value
            return self.initial[word]
        return array.__getitem__(self, word)

    def __setitem__(self, word: Any, value: Any) -> None:
        array.__setitem__(self, word, value)
        if word.__class__ is int and word in self.racy:
            rt = self.runtime
            stored = array.__getitem__(self, word)  # rounded to float32
            self.stores.setdefault(word, []).append((rt.block, rt.interval, rt.thread, stored))
