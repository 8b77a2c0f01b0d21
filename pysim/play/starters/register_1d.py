"""1D register tiling: each thread computes TM elements of one column of C.

Start from your tiled kernel. Stage BM×BK of A and BK×BN of B per step; then for
each dotIdx read Bs[dotIdx, tx] once into a variable and use it for TM products.
"""

from numba import cuda, float32

BM = 32
BN = 32
BK = 8
TM = 8
THREADS = (BM // TM) * BN


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    threadResults = cuda.local.array(TM, float32)
    # TODO


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
