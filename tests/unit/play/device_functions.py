"""Device functions under real Numba and pysim alike: one returning an expression, one with a loop over an
array passed as itself, one calling another, and one called on a line of its own."""

from numba import cuda, float32


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit(device=True)
def dot(A, B, row, col):
    acc = float32(0.0)
    for k in range(A.shape[1]):
        acc += clamp(A[row, k], float32(2.0), float32(7.0)) * B[k, col]
    return acc


@cuda.jit(device=True)
def store(C, row, col, value):
    C[row, col] = value


@cuda.jit
def kernel(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        store(C, row, col, dot(A, B, row, col) - clamp(float32(col), float32(1.0), float32(3.0)))


def launch(M, N, K):
    return ((N + 7) // 8, (M + 3) // 4), (8, 4)
