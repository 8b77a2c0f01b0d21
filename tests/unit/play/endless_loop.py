"""Naive SGEMM whose while loop forgets k += 1: the step budget stops it."""

from numba import cuda

T = 4  # block = T × T threads


@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.y * T + cuda.threadIdx.y
    col = cuda.blockIdx.x * T + cuda.threadIdx.x
    M, K = A.shape
    N = B.shape[1]
    if row >= M or col >= N:
        return  # threads outside C leave at once
    total = 0.0
    k = 0
    while k < K:
        total += A[row, k] * B[k, col]  # k never grows
    C[row, col] = total


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
