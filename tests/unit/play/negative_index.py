"""C = (A with its rows reversed) x (B with its columns reversed), indexed with negative indices: Numba
(and NumPy) wrap A[-1 - row, k] to the last rows, so the playground must too."""

from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    M, K = A.shape
    N = B.shape[1]
    if row < M and col < N:
        acc = float32(0.0)
        for k in range(K):
            acc += A[-1 - row, k] * B[k, -1 - col]
        C[row, col] = acc


def launch(M, N, K):
    return ((N + 3) // 4, (M + 3) // 4), (4, 4)
