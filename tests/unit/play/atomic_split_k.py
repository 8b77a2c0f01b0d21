"""Split-K SGEMM: SPLIT threads share each dot product, and each adds its partial sum into C with an atomic.

Without the atomic (`C[row, col] += partial`) two threads' read-modify-writes can interleave and lose one.
The same file runs under Numba (tests/unit/test_play_numba.py).
"""

from numba import cuda, float32

SPLIT = 4  # threads per dot product (threadIdx.y)
WIDTH = 8  # C columns per block (threadIdx.x)


@cuda.jit
def kernel(A, B, C):
    col = cuda.blockIdx.x * WIDTH + cuda.threadIdx.x
    row = cuda.blockIdx.y
    part = cuda.threadIdx.y
    M, K = A.shape
    N = B.shape[1]
    if row < M and col < N:
        partial = float32(0.0)
        for k in range(part, K, SPLIT):
            partial += A[row, k] * B[k, col]
        cuda.atomic.add(C, (row, col), partial)


def launch(M, N, K):
    return ((N + WIDTH - 1) // WIDTH, M), (WIDTH, SPLIT)
