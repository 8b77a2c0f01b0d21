"""The `placement` rule (pysim.core.placement) held to nvcc: where the register-tiled kernel's dotIdx loop is short,
nvcc's shared-read widths still differ from `merge`'s where As's size puts Bs off a 16-byte boundary or every
thread reads the same words; the rule names those sets, the guide and the checkpoint then ask nothing that depends
on the widths, and the register page says its widths are the model's. Sets from a random sweep (the rule's
docstring): each differing one is named, and sets where nvcc agrees and the rule is silent stay so."""

from __future__ import annotations

import pytest

from pysim.core import placement
from pysim.core.trace import Trace
from pysim.lessons import checkpoints
from pysim.lessons.guides import guide_for
from tools.sass import report, toolchain
from tools.sass.render import kernel_params

DIFFER = [  # nvcc 13.5, sm_80: the model's widths differ; the short loop leaves `kept-loop-base` silent
    dict(M=7, N=8, K=8, BM=3, BN=4, BK=1, TM=1, TN=2),  # Bs 12 bytes in: nvcc 3 LDS, the model an LDS.64
    dict(M=27, N=37, K=17, BM=3, BN=3, BK=5, TM=3, TN=1),  # As read alike by every thread: nvcc 20 LDS
    dict(M=28, N=25, K=32, BM=11, BN=1, BK=1, TM=11, TN=1),  # one thread: nvcc 12 LDS
    dict(M=23, N=19, K=5, BM=9, BN=8, BK=5, TM=1, TN=2),
]
AGREE = [
    dict(M=8, N=8, K=8, BM=4, BN=4, BK=4, TM=2, TN=2),
    dict(M=20, N=12, K=9, BM=8, BN=16, BK=4, TM=2, TN=4),
    dict(M=8, N=8, K=8, BM=2, BN=4, BK=1, TM=1, TN=2),  # Bs 8 bytes in: its LDS.64s need no more (a review's)
    dict(M=8, N=8, K=8, BM=6, BN=8, BK=1, TM=2, TN=2),
]


def nvcc_agrees(values: dict) -> bool:
    kernel, params = kernel_params("register", values)
    (text,) = toolchain.disassemble_all([report.job(kernel, params, "sm_80")])
    assert not isinstance(text, toolchain.CompileError), text
    found = report.report(kernel, params, "sm_80", text)
    return found["per_iteration"] == found["model"]["per_iteration"]


@pytest.mark.parametrize("values", DIFFER + AGREE, ids=str)
def test_the_rule_names_where_nvccs_widths_differ(values):
    kernel, params = kernel_params("register", values)
    assert bool(placement.unsure(kernel, params)) == (values in DIFFER)
    assert nvcc_agrees(values) == (values in AGREE)


def test_where_it_applies_nothing_asks_the_widths():
    kernel, params = kernel_params("register", DIFFER[0])
    assert checkpoints.bank_degree(kernel, params, Trace(kernel, params)) is None
    skipped = {entry.key: entry.reason for entry in guide_for("register", params).skipped}
    assert "nvcc places Bs right after it, off an 8-byte boundary" in skipped["register:bank"]
    kernel, params = kernel_params("register", AGREE[0])
    assert checkpoints.bank_degree(kernel, params, Trace(kernel, params)) is not None
