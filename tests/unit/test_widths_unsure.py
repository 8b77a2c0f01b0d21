"""Where nvcc keeps the dotIdx loop (`kept-loop-base`, pysim/core/instructions.py), the shared reads' widths are
NVVM's choice, and no question may have one of them as its answer: the vectorized guide's "which instructions"
question is skipped with its reason and the bank-degree checkpoint, whose degree depends on a merged read's
width, is withheld; the listing's comments and the step narration call the widths the model's. At the presets (held exact against nvcc
by tests/unit/test_sass_model.py) all of them stay. The loop's length is counted here from the sizes alone."""

from __future__ import annotations

import pytest

from pysim.core.trace import Trace
from pysim.hardware.blocktile_params import VectorizedParams
from pysim.kernels import KERNELS, k06_vectorized
from pysim.lessons import checkpoints
from pysim.lessons.guides import vectorized
from pysim.lessons.guides.common import Run
from pysim.lessons.guides.model import Skipped
from pysim.lessons.narration import vectorized as narration

KERNEL = KERNELS["vectorized"]
RUNNER = next(values for label, values in VectorizedParams.PRESETS.items() if "runner" in label)
SIZES = [
    dict(RUNNER),  # 8 × (64 + 2 + 2) = 544, a preset
    dict(M=115, N=80, K=28, BM=32, BN=32, BK=4, TM=4, TN=8),  # 4 × (32 + 1 + 2) = 140: nvcc splits As's float4
    dict(M=20, N=24, K=12, BM=16, BN=16, BK=4, TM=4, TN=4),  # 4 × (16 + 1 + 1) = 72
]


def kept(values: dict) -> bool:
    """BK rounds of TM·TN FFMA and the reads the trace writes (TM/4 + TN/4 float4s, or TM + TN words) over 130,
    and not a preset."""
    p = VectorizedParams(**values)
    reads = sum(n // 4 if n % 4 == 0 else n for n in (p.TM, p.TN))
    return p.BK * (p.TM * p.TN + reads) > 130 and values != dict(RUNNER)


@pytest.mark.parametrize("values", SIZES)
def test_the_width_question_and_the_bank_checkpoint_only_where_nvccs_widths_are_known(values):
    params = VectorizedParams(**values)
    entry = next(e for e in vectorized.entries(Run.of(KERNEL, params)) if e.key == "vectorized:width")
    assert isinstance(entry, Skipped) == kept(values), entry
    found = checkpoints.bank_degree(KERNEL, params, Trace(KERNEL, params))
    assert (found is None) == kept(values)
    comments = [line for line in KERNEL.source(params) if "regM[i] =" in line or "regN[i] =" in line]
    assert all(("in pysim's model (nvcc keeps this loop here" in line) == kept(values) for line in comments)
    trace = Trace(KERNEL, params)
    read = next(step for step in trace if step.lines == k06_vectorized.LOAD_M)
    told = narration.phase_detail(read, params)
    assert "128-bit load" in told and ("in pysim's model (nvcc keeps this loop here" in told) == kept(values), told
