"""Transpose through a padded shared tile: coalesced, and free of bank conflicts.

As `transpose.py`, but each row of the tile is one word longer, so the words of
a column fall in 32 different banks and a warp reads the column in one pass.
"""

from numba import cuda, float32

TILE = 32
PAD = 1  # one extra word per row moves each row to the next bank


@cuda.jit
def kernel(A, B, C):
    tile = cuda.shared.array((TILE, TILE + PAD), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = A.shape[0]
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    tile[ty, tx] = A[y, x] if x < n and y < n else float32(0.0)  # a warp reads a row
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if x < n and y < n:
        C[y, x] = tile[tx, ty]  # a warp reads a column of the tile


def launch(M, N, K):
    return ((M + TILE - 1) // TILE, (M + TILE - 1) // TILE), (TILE, TILE)
