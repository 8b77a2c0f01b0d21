"""Running a kernel outside a Trace, for the tensor-core kernels' tests: C from every block's stores (on any
operands, not only the page's digits), and the CLI as a subprocess."""

import subprocess
import sys

import numpy as np


def stored_c(kernel, p, A, B):
    """C as the simulated threads store it from A and B, block after block (NaN where nobody stored)."""
    c = np.full((p.M, p.N), np.nan, dtype=np.float32)
    gx, gy = kernel.grid(p)
    for by in range(gy):
        for bx in range(gx):
            for step in kernel.block_steps(p, A, B, bx, by):
                for access in step.global_stores():
                    access.write_into(c)
    return c


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "pysim", *args], capture_output=True, text=True, timeout=120)
