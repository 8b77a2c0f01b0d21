"""Tiled SGEMM with the first barrier inside a thread-dependent `if`: barrier divergence."""

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
        if tx < T // 2:
            cuda.syncthreads()  # only half the threads reach this barrier
        for k in range(T):
            partialSum += tileA[ty, k] * tileB[k, tx]
        cuda.syncthreads()  # stops fast threads overwriting a tile slow threads still read
    if globalRow < M and globalCol < N:
        C[globalRow, globalCol] = partialSum


def launch(M, N, K):
    return ((N + T - 1) // T, (M + T - 1) // T), (T, T)
