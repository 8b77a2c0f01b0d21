"""Naive SGEMM: one thread computes one element of C = A @ B."""

from numba import cuda, float32

T = 8


@cuda.jit
def kernel(A, B, C):
    row = cuda.blockIdx.y * T + cuda.threadIdx.y
    col = cuda.blockIdx.x * T + cuda.threadIdx.x
    M, K = A.shape
    N = B.shape[1]
    # TODO: threads outside C do nothing; the others sum A[row, k] * B[k, col] over k and store it


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
