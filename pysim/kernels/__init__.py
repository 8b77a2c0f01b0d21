"""The kernels in teaching order; each module's docstring says what it changes and why.

Each module keeps the contract in contract.py. `Kernel` forwards the contract's members
explicitly (at call time, so a test may patch the module) and adds what every kernel
derives the same way from them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.counters import Counters
from ..core.listing import Listing
from ..core.trace import Cell, Focus, Step
from . import (
    k01_naive,
    k03_smem_tiled,
    k03_tilelab_transpose,
    k04_blocktile1d,
    k05_register_tiled,
    k06_vectorized,
    k10_warptile,
    k11_pipelined,
    k12_mma,
    k13_wgmma,
)
from .contract import KernelModule, missing_members


@dataclass(frozen=True)
class Kernel:
    """A registered kernel module, plus the plumbing written once for all of them."""

    module: KernelModule

    def __post_init__(self) -> None:
        missing = missing_members(self.module)
        if missing:
            raise TypeError(
                f"kernel module {self.module.__name__} lacks {', '.join(missing)} (pysim/kernels/contract.py)"
            )

    # --- the contract, forwarded ---------------------------------------------
    @property
    def NAME(self) -> str:
        return self.module.NAME

    @property
    def TITLE(self) -> str:
        return self.module.TITLE

    @property
    def PARAMS(self) -> type[Any]:
        return self.module.PARAMS

    @property
    def LISTING(self) -> Listing:
        return self.module.LISTING

    def source(self, p: Any) -> list[str]:
        return self.module.source(p)

    def grid(self, p: Any) -> tuple[int, int]:
        return self.module.grid(p)

    def threads(self, p: Any) -> int:
        return self.module.threads(p)

    def thread_xy(self, p: Any, thread: int) -> tuple[int, int]:
        return self.module.thread_xy(p, thread)

    def steps_per_block(self, p: Any) -> int:
        return self.module.steps_per_block(p)

    def owner(self, p: Any, row: int, col: int) -> tuple[tuple[int, int], int]:
        return self.module.owner(p, row, col)

    def regions(self, p: Any, step: Step) -> dict[str, list[Cell]]:
        return self.module.regions(p, step)

    def focus(self, p: Any, step: Step, thread: int) -> Focus:
        return self.module.focus(p, step, thread)

    def block_steps(self, p: Any, A: np.ndarray, B: np.ndarray, bx: int, by: int) -> Iterator[Step]:
        return self.module.block_steps(p, A, B, bx, by)

    def counters_for(self, p: Any, bxs: np.ndarray, bys: np.ndarray) -> Counters:
        return self.module.counters_for(p, bxs, bys)

    # --- optional members, with what they mean when absent --------------------
    def owned_cells(self, p: Any, block: tuple[int, int], thread: int) -> tuple[Cell, ...]:
        """The C cells a thread stores; a kernel whose threads own one cell need not say."""
        own = getattr(self.module, "owned_cells", None)
        if own is None:
            raise AttributeError(f"kernel {self.NAME} does not map a thread to several C cells")
        return own(p, block, thread)

    @property
    def expected_label(self) -> str:
        """How the page names NumPy's answer."""
        return getattr(self.module, "REFERENCE_LABEL", "A @ B")

    def expected_c(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """What C must equal, computed by NumPy: A @ B (a kernel may say otherwise: the transpose)."""
        reference = getattr(self.module, "reference", None)
        return reference(A, B) if reference else A @ B

    def tensor_flops(self, p: Any, counters: Counters) -> int | None:
        """FLOPs the tensor instructions of a run with these counters execute; None for a kernel whose FLOPs are
        all FFMA (2·fma) on the FP32 units."""
        flops = getattr(self.module, "tensor_flops", None)
        return None if flops is None else flops(p, counters)

    # --- derived ----------------------------------------------------------------
    def block_counters(self, params: Any, bx: int, by: int) -> Counters:
        return self.module.counters_for(params, np.array([bx]), np.array([by]))

    def counters(self, params: Any) -> Counters:
        """Totals of the whole run, from the closed forms (checked against traces in the tests)."""
        gx, gy = self.module.grid(params)
        return self.module.counters_for(params, np.arange(gx), np.arange(gy))


# A module's number is its place in the lesson, and siboehm's number where it models his kernel
# (github.com/siboehm/SGEMM_CUDA, src/kernels/<n>_kernel_*.cuh), so a reader of his article finds his
# kernel 4 in k04_*: k01_naive is his kernels 1 and 2 (map=row, map=col: coalescing is one parameter
# here), k03 shared-memory tiling, k04 1D blocktiling, k05 2D blocktiling (register tiling), k06
# vectorized, k10 warptiling (k11, pipelined warptiling with cp.async, is TileLab's first rung past his
# ladder, numbered after it; k12, TF32 tensor cores with mma.sync, its second; k13, Hopper's TMA + wgmma, its third); his 7 and 8 (bank conflicts in his vectorized kernel) and 9 (autotuning)
# are not modelled. The transpose is TileLab's own bank-conflict lesson, not a kernel of his: it takes
# the number of the kernel whose "no padding needed" note it explains (shared memory, 3), and its name
# says whose it is. The file names sort in ORDER: siboehm's ladder, the aside beside the kernel it explains.
ORDER = tuple(
    Kernel(module)
    for module in (
        k01_naive,
        k03_smem_tiled,
        k03_tilelab_transpose,
        k04_blocktile1d,
        k05_register_tiled,
        k06_vectorized,
        k10_warptile,
        k11_pipelined,
        k12_mma,
        k13_wgmma,
    )
)
KERNELS = {kernel.NAME: kernel for kernel in ORDER}
