"""The kernels in teaching order; each module's docstring says what it changes and why.

A kernel module provides its listing, launch shape, step generator, closed-form
`counters_for(p, bxs, bys)` and the mappings views need (`owner`, `regions`,
`focus`). `Kernel` adds what every kernel derives the same way from those.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from ..core.counters import Counters
from . import k01_naive, k02_smem_tiled, k03_register_tiled, k04_transpose


@dataclass(frozen=True)
class Kernel:
    """A kernel module, plus the plumbing written once for all of them."""

    module: ModuleType

    def __getattr__(self, name: str) -> Any:
        if name == "module":  # not set yet (copying): never recurse
            raise AttributeError(name)
        return getattr(self.module, name)

    def block_counters(self, params: Any, bx: int, by: int) -> Counters:
        return self.module.counters_for(params, np.array([bx]), np.array([by]))

    def counters(self, params: Any) -> Counters:
        """Totals of the whole run, from the closed forms (checked against traces in the tests)."""
        gx, gy = self.module.grid(params)
        return self.module.counters_for(params, np.arange(gx), np.arange(gy))

    @property
    def expected_label(self) -> str:
        """How the page names NumPy's answer."""
        return getattr(self.module, "REFERENCE_LABEL", "A @ B")

    def expected_c(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """What C must equal, computed by NumPy: A @ B (a kernel may say otherwise: the transpose)."""
        reference = getattr(self.module, "reference", None)
        return reference(A, B) if reference else A @ B


ORDER = tuple(Kernel(module) for module in (k01_naive, k02_smem_tiled, k03_register_tiled, k04_transpose))
KERNELS = {kernel.NAME: kernel for kernel in ORDER}
