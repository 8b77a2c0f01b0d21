"""What the compiler made of a listing, for the views' compiler panel: nvcc's SASS at the presets.

The browser has no compiler: pysim/data/sass_presets.py holds nvcc's instruction mix and the SASS of the
main loop's lines for the presets of #/tiling, #/register and #/blocktile1d (written by
`python -m tools.sass.write`). For other sizes the panel says so and gives the command that compiles them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

ARCH = "sm_80"
# Parameter names whose command-line option is spelled otherwise (pysim/cli.py OPTIONS).
OPTION = {"T": "tile", "TILE": "tile"}


@dataclass(frozen=True)
class Compiled:
    per_iteration: dict[str, int]  # nvcc's instructions per main-loop iteration, per thread
    model: dict[str, int]  # pysim's model of the same
    lines: tuple[tuple[int, str, tuple[str, ...]], ...]  # (listing line, its text, the SASS it became)

    @property
    def sentence(self) -> str:
        """What the compiled loop changes in the lesson: merged shared reads, fused multiply-adds."""
        mix = self.per_iteration
        wide = {name: mix.get(name, 0) for name in ("LDS.128", "LDS.64", "LDS")}
        values = 4 * wide["LDS.128"] + 2 * wide["LDS.64"] + wide["LDS"]
        parts = [
            f"Each iteration of the main loop, every thread runs {mix.get('FFMA', 0)} FFMA (each `+= a * b` fused)"
        ]
        if wide["LDS.128"] or wide["LDS.64"]:
            parts.append(
                f"and reads its {values} shared values with {sum(wide.values())} load instructions: nvcc merged "
                f"reads of consecutive, aligned words into {wide['LDS.128']} LDS.128 (4 values each) and "
                f"{wide['LDS.64']} LDS.64 (2 each), beside {wide['LDS']} LDS (1 each). The counters count values"
            )
        else:
            parts.append(f"and reads its {values} shared values one LDS each")
        return " ".join(parts) + "."


@cache
def _table() -> dict[str, list[dict[str, Any]]]:
    from ..data.sass_presets import TEXT

    found: dict[str, list[dict[str, Any]]] = {}
    for line in TEXT.strip().splitlines():
        entry = json.loads(line)
        found.setdefault(entry["kernel"], []).append(entry)
    return found


def compiled(kernel: str, params: Any) -> Compiled | None:
    """nvcc's SASS of `kernel` at these parameters, or None where none was precomputed."""
    wanted = params.as_strings()
    for entry in _table().get(kernel, []):
        if entry["params"] == wanted:
            lines = tuple((line["line"], line["text"], tuple(line["sass"])) for line in entry["lines"])
            return Compiled(entry["per_iteration"], entry["model"]["per_iteration"], lines)
    return None


def command(kernel: str, params: Any) -> str:
    """The command that compiles these sizes on a machine with nvcc."""
    options = " ".join(
        f"--{OPTION.get(name, name)} {value}" for name, value in params.as_strings().items() if name != "device"
    )
    return f"python -m pysim sass --kernel {kernel} {options} --arch {ARCH}"
