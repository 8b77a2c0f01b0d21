"""Transpose through shared memory: C = Aᵀ with coalesced loads and stores.

A warp reads a row of a TILE×TILE tile of A (coalesced) into shared memory;
after the barrier it writes a row of C from a *column* of the tile, so the
global store is coalesced too. Reading the column costs bank conflicts:
every word of a column sits in the same bank when the row length is 32.
"""

from numba import cuda, float32

TILE = 32


@cuda.jit
def kernel(A, B, C):
    tile = cuda.shared.array((TILE, TILE), float32)
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
