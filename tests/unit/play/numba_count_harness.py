"""numba_harness.py's runs, with the global loads and stores each kernel made counted under Numba's simulator.

The simulator hands a kernel its arrays as FakeWithinKernelCUDAArray; counting every element read and written
through that class (shared and local arrays are plain NumPy arrays there, so they are not counted) gives SPEC
§2's global_loads and global_stores from an executor pysim shares nothing with. Prints a JSON list of
{"C", "loads", "stores"}. Run under NUMBA_ENABLE_CUDASIM=1 (tests/unit/test_play_blocks_3d.py).
"""

import json
import sys
import threading

from numba.cuda.simulator.cudadrv.devicearray import FakeWithinKernelCUDAArray
from numba_harness import run_case

counts = {"loads": 0, "stores": 0}
lock = threading.Lock()  # the simulator runs each GPU thread as an OS thread
read, write = FakeWithinKernelCUDAArray.__getitem__, FakeWithinKernelCUDAArray.__setitem__


def counted_read(self, index):
    with lock:
        counts["loads"] += 1
    return read(self, index)


def counted_write(self, index, value):
    with lock:
        counts["stores"] += 1
    write(self, index, value)


def main():
    FakeWithinKernelCUDAArray.__getitem__ = counted_read
    FakeWithinKernelCUDAArray.__setitem__ = counted_write
    results = []
    for index, case in enumerate(json.load(sys.stdin)):
        counts.update(loads=0, stores=0)
        results.append({"C": run_case(case, index), **counts})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
