"""Write pysim/data/sass_presets.py: what nvcc made of the listings the pages show at their presets.

    python -m tools.sass.write            (rewrites the file; needs nvcc: tools/sass/toolchain.py)
    python -m tools.sass.write --check    (exit 1 if the committed file is stale)

The browser has no compiler, so the compiler panel of #/tiling, #/register and #/blocktile1d reads this
file; tests/unit/test_sass_presets.py regenerates it (from the cache when warm) and fails when it differs.
One JSON object a line: the report of tools/sass/report.py with the main loop's lines only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pysim.kernels import KERNELS

from . import render, report, toolchain

VIEWS = ("smem", "register", "blocktile1d")  # the kernels of #/tiling, #/register and #/blocktile1d
ARCH = "sm_80"  # the default device, the A100
TARGET = Path(__file__).resolve().parents[2] / "pysim" / "data" / "sass_presets.py"
HEADER = '''"""What nvcc made of the listings #/tiling, #/register and #/blocktile1d show at their presets.

Written by `python -m tools.sass.write` ({version}, {arch}); do not edit: tests/unit/test_sass_presets.py
regenerates it and fails when it is stale. One JSON object a line (tools/sass/report.py's shape, the main
loop's lines only); pysim/lessons/compiled.py reads it.
"""

TEXT = r"""
'''


def entries() -> list[dict]:
    cases = [render.kernel_params(name, preset) for name in VIEWS for preset in KERNELS[name].PARAMS.PRESETS.values()]
    texts = toolchain.disassemble_all([report.job(kernel, params, ARCH) for kernel, params in cases])
    found = []
    for (kernel, params), text in zip(cases, texts, strict=True):
        if isinstance(text, toolchain.CompileError):
            raise text
        entry = report.report(kernel, params, ARCH, text)
        first, last = report.iteration(kernel, params, report.model_mix(kernel, params)).span
        entry["lines"] = [line for line in entry["lines"] if first <= line["line"] <= last]
        found.append(entry)
    return found


def text() -> str:
    lines = [json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in entries()]
    return HEADER.format(version=toolchain.compiler_version(), arch=ARCH) + "\n".join(lines) + '\n"""\n'


def main(argv: list[str]) -> int:
    wanted = text()
    if "--check" in argv:
        stale = not TARGET.is_file() or TARGET.read_text(encoding="utf-8") != wanted
        print(f"{TARGET} is stale: run python -m tools.sass.write" if stale else "up to date")
        return int(stale)
    TARGET.write_text(wanted, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
