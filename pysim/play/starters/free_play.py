"""Free play: a complete SGEMM to change and run. Pick a puzzle above for a goal and a checker.

One thread per element of C; threadIdx.x walks the columns, so a warp reads 32
neighbours of B (coalesced) and one element of A (a broadcast).
"""

from numba import cuda, float32

BX = 32  # threads along x: one warp
BY = 4


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    M, K = A.shape
    N = B.shape[1]
    if row < M and col < N:
        total = float32(0.0)
        for k in range(K):
            total += A[row, k] * B[k, col]
        C[row, col] = total


def launch(M, N, K):
    return ((N + BX - 1) // BX, (M + BY - 1) // BY), (BX, BY)
