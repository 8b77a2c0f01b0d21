"""The register view's explanations (arithmetic intensity and the register wall, the outer
product drawn, real GPUs, what each step buys): fill site/partials/register-explain.html.

`slot_values` and `shown` are pure (tested in CPython against the template's defaults); the
two drawings import the DOM helpers only when drawn, so this module imports in CPython too.
"""

from __future__ import annotations

from pysim.core import placement
from pysim.core.instructions import KEPT_LOOP_TOTAL, instruction_class, loop_length, widths_unsure
from pysim.hardware.params import RegisterParams
from pysim.hardware.registers import MAX_REGISTERS_PER_THREAD, OVERHEAD_ESTIMATE, RegisterBudget
from pysim.kernels import KERNELS
from pysim.lessons import comparison, explain

from ..core import slots

NOT_COUNTED = "—"  # a counter a kernel does not model (register reads outside the register kernel)
PATCH_PICTURE_MAX = 240  # px: the larger side of the outer-product picture's patch
PICTURE_WIDTH = 520  # px of viewBox, as charts.line_chart and the walkthrough pictures


def slot_values(p: RegisterParams) -> dict[str, object]:
    """Every slot of the template: ints are exact counts (slots.fill adds separators), str is text."""
    n = explain.register(p)
    prod = explain.Production()
    wall = explain.register_wall()
    mine = RegisterBudget(p.TM, p.TN)
    values: dict[str, object] = {
        "M": p.M,
        "N": p.N,
        "K": p.K,
        "TM": p.TM,
        "TN": p.TN,
        "reads": n.intensity.shared_reads,
        "fmas": n.intensity.fmas,
        "per_read": f"{n.intensity.fma_per_read:.2f}",
        "my_registers": mine.total,
        "limit": MAX_REGISTERS_PER_THREAD,
        "overhead": OVERHEAD_ESTIMATE,
        "wall": wall,
        "wall_registers": RegisterBudget(wall, wall).total,
        "executed_fma": n.counters.fma,
        "useful_fma": n.useful_fma,
        "padding_fma": n.padding_fma,
        "global_loads": n.counters.global_loads,
        "global_bytes": n.global_bytes,
        "useful_flops": n.useful_flops,
        "flops_per_byte": f"{n.flops_per_byte:.2f}",
        "m_degree": n.m_read.degree,
        "n_degree": n.n_read.degree,
        "m_instr": instruction_class("LDS", n.m_width),
        "n_instr": instruction_class("LDS", n.n_width),
        "loop_length": loop_length(KERNELS["register"], p),
        "kept_loop_total": KEPT_LOOP_TOTAL,
        "placement": placement.unsure(KERNELS["register"], p),
        "row_stride": n.row_stride,
        "rows_per_bank": n.rows_per_bank,
        "cols_per_bank": n.cols_per_bank,
        "bank_cycles": n.counters.bank_extra_cycles,
        "m_cycles": n.bank_cycles("regM"),
        "n_cycles": n.bank_cycles("regN"),
        "copy_cycles": n.bank_cycles("copies"),
        "prod_block": prod.block_tile,
        "prod_tile": prod.thread_tile,
        "prod_threads": prod.threads,
        "prod_reads": prod.intensity.shared_reads,
        "prod_fmas": prod.intensity.fmas,
        "prod_per_read": f"{prod.intensity.fma_per_read:.2f}",
        "prod_registers": prod.budget.total,
        "prod_share": f"{prod.share_of_cublas:.0%}",
        "big_tile": 2 * prod.thread_tile,
        "big_accumulators": prod.doubled.accumulators,
        "big_fragments": prod.doubled.fragments,
        "big_registers": prod.doubled.total,
    }
    for i, row in enumerate(explain.intensity_rows(p)):
        values |= {
            f"i{i}_label": row.label,
            f"i{i}_reads": row.intensity.shared_reads,
            f"i{i}_fmas": row.intensity.fmas,
            f"i{i}_per_read": f"{row.intensity.fma_per_read:.2f}",
            f"i{i}_registers": row.budget.total,
            f"i{i}_fits": "yes" if row.budget.fits else f"no: over {MAX_REGISTERS_PER_THREAD}",
        }
    table = comparison.compare(p)
    values["compare_note"] = table.T_note
    for row in table.rows:
        values[f"{row.kernel}_label"] = row.label + (f" (cannot run: {row.reason})" if row.counters is None else "")
        for name in comparison.COMPARED:
            values[f"{row.kernel}_{name}"] = _cell(row, name)
    return values


def _cell(row: comparison.Row, name: str) -> int | str:
    if row.counters is None or (name == "register_reads" and row.kernel != "register"):
        return NOT_COUNTED
    return getattr(row.counters, name)


def shown(p: RegisterParams) -> dict[str, bool]:
    """Which alternative sentences (`data-show="name"`) are visible for these sizes."""
    n = explain.register(p)
    return {
        "over-wall": not RegisterBudget(p.TM, p.TN).fits,
        "m-conflict": n.m_read.degree > 1,
        "n-conflict": n.n_read.degree > 1,
        "any-conflict": n.counters.bank_extra_cycles > 0,
        "padding": n.padding_fma > 0,
        "widths-unsure": widths_unsure(KERNELS["register"], p),
        "widths-placed": not widths_unsure(KERNELS["register"], p) and bool(placement.unsure(KERNELS["register"], p)),
    }


def show(root, params: RegisterParams) -> None:
    """Fill the explanations under `root` (the view's <section id="view-register">) for `params`."""
    values = slot_values(params)
    slots.fill(root, values)
    for name, value in values.items():
        if value == NOT_COUNTED:  # an empty data-value says "no number here" to tests and tools
            for node in _all(root, f'[data-slot="{name}"]'):
                node.setAttribute("data-value", "")
    for name, visible in shown(params).items():
        slots.show(root, f'[data-show="{name}"]', visible)
    banks = root.querySelector('[data-testid="register-banks"]')
    banks.setAttribute("data-degree", str(values["m_degree"]))
    _replace(root.querySelector('[data-testid="intensity-chart"]'), intensity_chart(params))
    _replace(root.querySelector('[data-testid="outer-product-picture"]'), outer_product_picture(params.TM, params.TN))


def _all(root, selector: str) -> list:
    nodes = root.querySelectorAll(selector)
    return [nodes.item(i) for i in range(nodes.length)]


def _replace(container, drawing) -> None:
    from ..core.dom import clear

    clear(container)
    container.appendChild(drawing)


def intensity_chart(p: RegisterParams):
    """FMAs per shared read against TM = TN, with the register wall shaded and labelled."""
    from ..widgets import charts

    # The wall starts halfway between the last TM = TN that fits and the first that does not,
    # as the walkthrough's thread and shared-memory walls do.
    wall = explain.register_wall()
    return charts.line_chart(
        explain.intensity_points(),
        "FMAs per shared read against TM = TN, with the register wall",
        "TM = TN",
        "FMAs per shared read",
        highlight=float(p.TM) if p.TM == p.TN and p.TM in explain.INTENSITY_SWEEP else None,
        walls=[(wall - 0.5, float(explain.INTENSITY_SWEEP[-1]), f"> {MAX_REGISTERS_PER_THREAD} registers")],
    )


def outer_product_picture(TM: int, TN: int):
    """regM (a TM-long column) × regN (a TN-long row) → the TM×TN patch of threadResults, every cell labelled."""
    from ..core.dom import svg
    from ..widgets import charts

    cell = max(4, min(36, PATCH_PICTURE_MAX // max(TM, TN)))
    labelled = cell >= 24  # room for "i,j" inside a cell
    left, top, gap = 70, 40, 14
    patch_x, patch_y = left + cell + gap, top + cell + gap
    # As wide as the other pictures, so its text renders at the same size (.picture scales to its box).
    width, height = max(patch_x + TN * cell + 20, PICTURE_WIDTH), patch_y + TM * cell + 24
    drawing = charts.picture(
        width, height, f"Outer product: regM ({TM} values) times regN ({TN} values) gives one {TM}×{TN} patch"
    )
    drawing.appendChild(svg("text", text=f"regM[{TM}]", x="4", y=f"{patch_y - 4}"))
    drawing.appendChild(svg("text", text=f"regN[{TN}]", x=f"{patch_x}", y=f"{top - 6}"))
    drawing.appendChild(svg("text", text="×", x=f"{left + 2}", y=f"{top + cell - 6}"))
    for i in range(TM):
        drawing.appendChild(svg("rect", "row-hot", x=f"{left}", y=f"{patch_y + i * cell}", width=cell, height=cell))
        if labelled:
            drawing.appendChild(svg("text", text=str(i), x=f"{left + 4}", y=f"{patch_y + i * cell + cell // 2 + 4}"))
    for j in range(TN):
        drawing.appendChild(svg("rect", "lane-hit", x=f"{patch_x + j * cell}", y=f"{top}", width=cell, height=cell))
        if labelled:
            drawing.appendChild(svg("text", text=str(j), x=f"{patch_x + j * cell + 4}", y=f"{top + cell // 2 + 4}"))
    for i in range(TM):
        for j in range(TN):
            x, y = patch_x + j * cell, patch_y + i * cell
            drawing.appendChild(svg("rect", "tile-box", x=f"{x}", y=f"{y}", width=cell, height=cell))
            if labelled:
                drawing.appendChild(svg("text", text=f"{i},{j}", x=f"{x + 2}", y=f"{y + cell // 2 + 4}"))
    caption = f"threadResults[{TM}×{TN}]: {TM * TN} FMAs per dotIdx, one per cell"
    drawing.appendChild(svg("text", text=caption, x="4", y=f"{height - 6}"))
    return drawing
