"""The `kept-loop-base` rule's measurement (pysim/core/instructions.py): for every sampled parameter set of the
kernels with a dotIdx loop, on each architecture, whether nvcc's shared-load widths equal the model's, split by
the rule's side (loop_length at or below KEPT_LOOP_TOTAL, or above it), and whether a difference is in the widths
alone. What the rule's docstring cites, repeatable:

    python -m tools.sass.widths                          (60 samples per kernel from seeds 40 and 41, and the presets)
    python -m tools.sass.widths --samples 20 --seeds 40 --arch sm_80

Compiles are cached like the tests' (~/.cache/tilelab-sass); a cold run of the default takes minutes.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from pysim.core.instructions import KEPT_LOOP_TOTAL, WIDTH_SUFFIX, instruction_class, loop_length
from pysim.kernels import KERNELS

from . import report, toolchain
from .render import kernel_params
from .samples import samples

KERNELS_WITH_A_DOT_LOOP = ("blocktile1d", "register", "vectorized", "warptile", "pipelined")
LOADS = {instruction_class("LDS", width): width for width in WIDTH_SUFFIX}  # LDS, LDS.64, LDS.128: words each


def parameter_sets(count: int, seeds: list[int]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name in KERNELS_WITH_A_DOT_LOOP:
        found += [(name, dict(values)) for values in KERNELS[name].PARAMS.PRESETS.values()]
        found += [(name, values) for seed in seeds for values in samples(name, count, seed=seed)]
    return found


def folded(mix: dict[str, int]) -> tuple[dict[str, int], int]:
    """A mix with its shared loads as the words they read: what `kept-loop-base` leaves counted."""
    return {k: v for k, v in mix.items() if k not in LOADS}, sum(mix.get(k, 0) * w for k, w in LOADS.items())


def outcome(nvcc: dict[str, int], model: dict[str, int]) -> str:
    """'equal', 'widths' (the loads' words equal, every other class equal) or 'other'."""
    if nvcc == model:
        return "equal"
    return "widths" if folded(nvcc) == folded(model) else "other"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.sass.widths", description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--seeds", type=int, nargs="+", default=[40, 41])
    parser.add_argument("--arch", nargs="+", default=list(toolchain.ARCHS), choices=toolchain.ARCHS)
    args = parser.parse_args(argv)
    cases = [
        (name, values, arch)
        for name, values in parameter_sets(args.samples, args.seeds)
        for arch in args.arch
        if not (name == "pipelined" and arch == "sm_75")  # cp.async: sm_80 on
    ]
    jobs = [report.job(*kernel_params(name, values), arch) for name, values, arch in cases]
    tally: Counter[tuple[str, bool, str]] = Counter()
    for (name, values, arch), text in zip(cases, toolchain.disassemble_all(jobs), strict=True):
        kernel, params = kernel_params(name, values)
        if isinstance(text, toolchain.CompileError):
            tally[(arch, False, "refused")] += 1
            continue
        found = report.report(kernel, params, arch, text)
        above = loop_length(kernel, params) > KEPT_LOOP_TOTAL
        tally[(arch, above, outcome(found["per_iteration"], found["model"]["per_iteration"]))] += 1
    print(f"{'arch':<8}{'loop length':<16}{'equal':>8}{'widths':>8}{'other':>8}{'refused':>9}")
    for arch in args.arch:
        for above in (False, True):
            side = f"> {KEPT_LOOP_TOTAL}" if above else f"<= {KEPT_LOOP_TOTAL}"
            counts = [tally[(arch, above, kind)] for kind in ("equal", "widths", "other", "refused")]
            print(f"{arch:<8}{side:<16}{counts[0]:>8}{counts[1]:>8}{counts[2]:>8}{counts[3]:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
