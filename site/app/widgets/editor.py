"""The playground's code editor: a plain <textarea> with line numbers at once, CodeMirror when it loads.

CodeMirror (Python highlighting, line numbers, undo, bracket matching) comes from
the copy PyScript ships, through `site/editor.js`, which mounts it in a shadow root
so its run-time styles pass the page's CSP (see that file). Until it has loaded,
and for good if it cannot load, the student types in the textarea; the text moves
across when CodeMirror takes over. `data-editor` on the host says which is live
("plain" or "codemirror"); tests wait on it.

User text only ever goes in as a value or textContent, never as markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pyscript import document, js_import, window

from ..core.dom import Listeners, h

LABEL = "Kernel source (Python, Numba-CUDA)"
MODULE = "editor.js"  # next to index.html


class PlainEditor:
    """A textarea beside a gutter of line numbers (text only), scrolled together."""

    def __init__(self, text: str, on_change: Callable[[], None], listeners: Listeners) -> None:
        self.gutter = h("pre", "gutter", "", aria_hidden="true")
        self.area = h(
            "textarea",
            "plain-code",
            aria_label=LABEL,
            spellcheck="false",
            autocapitalize="off",
            autocomplete="off",
            wrap="off",
            rows="24",
            data_testid="editor-plain",
        )
        self.area.textContent = text  # its default value: the content the page drawn at build time holds
        self.element = h("div", "plain-editor", children=[self.gutter, self.area])
        self.lines = 0
        self.number_lines()
        listeners.on(self.area, "input", lambda event: (self.number_lines(), on_change()))
        listeners.on(self.area, "scroll", lambda event: self.follow_scroll())

    def number_lines(self) -> None:
        count = str(self.area.value).count("\n") + 1
        if count != self.lines:
            self.gutter.textContent = "\n".join(str(n) for n in range(1, count + 1))
            self.lines = count

    def follow_scroll(self) -> None:
        self.gutter.scrollTop = self.area.scrollTop

    def text(self) -> str:
        return str(self.area.value)

    def set_text(self, text: str) -> None:
        self.area.value = text
        self.number_lines()

    def goto_line(self, number: int) -> None:
        lines = self.text().split("\n")
        number = min(max(number, 1), len(lines))
        start = sum(len(line) + 1 for line in lines[: number - 1])
        self.area.focus()
        self.area.setSelectionRange(start, start + len(lines[number - 1]))
        # Put the line near the top third of the box (the caret alone may stay out of view).
        height = self.area.scrollHeight / max(len(lines), 1)
        self.area.scrollTop = max(0, height * (number - 1) - self.area.clientHeight / 3)
        self.follow_scroll()


class Editor:
    """The one editor object the view talks to: text(), set_text(), goto_line(), contains()."""

    def __init__(self, text: str, on_change: Callable[[], None], on_run: Callable[[], None]) -> None:
        self.on_change = on_change
        self.on_run = on_run
        self.listeners = Listeners()
        self.plain = PlainEditor(text, on_change, self.listeners)
        self.mirror_host = h("div", "cm-host", hidden="")
        self.element = h(
            "div",
            "editor",
            data_testid="editor",
            data_editor="plain",
            children=[self.plain.element, self.mirror_host],
        )
        self.mirror = None  # the JS object editor.js returns, once loaded
        self.change_proxy = self.listeners.proxy(lambda *args: self.on_change())
        self.run_proxy = self.listeners.proxy(lambda *args: self.on_run())
        self.listeners.on(self.plain.area, "keydown", self.plain_key)
        self.note = h("p", "hint editor-note", "", data_testid="editor-note", hidden="")
        self.task = asyncio.ensure_future(self.upgrade())

    async def upgrade(self) -> None:
        """Load CodeMirror and move the text into it; on any failure keep the textarea and say so."""
        try:
            url = str(window.URL.new(MODULE, document.baseURI).href)  # js_import resolves from pyscript/
            (module,) = await js_import(url)
            mirror = await module.createEditor(
                self.mirror_host, self.plain.text(), LABEL, self.change_proxy, self.run_proxy
            )
        except Exception as error:  # noqa: BLE001 - any failure leaves the plain editor working
            self.note.textContent = (
                f"The code editor could not load ({type(error).__name__}); a plain text box is used instead."
            )
            self.note.removeAttribute("hidden")
            self.element.setAttribute("data-editor", "plain-fallback")
            return
        text = self.plain.text()
        if str(mirror.text()) != text:  # typed while CodeMirror loaded
            mirror.setText(text)
        had_focus = document.activeElement == self.plain.area
        self.mirror = mirror
        self.plain.element.setAttribute("hidden", "")
        self.mirror_host.removeAttribute("hidden")
        self.element.setAttribute("data-editor", "codemirror")
        if had_focus:
            mirror.focus()

    def plain_key(self, event) -> None:
        if event.key == "Enter" and (event.ctrlKey or event.metaKey):
            event.preventDefault()
            self.on_run()

    def text(self) -> str:
        return str(self.mirror.text()) if self.mirror is not None else self.plain.text()

    def set_text(self, text: str) -> None:
        if self.mirror is not None:
            self.mirror.setText(text)
        else:
            self.plain.set_text(text)

    def goto_line(self, number: int) -> None:
        if self.mirror is not None:
            self.mirror.gotoLine(number)
        else:
            self.plain.goto_line(number)

    def contains(self, node) -> bool:
        """True for an event target inside the editor (CodeMirror's events arrive retargeted to its host)."""
        return bool(node) and bool(self.element.contains(node))
