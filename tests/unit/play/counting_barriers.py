"""cuda.syncthreads_count, _and and _or under real Numba and pysim alike: how many of the block's threads
see a digit above 4 in their element of A, whether all are positive, whether any is 9; threads past A's
last element vote too (with a false predicate), as every thread of the block must reach the barrier."""

from numba import cuda, float32


@cuda.jit
def kernel(A, B, C):
    tid = cuda.threadIdx.x
    inside = tid < A.shape[0] * A.shape[1]
    value = A[tid // A.shape[1], tid % A.shape[1]] if inside else float32(0.0)
    above = cuda.syncthreads_count(value > 4.0)
    positive = cuda.syncthreads_and(value > 0.0)
    nine = cuda.syncthreads_or(value == 9.0)
    if tid == 0:
        C[0, 0] = float32(above)
        C[0, 1] = float32(positive)
        C[0, 2] = float32(nine)


def launch(M, N, K):
    return 1, 48
