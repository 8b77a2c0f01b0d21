"""The CUDA compiler as an oracle (issue 40): a kernel's listing compiled by nvcc, its SASS read back.

A test and developer dependency only: the site, the browser bundle and `make serve` never need it.
- `toolchain.py` finds nvcc and nvdisasm (PyPI's NVIDIA wheels or the PATH) and compiles with a cache,
  many listings per nvcc run for a sweep;
- `render.py` turns a kernel's listing at given parameters into a compilable .cu file;
- `disasm.py` reads the disassembly: instructions, their listing lines, the main loop's body;
- `mix.py` counts the instruction mix per iteration of the main loop (what `pysim sass` prints);
- `samples.py` draws the parameter sets the SASS checks sample per kernel;
- `write.py` writes pysim/data/sass_presets.py, the SASS the pages show at their presets;
- `playground.py` compiles a playground file through Numba-CUDA's PTX (`pysim run FILE --sass`).
"""
