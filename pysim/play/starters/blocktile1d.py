"""1D blocktiling (siboehm's kernel 4): 512 threads compute a 64×64 tile of C.

Each thread computes TM results of one column (threadCol = threadIdx.x % BN, threadRow =
threadIdx.x // BN). BM·BK = BN·BK = 512, so per bkIdx each thread copies one element of
As (innerRowA = threadIdx.x // BK, innerColA = threadIdx.x % BK) and one of Bs
(innerRowB = threadIdx.x // BN, innerColB = threadIdx.x % BN). Then, per dotIdx, one
read of Bs serves TM multiply-adds.
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
    # TODO


def launch(M, N, K):
    return ((N + BN - 1) // BN, (M + BM - 1) // BM), THREADS
