"""One kernel at one parameter set on one architecture: nvcc's instruction mix beside pysim's (SPEC §7).

The shape is what `python -m pysim sass --json` prints and what pysim/data/sass_presets.json holds:
{"kernel", "params", "arch", "per_iteration", "after_loop", "lines": [{"line", "text", "sass"}], "model"}.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pysim.core.instructions import TENSOR_CORE, Mix, iteration_steps, main_loop_span, model_mix
from pysim.kernels import Kernel

from . import disasm, mix, render, toolchain


def iteration(kernel: Kernel, params: Any, model: Mix) -> mix.Iteration:
    """The anchors of reading the SASS: the main loop's lines (around the FMA, or the tensor-core mma), and one
    iteration's barriers and FFMA (HMMA in a tensor-core kernel)."""
    lines = kernel.source(params)
    markers = kernel.LISTING.markers
    inner = next((markers[name][0] for name in ("fma", "mma") if name in markers), None)
    span = main_loop_span(lines, inner) if inner else (1, len(lines))
    first, _ = iteration_steps(kernel, params)
    anchor = TENSOR_CORE if model.per_iteration.get(TENSOR_CORE) else "FFMA"
    return mix.Iteration(
        span=span,
        barriers=sum(1 for step in first if step.barrier),
        anchored=model.per_iteration.get(anchor, 0),
        anchor=anchor.split(".")[0],
        trips=getattr(params, "tiles", None),
        runtime_lines=frozenset(model.runtime_loop_lines),
    )


def job(kernel: Kernel, params: Any, arch: str) -> toolchain.Job:
    return toolchain.Job(render.cuda_source(kernel, params), arch)


def report(kernel: Kernel, params: Any, arch: str, text: str | None = None) -> dict[str, Any]:
    """The SPEC §7 object; `text` is the disassembly when the caller compiled it already (a batch)."""
    model = model_mix(kernel, params)
    instructions = disasm.parse(text if text is not None else toolchain.disassemble(job(kernel, params, arch)))
    body = mix.main_loop(instructions, iteration(kernel, params, model))
    listing = kernel.source(params)
    by_line: dict[int, list[str]] = {}
    for instruction in instructions:
        by_line.setdefault(instruction.line, []).append(instruction.text)
    return {
        "kernel": kernel.NAME,
        "params": params.as_strings(),
        "arch": arch,
        "per_iteration": mix.per_iteration(body),
        "after_loop": dict(sorted(mix.count(body.after).items())),
        "lines": [
            {"line": number, "text": listing[number - 1].strip() if 0 < number <= len(listing) else "", "sass": sass}
            for number, sass in sorted(by_line.items())
        ],
        "model": asdict(model),
    }


def agrees(found: dict[str, Any]) -> bool:
    """Whether pysim's model counts what nvcc emitted, in the loop and after it."""
    model = found["model"]
    return bool(found["per_iteration"] == model["per_iteration"] and found["after_loop"] == model["after_loop"])
