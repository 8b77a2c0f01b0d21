"""Typeset TeX with the bundled KaTeX (DOM output, so the CSP needs no inline styles)."""

from __future__ import annotations

from pyodide.ffi import to_js
from pyscript import window

from .dom import h

OPTIONS = to_js({"throwOnError": False, "output": "htmlAndMathml"}, dict_converter=window.Object.fromEntries)


def render(element, tex: str) -> None:
    window.katex.render(tex, element, OPTIONS)


def tex(tex_source: str, cls: str = "math"):
    """A typeset formula; display formulas may scroll sideways, so they take keyboard focus."""
    element = h("span", cls, tabindex="0") if "display" in cls else h("span", cls)
    render(element, tex_source)
    return element
