"""1D register tiling: each thread computes TM elements of one column of C.

For every dotIdx a thread reads one value of Bs into a register and reuses it
for TM multiply-adds with TM values of As: TM + 1 shared reads for TM FMAs,
instead of 2 per FMA in the shared-memory tiled kernel.
"""

from numba import cuda, float32

BM = 32
BN = 32
BK = 8
TM = 8
THREADS = (BM // TM) * BN  # 128


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    threadResults = cuda.local.array(TM, float32)
    M, K = A.shape
    N = B.shape[1]
    tid = cuda.threadIdx.x
    tx = tid % BN  # the column of the block tile this thread computes
    ty = tid // BN  # which TM rows of it
    for i in range(TM):
        threadResults[i] = float32(0.0)
    for bkIdx in range(0, K, BK):
        for i in range(tid, BM * BK, THREADS):
            r = cuda.blockIdx.y * BM + i // BK
            c = bkIdx + i % BK
            As[i // BK, i % BK] = A[r, c] if r < M and c < K else float32(0.0)
        for i in range(tid, BK * BN, THREADS):
            r = bkIdx + i // BN
            c = cuda.blockIdx.x * BN + i % BN
            Bs[i // BN, i % BN] = B[r, c] if r < K and c < N else float32(0.0)
        cuda.syncthreads()
        for dotIdx in range(BK):
            b = Bs[dotIdx, tx]  # one shared read, reused TM times
            for i in range(TM):
                threadResults[i] += As[ty * TM + i, dotIdx] * b
        cuda.syncthreads()
    for i in range(TM):
        r = cuda.blockIdx.y * BM + ty * TM + i
        c = cuda.blockIdx.x * BN + tx
        if r < M and c < N:
            C[r, c] = threadResults[i]


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
