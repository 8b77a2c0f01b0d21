"""The kernel contract (pysim/kernels/contract.py): every registered kernel keeps it, and the
number of steps the Trace indexes by equals what the step generator really yields."""

from __future__ import annotations

import types

import pytest

from pysim.core.matrices import operands
from pysim.hardware.params import ParamError
from pysim.kernels import ORDER, Kernel, k03_smem_tiled
from pysim.kernels.contract import REQUIRED


def _sizes(kernel: Kernel) -> list:
    """Every preset, and each preset shrunk to an awkward size (non-multiples, a matrix smaller
    than one tile)."""
    found = []
    for raw in kernel.PARAMS.PRESETS.values():
        found.append(kernel.PARAMS.parse({k: str(v) for k, v in raw.items()}))
        shrunk = {k: str(v) for k, v in raw.items()}
        for key in ("M", "N", "K", "n"):
            if key in shrunk:
                shrunk[key] = str(max(1, int(shrunk[key]) // 3 + 1))
        try:
            found.append(kernel.PARAMS.parse(shrunk))
        except ParamError:  # a kernel that moves float4s needs K and N multiples of 4: keep M awkward
            shrunk |= {key: str(-(-int(shrunk[key]) // 4) * 4) for key in ("N", "K")}
            found.append(kernel.PARAMS.parse(shrunk))
    return found


@pytest.mark.parametrize("kernel", ORDER, ids=lambda k: k.NAME)
def test_steps_per_block_is_what_the_generator_yields(kernel: Kernel) -> None:
    for p in _sizes(kernel):
        A, B = operands(p.M, p.N, p.K, 0)
        gx, gy = kernel.grid(p)
        for bx, by in {(0, 0), (gx - 1, gy - 1)}:
            yielded = sum(1 for _ in kernel.block_steps(p, A, B, bx, by))
            assert yielded == kernel.steps_per_block(p), (kernel.NAME, p, (bx, by))


@pytest.mark.parametrize("kernel", ORDER, ids=lambda k: k.NAME)
def test_every_kernel_module_defines_the_required_members(kernel: Kernel) -> None:
    assert all(hasattr(kernel.module, name) for name in REQUIRED)


def test_a_module_that_breaks_the_contract_is_refused_at_registration() -> None:
    broken = types.ModuleType("broken")
    for name in REQUIRED:
        if name != "counters_for":
            setattr(broken, name, getattr(k03_smem_tiled, name))
    with pytest.raises(TypeError, match="lacks counters_for"):
        Kernel(broken)


@pytest.mark.parametrize("kernel", [k for k in ORDER if hasattr(k.module, "owned_cells")], ids=lambda k: k.NAME)
def test_cells_are_python_ints(kernel: Kernel) -> None:
    """The page keys JavaScript Maps by a cell's index (a grid's corner labels): Pyodide refuses a NumPy
    integer as a Map key (ConversionError), so a cell of C is a pair of Python ints at every size."""
    for p in _sizes(kernel):
        gx, gy = kernel.grid(p)
        for block in {(0, 0), (gx - 1, gy - 1)}:
            for thread in range(kernel.threads(p)):
                for cell in kernel.owned_cells(p, block, thread):
                    assert all(type(x) is int for x in cell), (kernel.NAME, p, block, thread, cell)
