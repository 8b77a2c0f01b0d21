"""#/ladder: every kernel side by side at one N, as a table, speed-of-light bars and a roofline chart.

Every number and sentence comes from pysim (`siboehm_ladder`, `cells`, `speed_of_light`, `why_faster`,
`roofline`); this module lays them out. The charts' scales are drawing, not counting.
"""

from __future__ import annotations

from dataclasses import fields
from math import ceil, floor, log10

from pysim.hardware.params import ParamError
from pysim.lessons.ladder import (
    COLUMNS,
    LadderParams,
    cells,
    format_flops,
    siboehm_ladder,
)
from pysim.lessons.roofline import Roofline, attainable, roofline
from pysim.lessons.speed_of_light import L1TEX_NOTE, SpeedOfLight, speed_of_light, why_faster
from pysim.speed import format_attribute

from ..core.dom import clear, h, svg
from ..core.urlstate import pick
from ..widgets.charts import label, picture
from ..widgets.form import ParamForm

CHART_W, CHART_H = 640, 380
LEFT, RIGHT, TOP, BOTTOM = 88, 16, 20, 44  # LEFT: room for the widest axis label, "100 GFLOP/s"
SOL_W, SOL_NAME, SOL_ROW, SOL_BAR = 520, 220, 22, 14  # speed-of-light bars: width, name column, row, bar height
# The memory level (SPEC §7) of each unit whose bar is one: the FP32 units work on registers; L2 and DRAM serve
# global memory. Instruction issue, latency and L1TEX (it serves shared and global alike) are in none (grey).
UNIT_LEVELS = {"fp32": "register", "l2": "global", "dram": "global"}


class LadderView:
    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.params: LadderParams | None = None
        self.form = ParamForm(LadderParams, self.apply, legend="Problem size N (M = N = K), tile, your register tiling")
        self.device_note = h("p", "device-note", "", data_testid="ladder-device")
        self.head = h("tr", "")
        self.body = h("tbody", "")
        table = h(
            "table",
            "data ladder-table",
            data_testid="ladder-table",
            children=[
                h(
                    "caption",
                    "",
                    "Every kernel at this size (counts exact; DRAM bytes estimated; times: the model's estimate, "
                    "bounds at the rated clock, siboehm's measurements)",
                ),
                h("thead", "", children=[self.head]),
                self.body,
            ],
        )
        scroller = h(
            "div", "table-scroll", tabindex="0", role="region", aria_label="Kernel ladder table", children=[table]
        )
        # A phone draws the roofline at its natural size in this box (phone.css): it scrolls, the keyboard reaches it.
        self.chart = h("div", "roofline", data_testid="roofline", tabindex="0", role="region", aria_label="Roofline")
        self.chart_key = h("ol", "roofline-key", data_testid="roofline-key")
        self.chart_note = h("p", "hint", "")
        self.steps = h("ul", "ladder-steps", data_testid="ladder-steps")
        self.sol = h("div", "speed-of-light", data_testid="speed-of-light")
        container.textContent = ""
        # Picture first: the roofline right under the form, its numbered key beside it on a wide screen
        # (css/picture.css); the table, whose row headings stay in view as it scrolls, after it.
        roofline = h(
            "section",
            "roofline-panel",
            children=[h("h2", "", "Roofline"), self.chart, h("div", "", children=[self.chart_key, self.chart_note])],
        )
        for part in (
            h("div", "toolbar", children=[self.form.element]),
            roofline,
            self.device_note,
            scroller,
            h("section", "", children=[h("h2", "", "Why each step is faster (the model's reading)"), self.steps]),
            h(
                "section",
                "",
                children=[
                    h("h2", "", "Speed of light, per kernel"),
                    h("p", "hint", L1TEX_NOTE, data_testid="sol-l1tex-note"),
                    self.sol,
                ],
            ),
        ):
            container.appendChild(part)
        self.head.appendChild(h("th", "", "Kernel", scope="col"))
        for _, title in COLUMNS:
            self.head.appendChild(h("th", "", title, scope="col"))

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in fields(LadderParams))

    def activate(self, raw: dict[str, str]) -> None:
        if self.params is not None and not set(raw) & set(self.param_names):
            self.write_address()  # a bare link: keep what the reader chose
            return
        try:
            params = LadderParams.parse(pick(raw, self.param_names))
        except ParamError as error:
            self.form.show_error(error)
            if self.params is None:
                self.load(LadderParams())
            self.write_address()
            return
        self.form.clear_error()
        if params != self.params:
            self.load(params)
        self.write_address()

    def apply(self, params: LadderParams) -> None:
        self.form.clear_error()
        self.load(params)
        self.write_address()

    def key(self, event) -> bool:
        return False  # no stepping here: the keyboard is the browser's

    def write_address(self) -> None:
        if self.params is not None:
            self.navigate(self.params.as_strings())

    def load(self, params: LadderParams) -> None:
        self.params = params
        self.form.show(params)
        rungs = siboehm_ladder(params)
        chart = roofline(params, rungs)
        d = chart.device
        facts = {fact.label: fact for fact in d.facts()}
        peak, bandwidth = facts["FP32 peak (no tensor cores)"], facts["DRAM bandwidth"]
        self.device_note.textContent = (
            f"{d.name}: FP32 peak {peak.text} ({peak.source_name}), DRAM bandwidth {bandwidth.text} "
            f"({bandwidth.source_name}). {chart.describe()}"
        )
        clear(self.body)
        for rung in rungs:
            name = h("th", "", scope="row", children=[h("strong", "", rung.label), h("br"), h("span", "", rung.config)])
            row = h("tr", "", data_testid=f"ladder-row-{rung.key}", children=[name])
            if not rung.runs:
                row.appendChild(h("td", "reason", f"Cannot run: {rung.reason}", colspan=str(len(COLUMNS))))
            else:
                name.appendChild(h("br"))
                name.appendChild(h("code", "cli", rung.command(), data_testid=f"ladder-cli-{rung.key}"))
                shown = cells(rung)
                for column, _ in COLUMNS:
                    cell = shown[column]
                    row.appendChild(
                        h("td", "num", cell.text, data_testid=f"ladder-{rung.key}-{column}", data_value=cell.value)
                    )
            self.body.appendChild(row)
        clear(self.steps)
        for step in why_faster(rungs):
            self.steps.appendChild(h("li", "", step.text, data_testid=f"ladder-step-{step.high}"))
        clear(self.sol)
        for rung in rungs:
            found = speed_of_light(rung)
            if found is not None:
                self.sol.appendChild(self.draw_sol(found))
        self.draw_chart(chart)

    @staticmethod
    def draw_sol(found: SpeedOfLight):
        """One kernel's bars: each unit's share of its peak, 0 to 100%; the limiter bold and marked in words."""
        height = len(found.bars) * SOL_ROW + 8
        drawing = picture(SOL_W, height, found.description)
        room = SOL_W - SOL_NAME - 48
        for i, bar in enumerate(found.bars):
            y = 4 + i * SOL_ROW
            cls = "sol-bar sol-limiter" if bar.limiter else "sol-bar"
            drawing.appendChild(svg("text", "sol-limiter" if bar.limiter else "", text=bar.label, x="4", y=f"{y + 12}"))
            drawing.appendChild(
                svg("rect", "sol-track", x=str(SOL_NAME), y=str(y), width=str(room), height=str(SOL_BAR))
            )
            drawing.appendChild(
                svg(
                    "rect",
                    cls,
                    x=str(SOL_NAME),
                    y=str(y),
                    width=f"{max(bar.share * room, 1):.1f}",
                    height=str(SOL_BAR),
                    data_unit=bar.unit,
                    data_share=format_attribute(bar.share),
                    **({"data_level": UNIT_LEVELS[bar.unit]} if bar.unit in UNIT_LEVELS else {}),
                )
            )
            drawing.appendChild(svg("text", text=bar.text, x=f"{SOL_NAME + room + 6}", y=f"{y + 12}"))
        return h(
            "figure",
            "sol",
            data_testid=f"sol-{found.key}",
            data_limiter=found.limiter,
            children=[
                h("figcaption", "", found.title),
                # A phone draws the bars at their natural size in this box (phone.css): it scrolls, the keyboard
                # reaches it (shrunk to the screen, their labels printed at 8.6 px).
                h("div", "chart", children=[drawing], tabindex="0", role="region", aria_label=found.title),
            ],
        )

    @staticmethod
    def draw_tensor_roof(drawing, chart: Roofline, sx, sy, x0: float, x1: float) -> None:
        """The second roof (dense TF32 on the tensor cores, dashed where it is no bound) and cuBLAS TF32 measured."""
        tensor = chart.tensor
        assert tensor is not None
        ridge = tensor.peak / chart.bandwidth  # FLOP per byte where the DRAM slope meets the tensor roof
        corners = [x0, ridge, x1] if x0 < ridge < x1 else [x0, x1]
        top = lambda x: min(tensor.peak, chart.bandwidth * x)  # noqa: E731 - the same roofline, the tensor peak
        path = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(top(x)):.1f}" for i, x in enumerate(corners))
        kind = "bound" if tensor.bound else "not-bound"
        drawing.appendChild(
            svg("path", f"roof tensor-roof {kind}", d=path, data_testid="tensor-roof", data_peak=repr(tensor.peak))
        )
        words = f"TF32 tensor roof {format_flops(tensor.peak)}" + ("" if tensor.bound else " (no bound here)")
        drawing.appendChild(label(words, CHART_W - RIGHT, sy(tensor.peak) - 6, LEFT, CHART_W - RIGHT, anchor="end"))
        if tensor.cublas is not None:
            y = sy(tensor.cublas.gflops * 1e9)
            drawing.appendChild(
                svg(
                    "line",
                    "cublas-mark",
                    x1=str(LEFT),
                    y1=f"{y:.1f}",
                    x2=str(CHART_W - RIGHT),
                    y2=f"{y:.1f}",
                    data_testid="cublas-tf32",
                    data_measured=repr(tensor.cublas.gflops * 1e9),
                )
            )
            text = f"cuBLAS TF32, measured {format_flops(tensor.cublas.gflops * 1e9)}"
            drawing.appendChild(label(text, LEFT + 6, y + 14, LEFT, CHART_W - RIGHT))

    def draw_chart(self, chart: Roofline) -> None:
        points = chart.points
        xs = [p.intensity for p in points] + [chart.ridge]
        tensor = chart.tensor
        roofs = [chart.peak] + ([] if tensor is None else [tensor.peak])
        cublas = [] if tensor is None or tensor.cublas is None else [tensor.cublas.gflops * 1e9]
        ys = [y for p in points for y in (p.estimate, p.measured) if y is not None] + roofs + cublas
        x0, x1 = 10 ** floor(log10(min(xs))), 10 ** ceil(log10(max(xs)) + 1e-9)
        y0, y1 = 10 ** floor(log10(min(ys))), 10 ** ceil(log10(max(ys)) + 1e-9)
        sx = lambda x: LEFT + (log10(x) - log10(x0)) / (log10(x1) - log10(x0)) * (CHART_W - LEFT - RIGHT)  # noqa: E731
        sy = lambda y: CHART_H - BOTTOM - (log10(y) - log10(y0)) / (log10(y1) - log10(y0)) * (CHART_H - TOP - BOTTOM)  # noqa: E731
        roof = lambda x: attainable(chart.device, x)  # noqa: E731 - pysim's roofline
        title = (
            f"Roofline of the {chart.device.name}: each kernel's estimated FLOP/s (circles) and a published "
            "measurement of it on this card where one exists (diamonds: hollow for a calibration point the model was "
            "fitted to, crossed for an out-of-sample one) against FLOP per DRAM byte under the speed model's cache "
            "model, log scales"
        )
        drawing = picture(CHART_W, CHART_H, title)
        base = CHART_H - BOTTOM
        for exponent in range(round(log10(x0)), round(log10(x1)) + 1):
            x = sx(10**exponent)
            drawing.appendChild(svg("line", "grid", x1=f"{x:.1f}", y1=str(TOP), x2=f"{x:.1f}", y2=str(base)))
            # Low enough to clear the lowest FLOP/s label, which ends at the axis (they printed over each other).
            drawing.appendChild(label(_power(exponent), x, base + 20, 0, CHART_W, anchor="middle"))
        for exponent in range(round(log10(y0)), round(log10(y1)) + 1):
            y = sy(10**exponent)
            drawing.appendChild(
                svg("line", "grid", x1=str(LEFT), y1=f"{y:.1f}", x2=str(CHART_W - RIGHT), y2=f"{y:.1f}")
            )
            drawing.appendChild(
                svg("text", text=format_flops(10**exponent), x=str(LEFT - 6), y=f"{y + 4:.1f}", text_anchor="end")
            )
        drawing.appendChild(svg("line", "axis", x1=str(LEFT), y1=str(base), x2=str(CHART_W - RIGHT), y2=str(base)))
        drawing.appendChild(svg("line", "axis", x1=str(LEFT), y1=str(TOP), x2=str(LEFT), y2=str(base)))
        corners = [x0, chart.ridge, x1] if x0 < chart.ridge < x1 else [x0, x1]
        path = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(roof(x)):.1f}" for i, x in enumerate(corners))
        drawing.appendChild(svg("path", "roof", d=path, data_testid="roof"))
        drawing.appendChild(svg("circle", "ridge", cx=f"{sx(chart.ridge):.1f}", cy=f"{sy(chart.peak):.1f}", r="4"))
        # The roof's name above its flat part at the right, the ridge's under the roof beside its point: two rows,
        # so they never print over each other (on the default A100 they did, the ridge near the right edge).
        roof_label = f"FP32 roof {format_flops(chart.peak)}"
        drawing.appendChild(label(roof_label, CHART_W - RIGHT, sy(chart.peak) - 6, LEFT, CHART_W - RIGHT, anchor="end"))
        drawing.appendChild(
            label(f"ridge {chart.ridge:.3g} FLOP/byte", sx(chart.ridge) + 8, sy(chart.peak) + 16, LEFT, CHART_W - RIGHT)
        )
        if tensor is not None:
            self.draw_tensor_roof(drawing, chart, sx, sy, x0, x1)
        clear(self.chart_key)
        placed: list[tuple[float, float, float, float]] = []  # the point numbers' boxes so far
        for point in points:
            x, y, colour = sx(point.intensity), sy(point.estimate), f"kernel-{point.number - 1}"  # the row's colour
            data = {"data_key": point.key, "data_intensity": format_attribute(point.intensity)}
            drawing.appendChild(
                svg(
                    "circle",
                    f"estimate-mark {colour}",
                    cx=f"{x:.1f}",
                    cy=f"{y:.1f}",
                    r="5",
                    data_estimate=format_attribute(point.estimate),
                    **data,
                )
            )
            if point.measured is not None:  # a hollow diamond over the circle: shape, not colour, tells them apart
                my = sy(point.measured)
                drawing.appendChild(
                    svg("line", f"estimate-gap {colour}", x1=f"{x:.1f}", y1=f"{y:.1f}", x2=f"{x:.1f}", y2=f"{my:.1f}")
                )
                # Calibration or out-of-sample: a class for the colour and a second cue in the shape (a cross
                # through an out-of-sample diamond), and the key's words say which.
                role = "calibration" if point.calibration else "out-of-sample"
                cross = "" if point.calibration else f" M{x - 8:.1f},{my:.1f} h16 M{x:.1f},{my - 8:.1f} v16"
                drawing.appendChild(
                    svg(
                        "path",
                        f"measured-mark {role} {colour}",
                        d=f"M{x:.1f},{my - 8:.1f} l8,8 l-8,8 l-8,-8 z{cross}",
                        data_measured=repr(point.measured),
                        data_role=role,
                        **data,
                    )
                )
            nx, ny, anchor = number_place(str(point.number), x, y, placed)
            number = svg("text", "point-number", text=str(point.number), x=f"{nx:.1f}", y=f"{ny:.1f}")
            number.setAttribute("text-anchor", anchor)
            drawing.appendChild(number)
            swatch = h("span", f"swatch {colour}", aria_hidden="true")
            self.chart_key.appendChild(
                h(
                    "li",
                    "",
                    children=[swatch, h("span", "", point.describe())],
                    value=str(point.number),
                    data_key=point.key,
                )
            )
        drawing.appendChild(
            label(
                "arithmetic intensity (FLOP per DRAM byte under the speed model's cache model)",
                (LEFT + CHART_W) / 2,
                CHART_H - 8,
                0,
                CHART_W,
                anchor="middle",
            )
        )
        clear(self.chart)
        self.chart.appendChild(drawing)
        self.chart_note.textContent = (
            "Numbers on the chart match the list and the table's rows: 1 is the first row. A circle is the model's "
            "estimate; a diamond, joined to it by a line, is a published measurement of that kernel on this card at "
            "this N, drawn at the model's intensity: hollow where the model was fitted to it (calibration), crossed "
            "where nothing was fitted to it (out-of-sample: the model's real error)."
        )


NUMBER_SPOTS = (
    (-8, 4, "end"),
    (8, 4, "start"),
    (0, -9, "middle"),
    (0, 17, "middle"),
    (-8, -9, "end"),
    (8, 17, "start"),
)


def number_place(text: str, x: float, y: float, placed: list) -> tuple[float, float, str]:
    """Where a point's number goes: left of it unless an earlier number is there, then right, above, below
    (points 5-7 on the default A100 sit a few pixels apart). Boxes are estimated at 7 px a digit, 11 px tall."""
    width = 7 * len(text)
    for dx, dy, anchor in NUMBER_SPOTS:
        left = x + dx - {"end": width, "start": 0, "middle": width / 2}[anchor]
        box = (left, y + dy - 10, left + width, y + dy + 1)
        if all(box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in placed):
            placed.append(box)
            return x + dx, y + dy, anchor
    placed.append((x - 8 - width, y - 6, x - 8, y + 5))
    return x - 8, y + 4, "end"


def _power(exponent: int) -> str:
    return f"{10.0**exponent:g}" if -3 <= exponent <= 4 else f"1e{exponent}"
