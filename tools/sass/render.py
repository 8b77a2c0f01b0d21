"""A kernel's listing at given parameters as a compilable .cu file, line for line.

The listings are CUDA already; `Kernel.source` fills in the sizes and strips the `@@` markers. The file is
those lines and nothing else, so line n of the compiled file is line n of the listing the page shows, and
the line numbers nvcc's -lineinfo records are the listing's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pysim.kernels import KERNELS, Kernel


def kernel_params(name: str, values: Mapping[str, Any]) -> tuple[Kernel, Any]:
    """The kernel and its validated parameters (ParamError as the page would say it)."""
    kernel = KERNELS[name]
    return kernel, kernel.PARAMS.parse({key: str(value) for key, value in values.items()})


def cuda_source(kernel: Kernel, params: Any) -> str:
    return "\n".join(kernel.source(params)) + "\n"
