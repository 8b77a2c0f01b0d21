"""Dynamic shared memory under real Numba and pysim alike: launch() returns (grid, block, 0, bytes), and two
arrays of shape 0 are the same memory (Numba's dynamic shared arrays alias): each block reverses a row of A
through it."""

from numba import cuda, float32

WIDTH = 32


@cuda.jit
def kernel(A, B, C):
    tile = cuda.shared.array(0, float32)
    alias = cuda.shared.array(0, float32)
    row = cuda.blockIdx.x
    col = cuda.threadIdx.x
    if col < A.shape[1]:
        tile[col] = A[row, col]
    cuda.syncthreads()
    if col < A.shape[1]:
        C[row, col] = alias[A.shape[1] - 1 - col] + float32(tile.shape[0])


def launch(M, N, K):
    return M, WIDTH, 0, 4 * WIDTH
