"""#/wgmma: SGEMM on Hopper, TMA + wgmma (pysim/kernels/k13_wgmma.py), stepped like #/mma.

The grids and the monitor are the blocktiled views' (As and Bs drawn with every stage stacked, each element where
the TMA's 128-byte swizzle puts it; B's grid shows the Bt the kernel reads). Beside them, all from
pysim.lessons.wgmma: which rows of the block's C tile each consumer warpgroup's warps hold (wgmma's D map) and
where the followed thread's accumulators lie, one 1,024-byte atom of the swizzle (which 16-byte chunk lands where,
its banks, a core matrix's wavefronts with and without it), the tensor-core FLOPs so far, and the
producer/consumer timeline (widgets/pipeline.py on pysim.lessons.wgmma's rounds). Tables are built once per size;
a step writes a few texts and moves the timeline's marks.
"""

from __future__ import annotations

from pysim.kernels import KERNELS, k13_wgmma
from pysim.lessons import wgmma

from ..core.dom import h
from ..widgets.pipeline import PipelineTimeline
from .blocktiled import BlocktiledView


class WgmmaView(BlocktiledView):
    kernel = KERNELS["wgmma"]
    legend_entries = (("followed", "in use now by the followed thread"), *wgmma.PIPE_KEY)
    counter_names = (
        "global_loads",
        "global_sectors",
        "tma_bytes",
        "mbarrier_waits",
        "mma_instructions",
        "barriers",
        "global_stores",
    )
    xy_heading = "(thread,warpgroup)"

    def thread_label(self, thread: int) -> str:
        tid, group = self.kernel.thread_xy(self.params, thread)
        return f"thread {tid}, warpgroup {group}"

    def build_panels(self, stage) -> None:
        super().build_panels(stage)
        # This route's pictures come first, above the grids: at the smallest tiles wgmma takes (a 64-row m64
        # tile, 32-float rows) As, Bs and C are canvases thousands of pixels tall, and the lesson is the pipeline.
        first = stage.firstChild

        def place(section) -> None:
            stage.insertBefore(section, first)

        self.timeline = PipelineTimeline(k13_wgmma, wgmma)
        place(self.timeline.element)
        heading = h("h2", "", "Shared memory: the 128-byte swizzle of one 1,024-byte atom")
        place(
            h(
                "section",
                "swizzle-panel",
                data_testid="swizzle-atom",
                data_level="shared",
                children=[heading, self.swizzle_table(), self.swizzle_text()],
            )
        )
        self.owner_table = h("table", "data", tabindex="0", data_testid="warpgroup-tile", data_level="register")
        self.owner_text = h("p", "", "", data_testid="thread-accumulators", aria_live="polite")
        heading = h("h2", "", "The warpgroup's tile: who holds which rows of C")
        place(h("section", "warpgroup-panel", children=[heading, self.owner_table, self.owner_text]))
        self.flops = h("p", "", "", data_testid="tensor-flops")
        place(h("section", "tensor-panel", children=[h("h2", "", "Tensor cores, TMA and barriers"), self.flops]))

    def swizzle_table(self):
        """Row r, physical chunk c: the logical chunk the TMA put there (c XOR r), and its banks."""
        table = h("table", "data swizzle", tabindex="0")
        table.appendChild(h("caption", "", "Each cell: the 16-byte chunk (4 floats) of the row stored there"))
        head = [h("th", "", "row", scope="col")]
        head += [h("th", "", f"banks {wgmma.banks_of(c)}", scope="col") for c in range(wgmma.CHUNKS)]
        table.appendChild(h("thead", "", children=[h("tr", "", children=head)]))
        body = h("tbody", "")
        for r, chunks in enumerate(wgmma.swizzle_atom()):
            cells = [h("th", "", str(r), scope="row")]
            cells += [h("td", "num", f"chunk {int(c)}", data_value=str(int(c))) for c in chunks]
            body.appendChild(h("tr", "", children=cells))
        table.appendChild(body)
        return table

    def swizzle_text(self):
        plain, swizzled = (wgmma.core_matrix_wavefronts(0, s) for s in (False, True))
        return h(
            "p",
            "",
            f"A wgmma core matrix is 8 rows × one chunk: unswizzled its 8 rows sit in the same 4 banks "
            f"({plain} wavefronts); swizzled they meet all 32 banks ({swizzled} wavefront).",
            data_testid="swizzle-wavefronts",
        )

    def load_panels(self) -> None:
        super().load_panels()
        self.timeline.build(self.params)
        self.owner_table.textContent = ""
        self.owner_table.appendChild(h("caption", "", "Rows of the block's C tile and the warp whose lanes hold them"))
        head = [h("th", "", "rows", scope="col"), h("th", "", "held by", scope="col")]
        self.owner_table.appendChild(h("thead", "", children=[h("tr", "", children=head)]))
        body = h("tbody", "")
        for rows, who in wgmma.owners(self.params):
            body.appendChild(h("tr", "", children=[h("th", "", rows, scope="row"), h("td", "", who)]))
        self.owner_table.appendChild(body)

    def captions(self) -> dict[str, str]:
        return wgmma.captions(self.params)

    def explain(self) -> None:
        """No partial of its own yet: the route's prose is the narration and the panels."""

    def load_thread(self) -> None:
        super().load_thread()
        self.owner_text.textContent = wgmma.thread_cells_text(self.params, self.thread)

    def step_marks(self, step, arrays: tuple[str, ...]) -> dict[str, dict]:
        """The base class's marks; the TMA reads Bt (N×K), drawn on B's grid at the transposed cells."""
        targets = super().step_marks(step, (*arrays, "Bt"))
        for (n, k), classes in targets.pop("Bt").items():
            targets["B"][k, n] = f"{targets['B'][k, n]} {classes}" if (k, n) in targets["B"] else classes
        return targets

    def render(self, step) -> None:
        super().render(step)
        self.flops.textContent = wgmma.flops_text(self.params, step.counters)
        self.flops.setAttribute("data-value", str(wgmma.tensor_flops(self.params, step.counters)))
        self.timeline.show(self.params, step)
