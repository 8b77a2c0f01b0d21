"""numba_harness.py with warp shuffles added to Numba's CUDA simulator, which has none.

Each shuffle is a block-wide exchange: every thread writes its value, all wait at the simulator's
barrier, each reads its source lane's value (its own when the source is outside the warp), all wait again.
That is a warp shuffle only when every thread of the block runs the same shuffle together, as the files
this harness runs do (every warp of every block has a row, all lanes shuffle). Used by
tests/unit/test_play_subset3.py.
"""

import threading

from numba.cuda.simulator.kernelapi import FakeCUDAModule
from numba_harness import main

EXCHANGE = {}


def _shuffle(source_of):
    def shuffle(self, mask, value, argument):
        thread = threading.current_thread()
        block = (thread.blockIdx.x, thread.blockIdx.y, thread.blockIdx.z)
        EXCHANGE[(block, thread.thread_id)] = value
        thread.syncthreads()
        lane = thread.thread_id % 32
        source = source_of(lane, argument)
        key = (block, thread.thread_id - lane + source)
        found = EXCHANGE[key] if 0 <= source < 32 and key in EXCHANGE else value
        thread.syncthreads()
        return found

    return shuffle


FakeCUDAModule.shfl_sync = _shuffle(lambda lane, src: src % 32)
FakeCUDAModule.shfl_down_sync = _shuffle(lambda lane, delta: lane + delta)
FakeCUDAModule.shfl_up_sync = _shuffle(lambda lane, delta: lane - delta)
FakeCUDAModule.shfl_xor_sync = _shuffle(lambda lane, mask: lane ^ mask)

if __name__ == "__main__":
    main()
