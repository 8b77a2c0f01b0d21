"""3-D shared and local arrays under real Numba and pysim alike: each 8×8 block writes its tile of A into a
(2, 4, 8) cube, adds 1 to every element with an atomic, and reads the cube mirrored (row pairs swapped,
columns reversed); a local (2, 2, 2) array scales it, read with a negative index."""

from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 8 + ty
    cube = cuda.shared.array((2, 4, 8), float32)
    scale = cuda.local.array((2, 2, 2), float32)
    scale[1, 1, 1] = 2.0
    cube[ty % 2, ty // 2, tx] = A[row % A.shape[0], tx % A.shape[1]]
    cuda.syncthreads()
    cuda.atomic.add(cube, (ty % 2, ty // 2, tx), 1.0)
    cuda.syncthreads()
    if row < C.shape[0] and tx < C.shape[1]:
        C[row, tx] = cube[1 - ty % 2, ty // 2, 7 - tx] * scale[-1, 1, 1]


def launch(M, N, K):
    return (1, (M + 7) // 8), (8, 8)
