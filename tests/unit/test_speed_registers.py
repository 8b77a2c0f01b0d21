"""The speed model's registers per thread decide how many blocks share an SM (the occupancy rule of the CUDA
C++ Programming Guide), and with it the latency unit of a barrier-synchronised kernel. Kernel 4's As reads are
LDS.128s merged across four dotIdx rounds (pysim.core.instructions `issued`), so a thread holds 4·TM words of A
where RegisterBudget counts TM: profiles._held_words counts them. Held against ptxas -v on TileLab's kernel 4
listing at siboehm's runner shape, on the architecture of each preset a kernel 4 run was measured on (and the
RTX 4090's): the blocks per SM that nvcc's count gives are the model's. Not on sm_75, where ptxas gives the listing
67 registers, one block on a T4 where the model's 57 give two: no kernel 4 run on a T4 was found."""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from pysim.hardware.blocktile_params import Blocktile1DParams
from pysim.hardware.devices import DEVICES
from pysim.speed import profile
from pysim.speed.model import Machine, resident_blocks
from tools.sass import render, toolchain

RUNNER = "siboehm's A6000 runner: 64³, BM=BN=64, BK=8, TM=8 (512 threads)"
ARCH_OF = {"a100": "sm_80", "rtxa6000": "sm_86", "rtx4090": "sm_89", "h100": "sm_90"}


def ptxas_registers(source: str, arch: str) -> int:
    """Registers per thread ptxas -v reports for the listing's one kernel."""
    with tempfile.TemporaryDirectory(prefix="tilelab-regs-") as folder:
        cu = Path(folder) / "kernel.cu"
        cu.write_text(source)
        command = [toolchain.tool("nvcc"), *toolchain.FLAGS, f"-arch={arch}", "-Xptxas", "-v"]
        done = subprocess.run([*command, "-o", str(cu.with_suffix(".cubin")), str(cu)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (count,) = re.findall(r"Used (\d+) registers", done.stderr)
    return int(count)


@pytest.mark.parametrize("device", ARCH_OF)
def test_kernel_4s_blocks_per_sm_are_those_nvccs_registers_give(device: str) -> None:
    try:
        toolchain.tool("nvcc")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    kernel, params = render.kernel_params("blocktile1d", Blocktile1DParams.PRESETS[RUNNER])
    nvcc = ptxas_registers(render.cuda_source(kernel, params), ARCH_OF[device])
    machine = Machine.of(DEVICES[device])
    modelled = profile("blocktile1d", replace(params, M=4096, N=4096, K=4096))
    assert resident_blocks(machine, modelled) == resident_blocks(machine, replace(modelled, registers=nvcc)), (
        device,
        modelled.registers,
        nvcc,
    )


def test_held_words_are_register_budgets_fragments_where_no_read_merges_across_rounds() -> None:
    """Kernel 5 at the runner's shape keeps its dotIdx loop (`kept-loop`): nothing merges across rounds, so the
    words held are TM + TN and its registers RegisterBudget's; kernel 4's merged As reads hold 4·TM + 1."""
    from pysim.hardware.registers import RegisterBudget
    from pysim.speed.profiles import RunnerShape, _held_words

    shape = RunnerShape(4096, 4096, 4096)
    assert _held_words(shape, 256) == shape.TM + shape.TN
    assert profile("register", shape).registers == RegisterBudget(shape.TM, shape.TN).total
    kernel4 = RunnerShape(4096, 4096, 4096, BM=64, BN=64, BK=8, TM=8, TN=1)
    assert _held_words(kernel4, 512) == 4 * kernel4.TM + 1
