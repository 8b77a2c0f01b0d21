"""8-byte shared arrays under real Numba and pysim alike: a float64 shared row holds A/3 with every digit and
sums it in float64 before C rounds it; an int64 shared array holds what float32 cannot. The float64 row is read
with stride 1 (no conflict) and with stride 16 (lanes 0 and 2 of each half-warp share a bank)."""

from numba import cuda, float32, float64, int64


@cuda.jit
def kernel(A, B, C):
    t = cuda.threadIdx.x
    row = cuda.blockIdx.x
    thirds = cuda.shared.array(32, float64)
    wide = cuda.shared.array((2, 32), int64)
    thirds[t] = float64(A[row, t % A.shape[1]]) / 3.0
    wide[t % 2, t] = int64(2**40) + t
    cuda.syncthreads()
    total = thirds[t] + thirds[(t * 16) % 32] * 1e-9
    if t < C.shape[1]:
        C[row, t] = float32(total) + float32(wide[t % 2, t] - 2**40)


def launch(M, N, K):
    return M, 32
