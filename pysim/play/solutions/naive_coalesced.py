"""Naive SGEMM with coalesced loads: threadIdx.x walks the columns of C.

The 32 threads of a warp share a row: they all read the same A[row, k] (one
sector, a broadcast) and 32 neighbouring B[k, col] (128 bytes, 4 sectors).
With the roles swapped (row from threadIdx.x) each warp load of A touches 32
sectors.
"""

from numba import cuda, float32

BX = 32
BY = 8


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        total = float32(0.0)
        for k in range(A.shape[1]):
            total += A[row, k] * B[k, col]
        C[row, col] = total


def launch(M, N, K):
    return ((N + BX - 1) // BX, (M + BY - 1) // BY), (BX, BY)
