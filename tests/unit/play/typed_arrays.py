"""Shared and local arrays of int32, int64 and float64 under real Numba and pysim alike: an int32 store wraps,
float64 arithmetic stays float64 until C rounds it, int64 holds what float32 cannot."""

from numba import cuda, float32, float64, int32, int64


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    counts = cuda.shared.array(32, int32)
    wide = cuda.local.array(2, float64)
    big = cuda.local.array(1, int64)
    if cuda.threadIdx.y == 0:
        counts[cuda.threadIdx.x] = int32(A[0, 0] * 1000000.0) * 4000
    cuda.syncthreads()
    wide[0] = float64(A[row % A.shape[0], 0]) / 3.0
    wide[1] = wide[0] * 3.0
    big[0] = int64(2**62) + int64(2**62) - 1
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = float32(wide[0] * 1e8) - float32(counts[0] % 1000) + float32(big[0] % 7)


def launch(M, N, K):
    return ((N + 7) // 8, (M + 3) // 4), (8, 4)
