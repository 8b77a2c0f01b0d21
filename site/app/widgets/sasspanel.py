"""'What the compiler made of it': nvcc's instruction mix and SASS beside a view's listing (issue 40).

The numbers come from pysim.lessons.compiled (nvcc's output at the presets, precomputed: the browser has
no compiler); at other sizes the panel says so and gives the command that compiles them.
"""

from __future__ import annotations

from typing import Any

from pysim.lessons.compiled import ARCH, command, compiled

from ..core.dom import h


class SassPanel:
    def __init__(self) -> None:
        self.body = h("div", "sass-body")
        heading = h("h2", "", "What the compiler made of it")
        self.element = h("section", "sass-panel", children=[heading, self.body], data_testid="sass-panel")

    def show(self, kernel: str, params: Any) -> None:
        self.body.textContent = ""
        found = compiled(kernel, params)
        if found is None:
            self.element.setAttribute("data-state", "absent")
            note = f"nvcc's SASS is precomputed at this view's presets only. For these sizes, run {command(kernel, params)}"
            self.body.appendChild(h("p", "hint", note, data_testid="sass-absent"))
            return
        self.element.setAttribute("data-state", "shown")
        self.body.appendChild(h("p", "", found.sentence, data_testid="sass-sentence"))
        rows = [
            h(
                "tr",
                "",
                children=[
                    h("th", "", name, scope="row"),
                    h("td", "", str(found.per_iteration.get(name, 0)), data_testid=f"sass-nvcc-{name}"),
                    h("td", "", str(found.model.get(name, 0))),
                ],
            )
            for name in sorted(set(found.per_iteration) | set(found.model))
        ]
        head = h(
            "tr", "", children=[h("th", "", text) for text in ("per thread, one iteration", f"nvcc ({ARCH})", "pysim")]
        )
        self.body.appendChild(
            h("table", "sass-mix", children=[h("thead", "", children=[head]), h("tbody", "", children=rows)])
        )
        listing = h(
            "details", "sass-lines", children=[h("summary", "", "Each line of the main loop and the SASS it became")]
        )
        for number, text, sass in found.lines:
            listing.appendChild(h("p", "sass-line", f"L{number}  {text}", data_line=str(number)))
            listing.appendChild(h("pre", "sass-code", "\n".join(sass)))
        self.body.appendChild(listing)
