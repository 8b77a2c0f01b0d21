"""Siboehm's kernels 4 and 10 written again in Numba-CUDA, to check pysim's k04 and k10 from outside.

Written from siboehm/SGEMM_CUDA (src/kernels/4_kernel_1D_blocktiling.cuh and
10_kernel_warptiling.cuh), not from pysim's kernel files, with the guards TileLab adds
(a load outside A or B writes 0 to shared memory, a store outside C is skipped) and
C = A·B. Each kernel counts, with atomics into `counts`, the elements it loads from A
and B (counts[0]) and stores to C (counts[1]), as SPEC §2 counts global loads.

Kernel 10 cannot be written as siboehm wrote it: its float4 loads and stores reinterpret
four floats of A, B or C as one 16-byte value. Here each float4 is four scalar accesses
under the float4's own guard (K and N are multiples of 4, as pysim requires, so a float4
lies wholly inside or wholly outside its matrix): the same elements, the same C, the same
count of element loads, but not 128-bit instructions. Kernel 6 (vectorized) is left out:
without float4 it is the 2D kernel with A stored transposed.

Run under NUMBA_ENABLE_CUDASIM=1 by tests/unit/test_play_numba.py: reads a JSON list of
{"kernel": "blocktile1d" | "warptile", "params": {...}, "A", "B"} from stdin and prints a
JSON list of {"C", "loads", "stores"}.
"""

import json
import sys

import numpy as np
from numba import cuda, float32

WARPSIZE = 32


def blocktile1d(BM, BN, BK, TM):
    """sgemm1DBlocktiling: BM·BN/TM threads, each computing TM results of one column."""
    A_TILE, B_TILE = BM * BK, BK * BN

    @cuda.jit
    def kernel(A, B, C, counts):
        M, K = A.shape
        N = B.shape[1]
        cRow, cCol = cuda.blockIdx.y, cuda.blockIdx.x
        As = cuda.shared.array(A_TILE, float32)
        Bs = cuda.shared.array(B_TILE, float32)
        threadResults = cuda.local.array(TM, float32)
        threadCol = cuda.threadIdx.x % BN
        threadRow = cuda.threadIdx.x // BN
        innerColA = cuda.threadIdx.x % BK
        innerRowA = cuda.threadIdx.x // BK
        innerColB = cuda.threadIdx.x % BN
        innerRowB = cuda.threadIdx.x // BN
        for resIdx in range(TM):
            threadResults[resIdx] = float32(0.0)
        for bkIdx in range(0, K, BK):
            r, c = cRow * BM + innerRowA, bkIdx + innerColA
            if r < M and c < K:
                As[innerRowA * BK + innerColA] = A[r, c]
                cuda.atomic.add(counts, 0, 1)
            else:
                As[innerRowA * BK + innerColA] = float32(0.0)
            r, c = bkIdx + innerRowB, cCol * BN + innerColB
            if r < K and c < N:
                Bs[innerRowB * BN + innerColB] = B[r, c]
                cuda.atomic.add(counts, 0, 1)
            else:
                Bs[innerRowB * BN + innerColB] = float32(0.0)
            cuda.syncthreads()
            for dotIdx in range(BK):
                tmpB = Bs[dotIdx * BN + threadCol]
                for resIdx in range(TM):
                    threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB
            cuda.syncthreads()
        for resIdx in range(TM):
            r, c = cRow * BM + threadRow * TM + resIdx, cCol * BN + threadCol
            if r < M and c < N:
                C[r, c] = threadResults[resIdx]
                cuda.atomic.add(counts, 1, 1)

    return kernel, BM * BN // TM


def warptile(BM, BN, BK, WM, WN, WNITER, TM, TN, threads):
    """sgemmWarptiling: each warp a WM×WN warp tile in WMITER×WNITER subtiles, each lane TM×TN per subtile."""
    WMITER = (WM * WN) // (WARPSIZE * TM * TN * WNITER)
    WSUBM, WSUBN = WM // WMITER, WN // WNITER
    rowStrideA, rowStrideB = (threads * 4) // BK, threads // (BN // 4)
    A_TILE, B_TILE = BM * BK, BK * BN
    RESULTS, REG_M, REG_N, ROW = WMITER * TM * WNITER * TN, WMITER * TM, WNITER * TN, WNITER * TN

    @cuda.jit
    def kernel(A, B, C, counts):
        M, K = A.shape
        N = B.shape[1]
        cRow, cCol = cuda.blockIdx.y, cuda.blockIdx.x
        warpIdx = cuda.threadIdx.x // WARPSIZE
        warpCol = warpIdx % (BN // WN)
        warpRow = warpIdx // (BN // WN)
        threadIdxInWarp = cuda.threadIdx.x % WARPSIZE
        threadColInWarp = threadIdxInWarp % (WSUBN // TN)
        threadRowInWarp = threadIdxInWarp // (WSUBN // TN)
        As = cuda.shared.array(A_TILE, float32)  # transposed: As[k * BM + m]
        Bs = cuda.shared.array(B_TILE, float32)
        innerRowA = cuda.threadIdx.x // (BK // 4)
        innerColA = cuda.threadIdx.x % (BK // 4)
        innerRowB = cuda.threadIdx.x // (BN // 4)
        innerColB = cuda.threadIdx.x % (BN // 4)
        threadResults = cuda.local.array(RESULTS, float32)
        regM = cuda.local.array(REG_M, float32)
        regN = cuda.local.array(REG_N, float32)
        for i in range(RESULTS):
            threadResults[i] = float32(0.0)
        for bkIdx in range(0, K, BK):
            for offset in range(0, BM - rowStrideA + 1, rowStrideA):  # loadFromGmem: A, "float4" by float4
                r, c = cRow * BM + innerRowA + offset, bkIdx + innerColA * 4
                inside = r < M and c < K
                for i in range(4):
                    As[(innerColA * 4 + i) * BM + innerRowA + offset] = A[r, c + i] if inside else float32(0.0)
                if inside:
                    cuda.atomic.add(counts, 0, 4)
            for offset in range(0, BK - rowStrideB + 1, rowStrideB):  # loadFromGmem: B
                r, c = bkIdx + innerRowB + offset, cCol * BN + innerColB * 4
                inside = r < K and c < N
                for i in range(4):
                    Bs[(innerRowB + offset) * BN + innerColB * 4 + i] = B[r, c + i] if inside else float32(0.0)
                if inside:
                    cuda.atomic.add(counts, 0, 4)
            cuda.syncthreads()
            for dotIdx in range(BK):  # processFromSmem
                for wSubRowIdx in range(WMITER):
                    for i in range(TM):
                        regM[wSubRowIdx * TM + i] = As[
                            dotIdx * BM + warpRow * WM + wSubRowIdx * WSUBM + threadRowInWarp * TM + i
                        ]
                for wSubColIdx in range(WNITER):
                    for i in range(TN):
                        regN[wSubColIdx * TN + i] = Bs[
                            dotIdx * BN + warpCol * WN + wSubColIdx * WSUBN + threadColInWarp * TN + i
                        ]
                for wSubRowIdx in range(WMITER):
                    for wSubColIdx in range(WNITER):
                        for resIdxM in range(TM):
                            for resIdxN in range(TN):
                                threadResults[(wSubRowIdx * TM + resIdxM) * ROW + wSubColIdx * TN + resIdxN] += (
                                    regM[wSubRowIdx * TM + resIdxM] * regN[wSubColIdx * TN + resIdxN]
                                )
            cuda.syncthreads()
        for wSubRowIdx in range(WMITER):
            for wSubColIdx in range(WNITER):
                for resIdxM in range(TM):
                    for resIdxN in range(0, TN, 4):  # a "float4" store: four scalar stores
                        r = cRow * BM + warpRow * WM + wSubRowIdx * WSUBM + threadRowInWarp * TM + resIdxM
                        c = cCol * BN + warpCol * WN + wSubColIdx * WSUBN + threadColInWarp * TN + resIdxN
                        if r < M and c < N:
                            for i in range(4):
                                C[r, c + i] = threadResults[
                                    (wSubRowIdx * TM + resIdxM) * ROW + wSubColIdx * TN + resIdxN + i
                                ]
                            cuda.atomic.add(counts, 1, 4)

    return kernel, threads


# pysim's kernel name -> (factory, the parameters it takes, in order)
FACTORIES = {
    "blocktile1d": (blocktile1d, ("BM", "BN", "BK", "TM")),
    "warptile": (warptile, ("BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN", "threads")),
}


def run(case):
    params = case["params"]
    M, N = params["M"], params["N"]
    factory, names = FACTORIES[case["kernel"]]
    kernel, threads = factory(*(params[name] for name in names))
    grid = ((N + params["BN"] - 1) // params["BN"], (M + params["BM"] - 1) // params["BM"])
    A = cuda.to_device(np.array(case["A"], dtype=np.float32))
    B = cuda.to_device(np.array(case["B"], dtype=np.float32))
    C = cuda.to_device(np.zeros((M, N), dtype=np.float32))
    counts = cuda.to_device(np.zeros(2, dtype=np.int64))
    kernel[grid, threads](A, B, C, counts)
    loads, stores = counts.copy_to_host().tolist()
    return {"C": C.copy_to_host().tolist(), "loads": loads, "stores": stores}


if __name__ == "__main__":
    json.dump([run(case) for case in json.load(sys.stdin)], sys.stdout)
