"""nvdisasm -g's text read back: each instruction with its address, opcode, listing line and branch target.

A line of the text is a label (`.L_x_3:`), a line-info comment (`//## File "...", line 12`) that holds for
the instructions after it, or an instruction (`/*0230*/  @!P2 LDS.128 R8, [R17+0x10] ;`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LABEL = re.compile(r"^\s*(\.L_x_\d+):")
LINE = re.compile(r'^\s*//## File ".*", line (\d+)')
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
BRANCH_TARGET = re.compile(r"`?\(?(\.L_x_\d+)\)?")


@dataclass(frozen=True)
class Instruction:
    address: int
    opcode: str  # with its modifiers: "LDS.128", "LDG.E.128.CONSTANT", "BAR.SYNC.DEFER_BLOCKING"
    text: str  # as printed, predicate and operands included
    line: int  # the listing line it came from (0 when the compiler recorded none)
    target: int | None = None  # a branch's destination address


def parse(text: str) -> list[Instruction]:
    """The instructions of the text, in address order (one kernel per compile)."""
    labels: dict[str, int] = {}
    raw: list[tuple[int, str, str, int, str | None]] = []
    pending: list[str] = []
    line = 0
    for row in text.splitlines():
        if match := LABEL.match(row):
            pending.append(match.group(1))
        elif match := LINE.match(row):
            line = int(match.group(1))
        elif match := INSTRUCTION.match(row):
            address = int(match.group(1), 16)
            for name in pending:
                labels[name] = address
            pending = []
            predicate, opcode, operands = match.group(2) or "", match.group(3), match.group(4).strip()
            target = BRANCH_TARGET.search(operands) if opcode.startswith("BRA") else None
            shown = f"{predicate}{opcode} {operands}".strip()
            raw.append((address, opcode, shown, line, target.group(1) if target else None))
    return [
        Instruction(address, opcode, shown, line, labels.get(target) if target else None)
        for address, opcode, shown, line, target in raw
    ]
