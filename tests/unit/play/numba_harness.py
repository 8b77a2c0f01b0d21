"""Run playground files under real Numba (with NUMBA_ENABLE_CUDASIM=1 on a machine without a GPU).

Reads a JSON list of {"file", "M", "N", "K", "A", "B"} from stdin, imports each
file as a module, launches kernel[grid, block](A, B, C) with C zero-filled, and
prints a JSON list of the C matrices. Used by tests/unit/test_play_numba.py.
"""

import importlib.util
import json
import sys

import numpy as np
from numba import cuda


def load(path, index):
    spec = importlib.util.spec_from_file_location(f"playground_{index}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(case, index):
    """Launch one case's kernel on its A and B, C zero-filled; C as nested lists."""
    module = load(case["file"], index)
    A = np.array(case["A"], dtype=np.float32)
    B = np.array(case["B"], dtype=np.float32)
    C = np.zeros((case["M"], case["N"]), dtype=np.float32)
    configuration = module.launch(case["M"], case["N"], case["K"])  # (grid, block[, stream, shared bytes])
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.to_device(C)
    module.kernel[configuration](dA, dB, dC)
    return dC.copy_to_host().tolist()


def main():
    json.dump([run_case(case, index) for index, case in enumerate(json.load(sys.stdin))], sys.stdout)


if __name__ == "__main__":
    main()
