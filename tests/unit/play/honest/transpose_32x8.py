"""Honest but unusual (issue 43): NVIDIA's transpose with 32×8 threads per 32×32 tile, each thread moving 4
elements (TILE_DIM 32, BLOCK_ROWS 8 in "An Efficient Matrix Transpose in CUDA C/C++"), the tile padded by a
word. Must pass transpose and transpose_padded."""

from numba import cuda, float32

TILE = 32
ROWS = 8  # threadIdx.y; each thread handles rows ty, ty + 8, ty + 16, ty + 24 of the tile


@cuda.jit
def kernel(A, B, C):
    tile = cuda.shared.array((TILE, TILE + 1), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = A.shape[0]
    x = cuda.blockIdx.x * TILE + tx
    for j in range(0, TILE, ROWS):
        y = cuda.blockIdx.y * TILE + ty + j
        tile[ty + j, tx] = A[y, x] if x < n and y < n else float32(0.0)
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    for j in range(0, TILE, ROWS):
        y = cuda.blockIdx.x * TILE + ty + j
        if x < n and y < n:
            C[y, x] = tile[tx, ty + j]


def launch(M, N, K):
    return ((M + TILE - 1) // TILE, (M + TILE - 1) // TILE), (TILE, ROWS)
