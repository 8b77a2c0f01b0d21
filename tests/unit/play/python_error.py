"""A Python error inside the kernel: division by zero in the thread of column 1."""

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
    scale = 1.0 / (col - 1)  # ZeroDivisionError for column 1
    for k in range(K):
        total += A[row, k] * B[k, col]
    C[row, col] = total * scale


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
