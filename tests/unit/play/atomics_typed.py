"""Atomics on int32 shared arrays (a histogram of A's digits), cuda.atomic.exch and cuda.atomic.cas, under
real Numba and pysim alike. The counts do not depend on the order the threads run in; exch and cas are
run by one thread, so neither does what they leave."""

from numba import cuda, float32, int32

BINS = 10


@cuda.jit
def kernel(A, B, C):
    counts = cuda.shared.array(BINS, int32)
    flag = cuda.shared.array(2, int32)
    tid = cuda.threadIdx.x
    if tid < BINS:
        counts[tid] = 0
    if tid < 2:
        flag[tid] = 7
    cuda.syncthreads()
    for i in range(tid, A.shape[0] * A.shape[1], cuda.blockDim.x):
        cuda.atomic.add(counts, int32(A[i // A.shape[1], i % A.shape[1]]), 1)
    if tid == 0:
        old = cuda.atomic.exch(flag, 0, 3)
        seen = cuda.atomic.cas(flag, 1, 7, old + 5)
        missed = cuda.atomic.cas(flag, 1, 7, 100)
        C[0, BINS] = float32(flag[0] * 1000 + flag[1] * 10 + seen - missed)
    cuda.syncthreads()
    if tid < BINS:
        C[0, tid] = float32(counts[tid])


def launch(M, N, K):
    return 1, 64
