"""Tiled SGEMM without the second barrier: fast threads overwrite a tile slow threads still read."""

from numba import cuda, float32

T = 4  # TILE_SIZE


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
    partialSum = 0.0
    for tileIdx in range((K + T - 1) // T):
        tileColA = tileIdx * T + tx
        tileRowB = tileIdx * T + ty
        tileA[ty, tx] = A[globalRow, tileColA] if globalRow < M and tileColA < K else 0.0
        tileB[ty, tx] = B[tileRowB, globalCol] if tileRowB < K and globalCol < N else 0.0
        cuda.syncthreads()  # the whole tile must be loaded before anyone reads it
        for k in range(T):
            partialSum += tileA[ty, k] * tileB[k, tx]
    if globalRow < M and globalCol < N:
        C[globalRow, globalCol] = partialSum


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
