"""Naive SGEMM (kernel 1, `k01_naive`), as a playground file: one thread per element of C.

Each thread walks a row of A and a column of B straight from global memory:
2·K loads for K multiply-adds. threadIdx.x walks the columns of C, so the 32
threads of a warp read neighbouring elements of B (coalesced) and one element
of A (a broadcast).
"""

from numba import cuda, float32

T = 4  # block = T × T threads


@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.y * T + cuda.threadIdx.y
    col = cuda.blockIdx.x * T + cuda.threadIdx.x
    M, K = A.shape
    N = B.shape[1]
    if row >= M or col >= N:
        return  # threads outside C leave at once
    total = float32(0.0)
    for k in range(K):
        total += A[row, k] * B[k, col]
    C[row, col] = total


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
