"""Transpose: C = A transposed (square matrices). This version is correct but its stores are strided."""

from numba import cuda, float32

TILE = 32


@cuda.jit
def kernel(A, B, C):
    n = A.shape[0]
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if x < n and y < n:
        C[x, y] = A[y, x]  # a warp reads a row of A but writes a column of C


def launch(M, N, K):
    return ((M + TILE - 1) // TILE, (M + TILE - 1) // TILE), (TILE, TILE)
