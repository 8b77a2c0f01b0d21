"""The device panel: a preset's hardware facts with their sources, the bound on the run shown (no run at the
rated clock is faster: FP32 peak, compulsory DRAM traffic; one global round trip, an estimate) and the speed
model's estimate.

Every number and sentence comes from pysim (`Device.facts()`, `TimeBound`, `estimate_note`); this
module only puts them on the page. Only the bound is called a bound; the estimate says it is one.
The table is rebuilt when the device changes, the texts on every call.
"""

from __future__ import annotations

from pysim.hardware.devices import Device, device
from pysim.lessons.speed_of_light import estimate_note
from pysim.speed import TimeBound, time_bound_for

from ..core.dom import clear, h

FACT_COLUMNS = ("Figure", "Value", "Source", "Note")


class DevicePanel:
    """data-testid="device-facts" (the table), "time-bound" (data-value: the bound in seconds) and
    "speed-estimate" (data-value: the model's estimate in seconds, hidden for a kernel it has no profile of)."""

    def __init__(self) -> None:
        self.caption = h("caption", "", "")
        self.rows = h("tbody", "")
        head = h("tr", "", children=[h("th", "", name, scope="col") for name in FACT_COLUMNS])
        self.table = h(
            "table",
            "data device-facts",
            tabindex="0",
            data_testid="device-facts",
            children=[self.caption, h("thead", "", children=[head]), self.rows],
        )
        self.bound = h("p", "time-bound", "", data_testid="time-bound", data_value="")
        self.bound_heading = h("h3", "", "")  # a bound, or a floor that is an estimate (TimeBound.heading)
        self.caveat = h("p", "hint", "")
        self.estimate = h("p", "speed-estimate", "", data_testid="speed-estimate", data_value="", hidden=True)
        # Behind a summary line (issue 39): a reference table mid-lesson pushed the lesson down; the line names
        # the device and the bound, and opens the table with its sources.
        self.heading = h("span", "", "Device, time bound and estimate")
        self.element = h(
            "details",
            "device-panel",
            data_testid="device-panel",
            children=[
                h("summary", "", children=[h("h2", "", children=[self.heading])]),
                self.table,
                self.bound_heading,
                self.bound,
                self.caveat,
                self.estimate,
            ],
        )
        self.shown_key: str | None = None

    def show_run(self, kernel, params) -> None:
        """The chosen device's figures and the time bound of the whole run of `kernel` at `params` on it."""
        preset = device(params.device)
        totals = kernel.counters(params)
        bound = time_bound_for(preset, totals, params.M, params.N, params.K, kernel.tensor_flops(params, totals))
        self.show(preset, bound, estimate_note(kernel.NAME, params))

    def show(self, device: Device, bound: TimeBound, estimate: tuple[str, str] = ("", "")) -> None:
        """`estimate`: pysim.lessons.speed_of_light.estimate_note's (text, exact seconds); ('', '') shows nothing."""
        if device.key != self.shown_key:
            self._facts(device)
            self.shown_key = device.key
            self.heading.textContent = f"Device ({device.name}), time bound and estimate"
        self.bound_heading.textContent = bound.heading()
        self.bound.textContent = f"{bound.summary()} {bound.regime()}"
        self.caveat.textContent = bound.caveat()
        if bound.caveat():
            self.caveat.removeAttribute("hidden")
        else:
            self.caveat.setAttribute("hidden", "")
        self.bound.setAttribute("data-value", repr(bound.seconds))
        text, value = estimate
        self.estimate.textContent = text
        self.estimate.setAttribute("data-value", value)
        if text:
            self.estimate.removeAttribute("hidden")
        else:
            self.estimate.setAttribute("hidden", "")

    def _facts(self, device: Device) -> None:
        self.caption.textContent = (
            f"{device.name}: published figures, each with its source; notes say which are computed or borrowed"
        )
        clear(self.rows)
        for fact in device.facts():
            link = h("a", "", fact.source_name, href=fact.source, rel="noopener noreferrer", target="_blank")
            self.rows.appendChild(
                h(
                    "tr",
                    "",
                    children=[
                        h("th", "", fact.label, scope="row"),
                        h("td", "", fact.text),
                        h("td", "", children=[link]),
                        h("td", "text", fact.note or "—"),  # prose: it wraps (css), the table fits
                    ],
                )
            )
