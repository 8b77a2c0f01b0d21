"""Round-three forms under real Numba and pysim alike: cuda.grid(2) and cuda.gridsize(2) as tuples,
cuda.gridsize(1), cuda.laneid, cuda.warpsize, math.* on float32 and cuda.fma. Each element of C is one
math function of float32 operands stored at once, so the simulator (which computes math.* in float64, as
pysim does before rounding) and pysim round the same value once."""

import math

from numba import cuda, float32

BX = 16
BY = 4


@cuda.jit
def kernel(A, B, C):
    pos = cuda.grid(2)
    width, height = cuda.gridsize(2)
    row = pos[1]
    col = pos[0]
    if row < C.shape[0] and col < C.shape[1]:
        a = A[row, col % A.shape[1]]
        b = B[col % B.shape[0], col]
        which = col % 10
        if which == 0:
            C[row, col] = math.sqrt(a * b)
        elif which == 1:
            C[row, col] = math.exp(a / b)
        elif which == 2:
            C[row, col] = math.log(a * b)
        elif which == 3:
            C[row, col] = math.sin(a / b)
        elif which == 4:
            C[row, col] = math.pow(a, b / a)
        elif which == 5:
            C[row, col] = math.floor(a / b) + math.fabs(a - b)
        elif which == 6:
            C[row, col] = math.hypot(a, b)
        elif which == 7:
            C[row, col] = cuda.fma(a, b, a)
        elif which == 8:
            C[row, col] = math.tanh(b / a - a / b)
        else:
            C[row, col] = float32(cuda.laneid + cuda.warpsize + width + height + cuda.gridsize(1))


def launch(M, N, K):
    return ((N + BX - 1) // BX, (M + BY - 1) // BY), (BX, BY)
