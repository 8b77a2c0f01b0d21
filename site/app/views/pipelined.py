"""#/pipelined: warptiling fed by cp.async (pysim/kernels/k11_pipelined.py), stepped like #/warptile.

The grids, the warp marks and the monitor are #/warptile's (As and Bs are drawn with all their stages
stacked, the warp marks in the stage computed now: k11.warp_regions). Beside them, the pipeline's
timeline (widgets/pipeline.py, pysim.lessons.pipelined.timeline).
"""

from __future__ import annotations

from pysim.kernels import KERNELS, k11_pipelined
from pysim.lessons import pipelined

from ..core import slots
from ..widgets.pipeline import PIPE_KEY, PipelineTimeline
from .blocktiled import KEY, WARP_KEY, WarptileView


class PipelinedView(WarptileView):
    kernel = KERNELS["pipelined"]
    legend_entries = KEY + WARP_KEY + PIPE_KEY
    counter_names = (*WarptileView.counter_names, "async_copy_bytes")
    warp_regions = staticmethod(k11_pipelined.warp_regions)

    def build_panels(self, stage) -> None:
        super().build_panels(stage)
        self.timeline = PipelineTimeline(k11_pipelined)
        stage.appendChild(self.timeline.element)

    def load_panels(self) -> None:
        super().load_panels()
        self.timeline.build(self.params)

    def captions(self) -> dict[str, str]:
        p, found = self.params, super().captions()
        found["As"] = (
            f"As [{p.stages}·{p.BK}][{p.BM}]: {p.stages} stages, A transposed by 4-byte copies (row dotIdx → regM)"
        )
        found["Bs"] = f"Bs [{p.stages}·{p.BK}][{p.BN}]: {p.stages} stages (row dotIdx → regN)"
        return found

    def explain(self) -> None:
        slots.fill(self.explained, pipelined.slot_values(self.params))
        for name, visible in pipelined.shown(self.params).items():
            slots.show(self.explained, f'[data-show="{name}"]', visible)

    def render(self, step) -> None:
        super().render(step)
        self.timeline.show(self.params, step)
