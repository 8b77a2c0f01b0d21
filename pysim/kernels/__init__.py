"""The kernels in teaching order; each module's docstring says what it changes and why."""

from . import k01_naive, k02_smem_tiled, k03_register_tiled, k04_transpose

ORDER = (k01_naive, k02_smem_tiled, k03_register_tiled, k04_transpose)
KERNELS = {module.NAME: module for module in ORDER}
