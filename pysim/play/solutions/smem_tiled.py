"""Shared-memory tiled SGEMM (kernel 2, `k02_smem_tiled`), as a playground file.

The T×T threads of a block copy a T×T tile of A and one of B into shared memory,
wait at a barrier, and read their operands from the tiles: each element fetched
from global memory is reused by T threads.
"""

from numba import cuda, float32

T = 8  # TILE_SIZE


@cuda.jit
def kernel(A, B, C):
    tileA = cuda.shared.array((T, T), float32)
    tileB = cuda.shared.array((T, T), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    globalRow = cuda.blockIdx.y * T + ty
    globalCol = cuda.blockIdx.x * T + tx
    M, K = A.shape
    N = B.shape[1]
    partialSum = float32(0.0)
    for tileIdx in range((K + T - 1) // T):
        tileColA = tileIdx * T + tx
        tileRowB = tileIdx * T + ty
        tileA[ty, tx] = A[globalRow, tileColA] if globalRow < M and tileColA < K else float32(0.0)
        tileB[ty, tx] = B[tileRowB, globalCol] if tileRowB < K and globalCol < N else float32(0.0)
        cuda.syncthreads()  # the whole tile must be loaded before anyone reads it
        for k in range(T):
            partialSum += tileA[ty, k] * tileB[k, tx]
        cuda.syncthreads()  # stops fast threads overwriting a tile slow threads still read
    if globalRow < M and globalCol < N:
        C[globalRow, globalCol] = partialSum


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
