"""The TF32 listing is real CUDA: nvcc compiles it for sm_80 (presets, 3xTF32, the swizzle and an edited one) and its SASS has
what the view names: HMMA.1688.F32.TF32 (MITER·NITER·split of them per k-step), LDGSTS for cp.async,
LDGDEPBAR/DEPBAR for the groups, and cvt.rna.tf32.f32 as pysim.core.tf32 emulates it (|x| < inf tested,
0x1000 added; the 0xffffe000 mask kept where 3xTF32 subtracts the big part, dropped where the value only feeds
an HMMA, which reads the TF32 bits alone). Through tools/sass: a missing compiler FAILS with the install
command, and a warm cache compiles nothing."""

import re

import pytest

from pysim.hardware.mma_params import MmaParams
from pysim.kernels import KERNELS
from tools.sass import report, toolchain

KERNEL = KERNELS["mma"]
TEACH, PRODUCTION = MmaParams.PRESETS.values()
SWIZZLED = {"swizzle": 1, "split": 3, "BK": 32}  # a swizzled row is whole 128-byte lines (BK, BN multiples of 32)
EDITED = {"swz_bits": 2, "swz_base": 3, "swz_shift": 4}  # the editor's Swizzle<2, 3, 4>: 32-byte chunks
CASES = [
    TEACH,
    PRODUCTION,
    {**TEACH, **SWIZZLED, "BN": 32, "WN": 32},
    {**PRODUCTION, **SWIZZLED},
    {**TEACH, **SWIZZLED, **EDITED, "BN": 32, "WN": 32},
]


def _sass(values, arch="sm_80"):
    params = KERNEL.PARAMS.parse({key: str(value) for key, value in values.items()})
    return params, toolchain.disassemble(report.job(KERNEL, params, arch))


@pytest.mark.parametrize("values", CASES)
def test_the_listing_compiles_for_sm_80_with_hmma_tf32(values):
    p, sass = _sass(values)
    for instruction in ("HMMA.1688.F32.TF32", "LDGSTS.E.BYPASS.128", "LDGDEPBAR", "DEPBAR.LE"):
        assert instruction in sass, instruction
    hmma = len(re.findall(r"\bHMMA\.1688\.F32\.TF32\b", sass))
    assert hmma and hmma % (p.MITER * p.NITER * p.split) == 0, hmma
    assert "FSETP.GEU.AND" in sass and "+INF" in sass and "0x1000" in sass  # cvt.rna: skip inf/NaN, add half
    assert ("0xffffe000" in sass) == (p.split == 3)
