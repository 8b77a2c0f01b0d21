"""A playground file compiled as a GPU would run it: Numba-CUDA's PTX, then ptxas and nvdisasm (issue 40 item 6).

Numba's CUDA target writes PTX through NVVM (libnvvm from PyPI's `nvidia-nvvm`, which `nvidia-cuda-nvcc`
installs) without a GPU; ptxas makes the SASS and reports registers and local memory. Numba runs in a child
process: the file is executed there (imports, constants, the @cuda.jit function), away from the CLI's own
Numba settings (NUMBA_ENABLE_CUDASIM would swap in the simulator, which has no compiler), and with a deadline.
The arguments are C-contiguous float32 matrices, as the playground's A, B and C are.

What it finds is the compiled kernel's instruction classes, counted over the whole kernel (no loop is taken
apart: a playground kernel has no listing markers), the float64 ones with the lines they come from, the
local-memory instructions (LDL/STL: a spill, or an array nvcc could not keep in registers) and the registers
per thread.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import disasm, mix, toolchain

PACKAGES = ("numba", "nvidia-cuda-nvcc", "nvidia-cuda-nvdisasm")
INSTALL = f"{Path(sys.executable).name} -m pip install {' '.join(PACKAGES)}"
FLOAT64 = ("DADD", "DFMA", "DMUL")
LOCAL = ("LDL", "STL")
DEADLINE_S = 120
REGISTERS = re.compile(r"Used (\d+) registers")
CHILD = """
import sys
from numba import cuda, types
namespace = {"__name__": "playground"}
exec(compile(sys.stdin.read(), sys.argv[1], "exec"), namespace)
matrix = types.float32[:, ::1]
major, minor = int(sys.argv[2][3]), int(sys.argv[2][4])
ptx, _ = cuda.compile_ptx(namespace["kernel"].py_func, (matrix, matrix, matrix), cc=(major, minor), lineinfo=True)
sys.stdout.write(ptx)
"""


def ptx(source: str, name: str, arch: str) -> str:
    """Numba's PTX of the file's `kernel` for `arch`; MissingToolchainError (with the install command) when
    Numba or NVVM is missing, CompileError with Numba's last line when the file does not compile."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, name, arch],
        input=source,
        capture_output=True,
        text=True,
        env=env,
        timeout=DEADLINE_S,
    )
    if done.returncode == 0:
        return done.stdout
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    if "No module named 'numba" in last or "libNVVM" in last or "NVVM" in last.split(":")[0]:
        raise toolchain.MissingToolchainError(f"Numba-CUDA's compiler is not available ({last}); install: {INSTALL}")
    raise toolchain.CompileError(f"Numba could not compile {name}: {last}")


def report(source: str, name: str, arch: str = "sm_80") -> dict[str, Any]:
    """The "sass" object of `python -m pysim run FILE --sass`."""
    text = ptx(source, name, arch)
    with tempfile.TemporaryDirectory(prefix="tilelab-play-") as folder:
        ptx_file, cubin = Path(folder) / "kernel.ptx", Path(folder) / "kernel.cubin"
        ptx_file.write_text(text)
        done = subprocess.run(
            [toolchain.tool("ptxas"), "-v", "-lineinfo", "-O3", f"-arch={arch}", "-o", str(cubin), str(ptx_file)],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise toolchain.CompileError(f"ptxas -arch={arch}: {done.stderr.strip()}")
        shown = subprocess.run([toolchain.tool("nvdisasm"), "-g", "-c", str(cubin)], capture_output=True, text=True)
    instructions = disasm.parse(shown.stdout)
    classes = dict(sorted(mix.count(instructions).items()))
    for family in LOCAL:
        found = sum(1 for i in instructions if i.opcode.split(".")[0] == family)
        if found:
            classes[family] = found
    float64 = sorted({(i.line, i.opcode.split(".")[0]) for i in instructions if i.opcode.split(".")[0] in FLOAT64})
    registers = REGISTERS.search(done.stderr)
    return {
        "arch": arch,
        "registers": int(registers.group(1)) if registers else None,
        "classes": classes,
        "float64": [{"line": line, "instruction": opcode} for line, opcode in float64],
        "local_memory": {family: classes.get(family, 0) for family in LOCAL},
    }


def sentences(found: dict[str, Any]) -> list[str]:
    """What the compiled kernel says about the lesson, one line each (the CLI prints them)."""
    said = [f"{found['arch']}: {found['registers']} registers per thread"]
    said.append("instructions: " + ", ".join(f"{k} {v}" for k, v in found["classes"].items()))
    if found["float64"]:
        lines = ", ".join(f"line {entry['line']} {entry['instruction']}" for entry in found["float64"])
        said.append(f"float64 arithmetic ({lines}): a float64 value (such as a sum started at 0.0) is not FFMA;")
        said.append("  start it at float32(0.0) to keep the sum in float32")
    elif "FFMA" in found["classes"]:
        said.append("no float64 arithmetic: the multiply-adds are FFMA")
    else:
        said.append("no multiply-adds compiled (the kernel does no arithmetic yet)")
    if any(found["local_memory"].values()):
        said.append(f"local memory: {found['local_memory']} (spilled registers or an array nvcc could not keep)")
    return said
