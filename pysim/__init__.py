"""pysim: a thread-by-thread simulator of SGEMM kernels on a GPU's memory hierarchy.

Pure Python + NumPy, so it runs the same in CPython and in the browser (Pyodide).
"""

from .core.counters import Counters
from .core.trace import Access, Step, Trace
from .hardware.params import HierarchyParams, NaiveParams, ParamError, RegisterParams, SmemParams, TransposeParams
from .kernels import KERNELS

__version__ = "0.1.0"
__all__ = [
    "KERNELS",
    "Access",
    "Counters",
    "HierarchyParams",
    "NaiveParams",
    "ParamError",
    "RegisterParams",
    "SmemParams",
    "Step",
    "Trace",
    "TransposeParams",
]
