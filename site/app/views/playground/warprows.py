"""The playground's table of warp instructions: a heading row per source line, then a row per instruction
(pysim.play.instructions lists them by line, then by warp)."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.dom import h


def grouped_rows(instructions) -> Iterator:
    """The table's rows: pysim lists the instructions by line, then warp; a heading row opens each line."""
    lines = None
    for number, instruction in enumerate(instructions):
        if instruction.lines != lines:
            lines = instruction.lines
            where = ", ".join(str(n) for n in lines)
            yield h("tr", "warp-group", children=[h("th", "", f"line {where}", colspan="6", scope="rowgroup")])
        yield warp_row(instruction, number)


def warp_row(instruction, row: int):
    """One warp instruction: its line(s), what it is, its warp and lanes, and what it costs (pysim's count)."""
    what = f"{instruction.op} {instruction.space} {instruction.array} (#{instruction.occurrence + 1})"
    if instruction.is_global:
        verdict = f"{instruction.count} sector(s) of 32 bytes"
        detail = "coalesced" if instruction.ok else "scattered: more sectors than a warp's 32 floats need"
    else:
        verdict = "no conflict" if instruction.ok else f"{instruction.count}-way bank conflict"
        detail = (
            f"{instruction.banks_used} bank(s) used; bank {instruction.busiest_bank} serves "
            f"{instruction.busiest_words} different word(s)"
            + (f"; {instruction.broadcast_words} word(s) broadcast" if instruction.broadcast_words else "")
        )
    cls = "ok" if instruction.ok else "bad"
    return h(
        "tr",
        f"warp-row {cls}",
        data_row=str(row),
        children=[
            h("td", "num", ", ".join(str(n) for n in instruction.lines)),
            h("td", "", what),
            h("td", "num", str(instruction.warp)),
            h("td", "num", str(instruction.active)),
            h("td", f"verdict {cls}", verdict),
            h("td", "", detail),
        ],
    )
