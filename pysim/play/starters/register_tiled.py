"""2D register tiling: each thread computes a TM×TN patch of C from registers.

For each dotIdx copy TM values of a column of As into regM and TN values of a row
of Bs into regN, then do the TM·TN multiply-adds from registers alone.
"""

from numba import cuda, float32

BM = 32
BN = 32
BK = 8
TM = 4
TN = 4
THREADS = (BM // TM) * (BN // TN)


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    threadResults = cuda.local.array(TM * TN, float32)
    regM = cuda.local.array(TM, float32)
    regN = cuda.local.array(TN, float32)
    # TODO


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
