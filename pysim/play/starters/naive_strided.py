"""Naive SGEMM, correct but slow: threadIdx.x walks the rows of C.

Run it and look at the sectors per load of A. Then make the warp's 32 threads
share a row instead.
"""

from numba import cuda, float32

BX = 32
BY = 8


@cuda.jit
def kernel(A, B, C):
    row, col = cuda.grid(2)  # row from x: neighbouring threads take neighbouring rows
    if row < C.shape[0] and col < C.shape[1]:
        total = float32(0.0)
        for k in range(A.shape[1]):
            total += A[row, k] * B[k, col]
        C[row, col] = total


def launch(M, N, K):
    return ((M + BX - 1) // BX, (N + BY - 1) // BY), (BX, BY)
