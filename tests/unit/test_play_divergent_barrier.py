"""`if tid < 16: cuda.syncthreads()` with no return (issue 42 item 8): the divergent-barrier message, not the
early-return one; a kernel that returns early keeps the early-return text."""

from pysim.play import run

CONDITIONAL = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    tid = cuda.threadIdx.x
    if tid < 16:
        cuda.syncthreads()
    C[0, tid] = A[0, 0]


def launch(M, N, K):
    return 1, (32, 1)
"""

RETURNS = """from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    tid = cuda.threadIdx.x
    if tid >= 16:
        return
    cuda.syncthreads()
    C[0, tid] = A[0, 0]


def launch(M, N, K):
    return 1, (32, 1)
"""


def test_a_barrier_under_a_divergent_condition_gets_the_divergent_barrier_message():
    (found,) = run(CONDITIONAL, 1, 32, 1).diagnostics_of("barrier_divergence")
    assert found.line == 8  # the cuda.syncthreads() under the if
    assert "under a condition that is not the same for the whole block" in found.message
    assert "reached by 16 thread(s) of the block and skipped by 16" in found.message
    assert "return" not in found.message and "tile elements" not in found.message


def test_an_early_return_keeps_the_exited_threads_message():
    (found,) = run(RETURNS, 1, 32, 1).diagnostics_of("barrier_divergence")
    assert "finished early" in found.message and "instead of returning" in found.message
