"""pysim.core.tf32 against an independent rounding: exact rational arithmetic (fractions.Fraction), round to
nearest with ties away from zero to 10 mantissa bits (cvt.rna.tf32.f32), over random floats of every exponent,
subnormals, ties, the largest floats (which round to infinity), ±0, ±inf and NaN, bit for bit; and C's error
against float64 for TF32 (~1e-3 relative) and 3xTF32 (near float32's own)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from pysim.core import tf32

SMALLEST_NORMAL = Fraction(1, 2**126)


def rna_tf32(x: float) -> float:
    """Round |x| to a multiple of its TF32 quantum (2^(e-10) for normals, 2^-136 below 2^-126), ties away."""
    if math.isinf(x) or x == 0:
        return x
    value = abs(Fraction(x))
    exponent = max(math.floor(math.log2(value)), -126)
    if Fraction(2) ** exponent > value:  # log2 rounding near a power of two
        exponent -= 1
    elif Fraction(2) ** (exponent + 1) <= value:
        exponent += 1
    quantum = Fraction(2) ** (max(exponent, -126) - 10)
    steps = value / quantum
    rounded = math.floor(steps) + (1 if steps - math.floor(steps) >= Fraction(1, 2) else 0)
    result = rounded * quantum
    if result >= Fraction(2) ** 128:
        return math.copysign(math.inf, x)
    return math.copysign(float(result), x)


def _bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def edge_cases():
    bits = [0x00000001, 0x00001000, 0x00001FFF, 0x00002000, 0x007FFFFF, 0x00800000, 0x3F800000, 0x3F801000]
    bits += [0x3F801FFF, 0x3F803000, 0x3F7FF000, 0x7F7FEFFF, 0x7F7FF000, 0x7F7FFFFF, 0x7F800000, 0x00000000]
    bits += [b | 0x80000000 for b in bits]
    return np.array(bits, dtype=np.uint32).view(np.float32)


def test_bit_for_bit_against_exact_rounding():
    rng = np.random.default_rng(41)
    random_bits = rng.integers(0, 2**32, size=20_000, dtype=np.uint64).astype(np.uint32)
    ties = (random_bits & np.uint32(0xFFFFE000)) | np.uint32(0x1000)  # exactly halfway between two TF32s
    values = np.concatenate([random_bits.view(np.float32), ties.view(np.float32), edge_cases()])
    values = values[~np.isnan(values)]
    ours = _bits(tf32.to_tf32(values))
    expected = _bits([rna_tf32(float(v)) for v in values])
    wrong = np.flatnonzero(ours != expected)
    assert wrong.size == 0, [hex(int(b)) for b in values[wrong[:5]].view(np.uint32)]
    assert np.all(ours & 0x1FFF == 0)


def test_ties_go_away_from_zero_and_nan_is_masked():
    one_and_a_half_ulp = np.array([0x3F801000, 0xBF801000], dtype=np.uint32).view(np.float32)
    assert list(_bits(tf32.to_tf32(one_and_a_half_ulp))) == [0x3F802000, 0xBF802000]
    nans = np.array([0x7FC00000, 0x7FC01234, 0x7F800001], dtype=np.uint32).view(np.float32)
    # the hardware rule only masks a NaN: a payload wholly in the low 13 bits leaves infinity
    assert list(_bits(tf32.to_tf32(nans))) == [0x7FC00000, 0x7FC00000, 0x7F800000]


def test_the_3x_split_is_exact_to_float32_rounding():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10_000).astype(np.float32)
    big, small = tf32.split(x, 3)
    assert np.all(_bits(big) & 0x1FFF == 0) and np.all(_bits(small) & 0x1FFF == 0)
    residual = np.abs(x.astype(np.float64) - big - small) / np.abs(x.astype(np.float64))
    assert residual.max() < 2.0**-21  # TF32 rounding of the remainder: 2^-11 of 2^-11 of x


@pytest.mark.parametrize("size", [64, 256])
def test_c_error_against_float64(size):
    """TF32 loses float32's 13 low mantissa bits of every input: ~1e-3 relative; 3xTF32 gets back to
    float32's own error (float32's A @ B, NumPy's, as the yardstick)."""
    rng = np.random.default_rng(size)
    A = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    B = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    one, three = (tf32.relative_error(tf32.gemm(A, B, parts), A, B) for parts in (1, 3))
    float32 = tf32.relative_error(A @ B, A, B)
    assert 1e-4 < one < 5e-3
    assert three < 4 * float32 + 1e-7 and one > 100 * three
