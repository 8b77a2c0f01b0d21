"""Reusable view pieces: counter board, code panel, verify badge, arrows, legend, panels.

Each builds its elements once and afterwards changes only what differs from
what it shows (text of a counter, class of a cell, highlighted code lines).
"""

from __future__ import annotations

from collections.abc import Iterable

from pysim.core.counters import COUNTER_LABELS, Counters
from pysim.core.trace import Filling
from pysim.core.words import count, plural

from ..core.dom import h, svg, thousands

Rect = tuple[float, float, float, float]  # left, top, width, height in viewport pixels

COUNTER_NOTES = {
    "global_loads": "element loads from global memory (the L1 cache, which holds global loads on compute capability 7.0 and later, and L2 may serve them: not the same as DRAM reads)",
    "global_stores": "elements written to global memory (C), only inside the matrix",
    "shared_loads": "shared-memory elements read by every launched thread",
    "shared_stores": "shared-memory elements written per tile step, zero-fills included",
    "register_reads": "register operands read by the multiply-adds: regM[i] and regN[j], two per FMA",
    "fma": "multiply-adds executed by every launched thread, those on zero-filled padding included",
    "barriers": "__syncthreads() executed, counted once per block",
    "global_sectors": "32-byte sectors touched by warp-wide global loads, summed over the load instructions",
    "bank_extra_cycles": "cycles lost to shared-memory bank conflicts: the conflict degree minus 1 per warp access",
    "shared_wavefronts": "passes the shared-memory accesses took: one per conflict-free 32-bit warp access, more for conflicts and for 64- and 128-bit accesses (served 16 and 8 lanes at a time; a 128-bit broadcast to lane pairs 16 at a time)",
    "atomics": "atomic read-modify-writes (cuda.atomic.add, max, min) executed, one per thread per call; each also counts as one load and one store of its element",
    "mma_instructions": "warp-wide tensor-core instructions (mma.sync, wgmma) executed",
    "async_copy_bytes": "bytes cp.async copied from global into shared memory without passing through registers, zero-fills included (one LDGSTS per lane moves 4, 8 or 16 bytes)",
    "tma_bytes": "bytes the tensor memory accelerator copied into shared memory (cp.async.bulk.tensor)",
    "mbarrier_waits": "waits on a shared-memory barrier object (mbarrier): for copies to land, or for a stage to be freed",
}


# The memory level each counter counts in (SPEC §7 data-level): its colour on the board. Stores to C are the
# output's; FMAs read and write registers; a barrier is in no level.
COUNTER_LEVELS = {
    "global_loads": "global",
    "global_sectors": "global",
    "atomics": "global",
    "global_stores": "output",
    "shared_loads": "shared",
    "shared_stores": "shared",
    "bank_extra_cycles": "shared",
    "shared_wavefronts": "shared",
    "register_reads": "register",
    "fma": "register",
}


class CounterBoard:
    """Counters with data-testid="counter-<name>" and the exact integer in data-value; a counter of a
    memory level carries its data-level."""

    def __init__(self, names: Iterable[str]) -> None:
        self.board = h("dl", "counters", data_testid="counters")
        self.note = h(
            "p",
            "hint counter-note",
            "“Global loads” counts element loads from global memory; the L2 cache may serve some of them, "
            "so they are not DRAM reads. Tap or click a counter's name for its definition.",
        )
        # What the numbers add up (issue 39: they count every thread since step 0 and did not say so).
        self.scope = h("p", "counter-scope", "", data_testid="counter-scope", hidden="")
        self.values: dict[str, object] = {}
        self.shown: dict[str, int] = {}
        for name in names:
            value = h("dd", "counter-value", "0", data_testid=f"counter-{name}", data_value="0")
            # The definition opens on tap (a phone has no hover) as well as on hover.
            label = h("summary", "", COUNTER_LABELS[name], title=COUNTER_NOTES[name])
            opens = h("details", "", children=[label, h("span", "definition", COUNTER_NOTES[name])])
            title = h("dt", "counter-name", children=[opens])
            level = {"data_level": COUNTER_LEVELS[name]} if name in COUNTER_LEVELS else {}
            self.board.appendChild(h("div", "counter", children=[title, value], **level))
            self.values[name] = value

    def say_scope(self, text: str) -> None:
        self.scope.textContent = text
        self.scope.removeAttribute("hidden")

    def show(self, counters: Counters, hidden: frozenset[str] = frozenset()) -> None:
        """Write the counters; those in `hidden` (data-testids a guided question is about) show "?" and
        carry no data-value: the answer is not in the page until it is given."""
        for name, element in self.values.items():
            value = getattr(counters, name)
            if f"counter-{name}" in hidden:
                element.textContent = "?"
                element.removeAttribute("data-value")
                self.shown.pop(name, None)
            elif self.shown.get(name) != value:
                element.textContent = thousands(value)
                element.setAttribute("data-value", str(value))
                self.shown[name] = value


class CodePanel:
    """The CUDA source with its constants filled in and the executing lines highlighted."""

    def __init__(self, label: str) -> None:
        self.element = h("pre", "code", tabindex="0", aria_label=label)
        self.lines: list = []
        self.current: tuple[int, ...] = ()

    def load(self, lines: list[str]) -> None:
        self.element.textContent = ""
        self.lines = []
        for number, text in enumerate(lines, start=1):
            line = h("span", "line", text or " ", data_line=str(number))
            self.element.appendChild(line)
            self.lines.append(line)
        self.current = ()

    def highlight(self, lines: tuple[int, ...]) -> None:
        """Mark the listing lines (1-based) of the statement being executed."""
        if lines == self.current:
            return
        for number in self.current:
            self.lines[number - 1].classList.remove("executing")
            self.lines[number - 1].removeAttribute("aria-current")
        for number in lines:
            self.lines[number - 1].classList.add("executing")
            self.lines[number - 1].setAttribute("aria-current", "step")
        self.current = lines


# The grid mark (a CSS class) of each kind of access, for the stepping views and the playground alike.
ACCESS_MARKS = {
    ("global", "load"): "g-load",
    ("global", "store"): "c-store",
    ("shared", "store"): "s-store",
    ("shared", "load"): "s-read",
}


def add_marks(marks: dict[tuple[int, int], str], cells: Iterable[tuple[int, int]], cls: str) -> None:
    for cell in cells:
        marks[cell] = f"{marks[cell]} {cls}" if cell in marks else cls


class VerifyBadge:
    """data-testid="verify": the check of the final C, and how C has filled by the step on screen.

    data-value is the check of the whole run (SPEC §3): "pending" while the threads' stores are being
    simulated, then "ok" when the C they store equals NumPy's answer, "mismatch" when it does not. The
    text says what is checked and when: before the last step, the final C (checked ahead) beside the
    values stored so far; at the last step, the C the threads stored."""

    def __init__(self) -> None:
        self.element = h("p", "verify", "C not checked yet", data_testid="verify", data_value="pending")
        self.expected = "A @ B"
        self.elements = 0
        self.mismatches: int | None = None  # None while the final C is being simulated
        self.simulated = ""
        self.filling: Filling | None = None
        self.at_end = False

    def pending(self, done: int, total: int) -> None:
        self.mismatches = None
        self.simulated = f"{done:,} of {count(total, 'block')} simulated"
        self.element.setAttribute("data-value", "pending")
        self._write()

    def show(self, mismatches: int, elements: int, expected: str) -> None:
        self.mismatches, self.elements, self.expected = mismatches, elements, expected
        self.element.setAttribute("data-value", "ok" if mismatches == 0 else "mismatch")
        self.element.setAttribute("data-mismatches", str(mismatches))
        self._write()

    def step(self, filling: Filling, at_end: bool) -> None:
        """The step on screen changed: say how much of C is stored by now (pysim's count)."""
        self.filling, self.at_end = filling, at_end
        self.element.setAttribute("data-stored", str(filling.stored))
        self.element.setAttribute("data-matching", str(filling.matching))
        self._write()

    def _write(self) -> None:
        text, state = self._final()
        if self.filling is not None and not self.at_end:
            text += " " + self._so_far(self.filling)
        self.element.textContent = text
        self.element.className = f"verify {state}".strip()

    def _final(self) -> tuple[str, str]:
        if self.mismatches is None:
            return f"Checking the final C: {self.simulated}…", ""
        values, expected = count(self.elements, "value"), f"NumPy's {self.expected}"
        if self.mismatches == 0 and self.at_end:
            return (
                f"✓ C verified: the {values} the threads stored {plural(self.elements, 'equals', 'equal')} {expected}.",
                "ok",
            )
        if self.mismatches == 0:
            every = "the" if self.elements == 1 else "all"
            will = plural(self.elements, "equals", "equal")
            return f"✓ Final C, checked ahead: {every} {values} the threads will store {will} {expected}.", "ok"
        wrong = f"{self.mismatches:,} of {values}"
        if self.at_end:
            return f"✗ C is wrong: {wrong} differ from {expected} or were never stored.", "bad"
        return f"✗ Final C, checked ahead: {wrong} will differ from {expected} or never be stored.", "bad"

    def _so_far(self, filling: Filling) -> str:
        stored = f"So far {filling.stored:,} of {count(filling.elements, 'value')} {plural(filling.stored, 'is', 'are')} stored"
        if filling.stored == 0:
            return stored + "."
        if filling.matching == filling.stored:
            return f"{stored}, {'equal' if filling.stored == 1 else 'all equal'} to NumPy's."
        return f"{stored}, {filling.matching:,} of them equal to NumPy's."


class ArrowLayer:
    """An SVG layer over a container, drawing arrows between cells of its grids (cooperative loads)."""

    def __init__(self, container) -> None:
        self.container = container
        self.element = svg("svg", "arrows", aria_hidden="true")
        defs = svg("defs")
        marker = svg(
            "marker",
            id="load-head",
            viewBox="0 0 8 8",
            refX="7",
            refY="4",
            markerWidth="6",
            markerHeight="6",
            orient="auto",
        )
        marker.appendChild(svg("path", "arrow-head", d="M0,0 L8,4 L0,8 z"))
        defs.appendChild(marker)
        self.element.appendChild(defs)
        self.lines = svg("g")
        self.element.appendChild(self.lines)
        container.appendChild(self.element)
        self.drawn = False

    def clear(self) -> None:
        if self.drawn:
            self.lines.textContent = ""
            self.drawn = False

    def draw(self, pairs: list[tuple[Rect, Rect, bool]]) -> None:
        """Arrows from each source cell to its target cell (viewport rectangles); flagged ones emphasised.
        The caller reads every rectangle before any line is added, so the browser lays out once."""
        self.clear()
        box = self.container.getBoundingClientRect()
        self.element.setAttribute("width", str(self.container.scrollWidth))
        self.element.setAttribute("height", str(self.container.scrollHeight))
        for (ax, ay, aw, ah), (bx, by, bw, bh), emphasised in pairs:
            self.lines.appendChild(
                svg(
                    "line",
                    "load-arrow followed" if emphasised else "load-arrow",
                    data_level="global",  # a load's arrow leaves global memory
                    x1=f"{ax + aw / 2 - box.left:.1f}",
                    y1=f"{ay + ah / 2 - box.top:.1f}",
                    x2=f"{bx + bw / 2 - box.left:.1f}",
                    y2=f"{by + bh / 2 - box.top:.1f}",
                )
            )
        self.drawn = bool(pairs)


# The memory level (SPEC §7) of each kind of memory panel.
PANEL_LEVELS = {"global": "global", "shared": "shared", "register": "register", "result": "output"}


def memory_panel(spaces: list[tuple[str, str, list]]):
    """The memory spaces side by side: (css kind, heading, children) each; each panel carries its level."""
    return h(
        "div",
        "memory",
        children=[
            h("section", f"space {kind}", children=[h("h2", "", title), *children], data_level=PANEL_LEVELS[kind])
            for kind, title, children in spaces
        ],
    )


# The key: colour says which memory level a cell is in, and only that; what happens to a cell is a shape
# (border style, corner mark, bar, hatching), drawn in the key without colour.
LEVEL_KEY = (
    ("global", "global memory"),
    ("shared", "shared memory"),
    ("register", "registers"),
    ("output", "C, the output"),
)
ACTION_KEY = (
    ("g-load", "loaded this step"),
    ("s-store c-store", "written this step"),
    ("s-read", "read this step"),
    ("zero-fill", "zero-filled (edge)"),
    ("in-tile", "this block's tile"),
)


def legend(view_entries: tuple[tuple[str, str], ...]):
    """The key in two rows: one colour per memory level, then the action cues and the view's own marks."""
    levels = h("ul", "legend levels", aria_label="Colour: memory level")
    for level, text in LEVEL_KEY:
        swatch = h("span", "swatch level", aria_hidden="true", data_level=level)
        levels.appendChild(h("li", "", children=[swatch, h("span", "", text)]))
    actions = h("ul", "legend actions", aria_label="Shape: what happens")
    for cls, text in (*ACTION_KEY, *view_entries):
        actions.appendChild(h("li", "", children=[h("span", f"swatch {cls}", aria_hidden="true"), h("span", "", text)]))
    return h("div", "key", data_testid="legend", children=[levels, actions])


def monitor_table(caption: str, head_row, body):
    """The thread monitor: one row per thread, scrollable (so focusable) when wide."""
    return h(
        "table",
        "monitor",
        data_testid="monitor",
        tabindex="0",
        children=[h("caption", "", caption), h("thead", "", children=[head_row]), body],
    )


def folded(summary: str, *parts):
    """Parts a reader opens when wanted (the thread monitor, the step's bookkeeping): one line until clicked,
    so the lesson's picture and its step controls share the first screen (issue 39)."""
    return h("details", "folded", children=[h("summary", "", summary), *parts])


def code_section(code: CodePanel):
    return h("section", "code-panel", children=[h("h2", "", "The kernel"), code.element])
