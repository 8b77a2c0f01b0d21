"""A stepping view's prose (the partials' section.explain, shipped in <template class="prose">): it states, for
the sizes on screen, numbers that the guide's and the checkpoints' questions ask, so it stays out of the page
while such a question is still to be answered, and a note says why and how to read it now."""

from __future__ import annotations

from ..core.dom import h


class Prose:
    """`box` holds the prose (the view fills it, `explained`), or is None on a route without prose."""

    def __init__(self, section) -> None:
        self.box = None
        self.note = h("p", "prose-withheld hint", "", data_testid="prose-withheld", hidden="")
        # Inert in the page as shipped (site/index.html): nothing of it is in the page until `place` puts it there;
        # site/boot/failure.js places it when start-up fails, and a view built after that gathers it from the page.
        template = section.querySelector("template.prose")
        found = (template.content if template is not None else section).querySelectorAll("section.explain")
        parts = [found.item(i) for i in range(found.length)]
        if not parts:
            return
        anchor = template if template is not None else parts[0]
        self.box = h("div", "prose", data_testid="prose")
        section.insertBefore(self.note, anchor)
        section.insertBefore(self.box, anchor)
        for part in parts:
            self.box.appendChild(part)
        if template is not None:
            template.remove()

    def place(self, guide: bool, checkpoints: bool) -> None:
        """In the page, or out of it while the guide's (`guide`) or the checkpoints' questions are unanswered."""
        section = self.note.parentElement
        if self.box is None or section is None:
            return
        if not (guide or checkpoints):
            self.note.setAttribute("hidden", "")
            if self.box.parentElement is None:
                section.insertBefore(self.box, self.note)
            return
        self.box.remove()
        waits = (
            "the guide's questions are answered (or you press Explore freely)" if guide else "",
            "its checkpoints are answered or skipped" if checkpoints else "",
        )
        until = " and ".join(part for part in waits if part)
        self.note.textContent = f"The explanations of this page come after its questions, whose answers they state: they appear once {until}."
        self.note.removeAttribute("hidden")
