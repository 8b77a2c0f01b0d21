"""1D blocktiling (siboehm's kernel 4, `k05_blocktile1d`), as a playground file.

A block of BM·BN/TM = 512 threads computes a 64×64 tile of C; each thread computes TM
results of one column. The sizes make BM·BK = BN·BK = 512, so every thread copies exactly
one element of As and one of Bs per bkIdx, with no copy loop. Per dotIdx a thread reads
one value of Bs into tmpB and reuses it for TM multiply-adds: TM + 1 shared reads for TM
FMAs. Unlike siboehm's kernel it runs at any M, N, K: a load outside A or B writes 0, a
store outside C is skipped.
"""

from numba import cuda, float32

BM = 64
BN = 64
BK = 8
TM = 8
THREADS = BM * BN // TM  # 512 = BM·BK = BN·BK


@cuda.jit
def kernel(A, B, C):
    As = cuda.shared.array((BM, BK), float32)
    Bs = cuda.shared.array((BK, BN), float32)
    threadResults = cuda.local.array(TM, float32)
    M, K = A.shape
    N = B.shape[1]
    threadCol = cuda.threadIdx.x % BN  # the column of the tile this thread computes
    threadRow = cuda.threadIdx.x // BN  # which TM rows of it
    innerColA = cuda.threadIdx.x % BK  # its element of As
    innerRowA = cuda.threadIdx.x // BK
    innerColB = cuda.threadIdx.x % BN  # its element of Bs
    innerRowB = cuda.threadIdx.x // BN
    for resIdx in range(TM):
        threadResults[resIdx] = float32(0.0)
    for bkIdx in range(0, K, BK):
        rA = cuda.blockIdx.y * BM + innerRowA
        cA = bkIdx + innerColA
        As[innerRowA, innerColA] = A[rA, cA] if rA < M and cA < K else float32(0.0)
        rB = bkIdx + innerRowB
        cB = cuda.blockIdx.x * BN + innerColB
        Bs[innerRowB, innerColB] = B[rB, cB] if rB < K and cB < N else float32(0.0)
        cuda.syncthreads()
        for dotIdx in range(BK):
            tmpB = Bs[dotIdx, threadCol]  # one shared read, reused TM times
            for resIdx in range(TM):
                threadResults[resIdx] += As[threadRow * TM + resIdx, dotIdx] * tmpB
        cuda.syncthreads()  # stops fast threads overwriting As/Bs that slow threads still read
    for resIdx in range(TM):
        r = cuda.blockIdx.y * BM + threadRow * TM + resIdx
        c = cuda.blockIdx.x * BN + threadCol
        if r < M and c < N:
            C[r, c] = threadResults[resIdx]


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
