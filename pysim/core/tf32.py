"""TF32 arithmetic as the mma kernel (pysim/kernels/k12_mma.py) does it: rounding float32 to TF32, the
3xTF32 split, and one mma.sync.m16n8k8's multiply-add.

TF32 keeps float32's sign and 8-bit exponent and 10 of its 23 mantissa bits; as a .b32 register it is a
float32 whose low 13 bits are zero. The listing rounds with `cvt.rna.tf32.f32` (PTX ISA, "cvt": .rna is
round to nearest, ties away from zero). `to_tf32` is the instruction sequence nvcc emits for it on sm_80+
(shown for sm_86 at https://enp1s0.github.io/blog/cuda/2023/01/08/tf32-rna.html, and checked in the
listing's own SASS by tests/unit/test_mma_sass.py): unless |x| is infinite or NaN, add 0x1000 (half of
the 13 dropped bits, so a tie carries away from zero, into the exponent if need be: the largest floats
round to infinity), then clear the low 13 bits. Subnormals round the same way (integer arithmetic, no
flush to zero). A NaN is only masked, so a NaN whose payload lies wholly in the low 13 bits comes out as
infinity: the hardware rule, kept. Where the rounded value only feeds an HMMA, nvcc drops the mask (the
listing's SASS at split=1): the tensor core reads the top 19 bits alone, so the result is the same.
The Hopper kernel (k13_wgmma.py) converts nothing: wgmma reads float32 from shared memory and, as Triton's
maintainers report (not documented in the PTX ISA; see `truncate`), uses those top 19 bits, which is `truncate`
(toward zero), not cvt.rna's rounding.

3xTF32 (CUTLASS's OpMultiplyAddFastF32, include/cutlass/gemm/warp/mma_tensor_op_fast_f32.h) splits
x = big + small with big = tf32(x), small = tf32(x - big) (x - big is exact in float32) and sums
small·big + big·small + big·big, the small terms first; small·small (about 2^-22 relative) is dropped.

One mma's sum: the product of two TF32 values (11-bit significands) is exact in float32; pysim adds the 8
products of a k-step exactly (float64) to the accumulator and rounds once to float32. The hardware's
internal order and rounding of that sum are not documented; Fasi, Higham, Mikaitis and Pranesh,
"Numerical behavior of NVIDIA tensor cores" (PeerJ Computer Science 7:e330, 2021) measured truncation
rather than rounding in it, which pysim does not model (with the page's digits 1..9 every sum is exact,
so C is bit-exact either way; errors on random data are pysim's, not a measurement).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .fragments import MMA_K

DROPPED_BITS = 13  # float32's 23 mantissa bits less TF32's 10
HALF = np.uint32(1 << (DROPPED_BITS - 1))
KEEP = np.uint32((0xFFFFFFFF << DROPPED_BITS) & 0xFFFFFFFF)
SPLITS = (1, 3)  # TF32, 3xTF32


def to_tf32(x: np.ndarray) -> np.ndarray:
    """float32 -> TF32 (as float32 with the low 13 bits zero), cvt.rna.tf32.f32's rule."""
    values = np.asarray(x, dtype=np.float32)
    bits = values.view(np.uint32)
    finite = np.abs(values) < np.inf  # False for ±inf and NaN: those skip the add
    rounded = np.where(finite, bits + HALF, bits) & KEEP
    return rounded.astype(np.uint32).view(np.float32)


def truncate(x: np.ndarray) -> np.ndarray:
    """float32 -> TF32 by dropping the low 13 bits (toward zero): what a tensor core takes from a float32 it reads
    unconverted, as wgmma does from shared memory (the k13 kernel issues no cvt; see the module's docstring).
    Not a measurement of ours: Triton's maintainers found a TF32 dot without cvt.rna truncates
    (triton-lang/triton issue 4574) and added rounding for float32 operands a TMA descriptor brings in (PR 9295).
    On uniform[-1, 1] inputs, max|C - C64| / max|C64| is 7.2e-4 at 256³ and 7.4e-4 at 1024³ (cvt.rna: 2.1e-4,
    2.9e-4)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    return (bits & KEEP).astype(np.uint32).view(np.float32)


def split(x: np.ndarray, parts: int) -> tuple[np.ndarray, ...]:
    """(big,) for TF32; (big, small) for 3xTF32."""
    big = to_tf32(x)
    return (big,) if parts == 1 else (big, to_tf32(np.asarray(x, dtype=np.float32) - big))


def terms(a: np.ndarray, b: np.ndarray, parts: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The operand pairs of the mmas one k-step issues, in the order the listing issues them."""
    sa, sb = split(a, parts), split(b, parts)
    if parts == 1:
        return [(sa[0], sb[0])]
    return [(sa[1], sb[0]), (sa[0], sb[1]), (sa[0], sb[0])]


def mma(acc: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """acc + a @ b over the last two axes (a: ...×m×8, b: ...×8×n, TF32 already), rounded once to float32."""
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    return (acc.astype(np.float64) + exact).astype(np.float32)


def gemm(
    A: np.ndarray, B: np.ndarray, parts: int, convert: Callable[[np.ndarray], np.ndarray] | None = None
) -> np.ndarray:
    """C = A @ B as the kernel computes it: k-steps of 8 (K zero-padded), each `parts`' mmas in turn; with
    `convert` (wgmma's `truncate`), TF32 operands made by it instead of cvt.rna (parts=1 only)."""
    M, K = A.shape
    steps = -(-K // MMA_K)
    a = np.zeros((M, steps * MMA_K), dtype=np.float32)
    b = np.zeros((steps * MMA_K, B.shape[1]), dtype=np.float32)
    a[:, :K], b[:K] = A, B
    c = np.zeros((M, B.shape[1]), dtype=np.float32)
    for k in range(0, steps * MMA_K, MMA_K):
        pairs = [(convert(a[:, k : k + MMA_K]), convert(b[k : k + MMA_K]))] if convert else None
        for x, y in pairs or terms(a[:, k : k + MMA_K], b[k : k + MMA_K], parts):
            c = mma(c, x, y)
    return c


def relative_error(c: np.ndarray, A: np.ndarray, B: np.ndarray) -> float:
    """max |C - C64| / max |C64|, C64 the float64 product of the float32 inputs."""
    exact = A.astype(np.float64) @ B.astype(np.float64)
    return float(np.max(np.abs(c.astype(np.float64) - exact)) / np.max(np.abs(exact)))
