"""What the pages say about each kernel's steps, one module per kernel key (kept out of the
kernel files, which hold the CUDA listing, launch shape, step generator and closed forms).

Every narration module defines `describe(step, p, thread)` (what one thread does: the
monitor's cell) and `narrate(step, p, thread)` (one sentence for the live region); a view
with a phase line also uses `phase_detail(step, p)`, and a lens or focus line `lens`, `position`.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def narration(kernel_name: str) -> ModuleType:
    """The narration module of the kernel registered as `kernel_name`."""
    return importlib.import_module(f"{__name__}.{kernel_name}")
