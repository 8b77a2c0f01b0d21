"""Honest but unusual (issue 43): a copy with a fixed grid of 2×2 blocks and grid-stride loops, so each
thread copies several elements whatever the size; a warp still reads 32 neighbouring floats. Must pass copy."""

from numba import cuda


@cuda.jit
def kernel(A, B, C):
    x, y = cuda.grid(2)
    width = cuda.gridDim.x * cuda.blockDim.x
    height = cuda.gridDim.y * cuda.blockDim.y
    for row in range(y, C.shape[0], height):
        for col in range(x, C.shape[1], width):
            C[row, col] = A[row, col]


def launch(M, N, K):
    return (2, 2), (32, 4)
