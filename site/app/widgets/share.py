"""The Share dialog (SPEC §6 "Share"): the address of the state on screen and an `<iframe>` snippet,
with the embed, lock and quiz toggles and guided or free (guide=0), each in a read-only field with a
Copy button, and a link to the view's page for teachers (#/teach) where the view has a guide.

One dialog for the page; each view's Share button opens it for the route on screen. Every text goes
in as a field's value or textContent: the address is data, never markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pyscript import document, window

from ..core.dom import h, on
from ..core.urlstate import SHARE_KEYS, Route, iframe_snippet, shared_hash, teach_hash

TOGGLE_TEXTS = {
    "embed": "embed=1: compact, without header and footer (in the snippet only)",
    "lock": "lock=1: hide the size form, so students keep these sizes",
    "quiz": "quiz=1: ask the prediction checkpoints",
}
DEFAULT_TOGGLES = ("embed",)  # the snippet is for a frame; the address opens the full page
MODES = {"guided": "guided: the view asks its guide's questions (the default)", "free": "free: the full view (guide=0)"}


def choices(legend: str, controls: dict, texts: dict[str, str]):
    """A fieldset of labelled checkboxes or radio buttons, each control's id `share-<key>`."""
    labels = [
        h("label", "", children=[box, h("span", "", texts[key])], for_=f"share-{key}") for key, box in controls.items()
    ]
    return h("fieldset", "share-toggles", children=[h("legend", "", legend), *labels])


class ShareDialog:
    """A modal `<dialog>`: focus moves into it, Escape closes it, and focus returns to the button."""

    def __init__(self, view_title: Callable[[str], str]) -> None:
        self.view_title = view_title
        self.route: Route | None = None
        self.opener = None
        self.toggles = {
            key: h("input", "", type="checkbox", id=f"share-{key}", data_testid=f"share-{key}") for key in SHARE_KEYS
        }
        for key in DEFAULT_TOGGLES:
            self.toggles[key].checked = True
        self.modes = {
            mode: h(
                "input",
                "",
                type="radio",
                name="share-mode",
                value=mode,
                id=f"share-{mode}",
                data_testid=f"share-{mode}",
            )
            for mode in MODES
        }
        self.modes["guided"].checked = True
        self.teach = h("a", "", "For teachers", href="#/teach", data_testid="share-teach")
        self.address = self._field("input", "share-address", type="text")
        self.snippet = self._field("textarea", "share-snippet", rows="5")
        self.status = h("p", "share-status", "", role="status", data_testid="share-status")
        self.element = h(
            "dialog",
            "share-dialog",
            aria_labelledby="share-title",
            data_testid="share-dialog",
            children=[
                h("h2", "", "Share this view", id="share-title"),
                choices("Options", self.toggles, TOGGLE_TEXTS),
                choices("Mode", self.modes, MODES),
                *self._row("Address of this state (lock, quiz and mode apply)", self.address, "copy-address"),
                *self._row("Embed code for a course page", self.snippet, "copy-snippet"),
                h("p", "", children=[self.teach]),
                self.status,
                h("button", "share-close", "Close", type="button", data_testid="share-close"),
            ],
        )
        for box in (*self.toggles.values(), *self.modes.values()):
            on(box, "change", lambda event: self.fill())
        on(self.teach, "click", lambda event: self.element.close())  # the link leads on: close, as Escape does
        on(self.element.querySelector(".share-close"), "click", lambda event: self.element.close())
        on(self.element, "close", lambda event: self._closed())
        document.body.appendChild(self.element)

    def _field(self, tag: str, testid: str, **attrs: str):
        return h(tag, "share-field", id=testid, data_testid=testid, readonly="", spellcheck="false", **attrs)

    def _row(self, label: str, field, testid: str) -> list:
        button = h("button", "", "Copy", type="button", data_testid=testid, aria_label=f"Copy: {label}")
        on(button, "click", lambda event: asyncio.ensure_future(self.copy(field)))
        on(field, "focus", lambda event: field.select())
        return [h("label", "share-label", label, for_=field.id), h("div", "share-row", children=[field, button])]

    def open(self, route: Route, opener) -> None:
        self.route, self.opener = route, opener
        self.status.textContent = ""
        self.fill()
        self.element.showModal()
        self.address.focus()

    def update(self, route: Route) -> None:
        """The state changed while the dialog is open (it cannot, being modal, but a timer may write)."""
        if self.element.open:
            self.route = route
            self.fill()

    def fill(self) -> None:
        if self.route is None:
            return
        chosen = tuple(key for key, box in self.toggles.items() if box.checked)
        free = bool(self.modes["free"].checked)
        base = str(window.location.href).partition("#")[0]
        self.address.value = base + shared_hash(self.route, tuple(key for key in chosen if key != "embed"), free)
        title = "TileLab: " + self.view_title(self.route.path)
        self.snippet.value = iframe_snippet(base + shared_hash(self.route, chosen, free), title)
        teach = teach_hash(self.route)
        self.teach.href = teach or "#/teach"
        self.teach.textContent = (
            "For teachers: this view's questions with their answers, an activity, a worksheet"
            if teach
            else "For teachers: every guided view's questions, answers and worksheets"
        )

    async def copy(self, field) -> None:
        """Copy with the Clipboard API where the page may; otherwise leave the text selected to copy by hand."""
        field.focus()
        field.select()
        clipboard = getattr(window.navigator, "clipboard", None)
        try:
            if clipboard is None:
                raise RuntimeError("no clipboard")
            await clipboard.writeText(field.value)
        except Exception:  # refused (no permission, an insecure page, a frame without the clipboard policy)
            self.status.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy."
            return
        self.status.textContent = "Copied."

    def _closed(self) -> None:
        if self.opener is not None:
            self.opener.focus()
