"""#/teach: for teachers (issue 38 item 4, SPEC §7). `#/teach?view=<route>&<that route's parameters>`.

Without `view=`, an index of the guided views. With it: the view's learning goals, its guide's questions
with the answers pysim computes for the link's sizes (each `teach-answer`, `data-value` what a student
enters, chooses or clicks), the moments skipped at these sizes and why, the "change it" task, a suggested
20-minute activity, and a worksheet that prints alone (css/picture.css, "teach"): the questions with blank
lines, no answers. The parameters are read as the view reads them; a bad one is named above the page,
which then shows the view's opening sizes, as the view itself would. Every text goes in as textContent.
"""

from __future__ import annotations

from pyscript import window

from pysim.hardware.params import ParamError
from pysim.lessons.guides import teaching
from pysim.lessons.guides.model import Guide, Moment, Skipped, Task

from ..core.dom import clear, h, on
from ..core.urlstate import format_hash

ANSWER_LINES = 2  # blank lines under each worksheet question


def shown(element, visible: bool) -> None:
    if visible:
        element.removeAttribute("hidden")
    else:
        element.setAttribute("hidden", "")


def sizes_text(guide: Guide) -> dict[str, str]:
    """The link's parameters as the view writes them in its address."""
    return guide.params.as_strings()


class TeachView:
    def __init__(self, container, navigate) -> None:
        self.navigate = navigate
        self.written: dict[str, str] = {}
        self.error = h("p", "input-error", "", role="alert", hidden="", data_testid="teach-error")
        self.index = h(
            "nav",
            "teach-index",
            aria_label="Guided views",
            data_testid="teach-index",
            children=[
                h("h2", "", "Choose a view"),
                h(
                    "ul",
                    "",
                    children=[
                        h("li", "", children=[h("a", "", teaching.LESSONS[name].title, href=f"#/teach?view={name}")])
                        for name in teaching.ORDER
                    ],
                ),
            ],
        )
        self.key = h("div", "teach-key", data_testid="teach-key")
        self.print_button = h("button", "teach-print", "Print the worksheet", type="button", data_testid="teach-print")
        on(self.print_button, "click", lambda event: window.print())
        self.sheet = h("section", "teach-worksheet", aria_label="Worksheet", data_testid="teach-worksheet")
        self.lesson = h("div", "teach-lesson", hidden="", children=[self.key, self.print_button, self.sheet])
        clear(container)
        for part in (self.error, self.index, self.lesson):
            container.appendChild(part)

    def key(self, event) -> bool:
        return False  # nothing steps here: the keyboard is the browser's

    def activate(self, raw: dict[str, str]) -> None:
        name = raw.get("view", "")
        self.error.textContent = ""
        if not name:
            self.show_index()
            return
        if name not in teaching.LESSONS:
            self.fail(ParamError("view", f"view must be one of {', '.join(teaching.ORDER)} (got {name[:40]!r})"))
            self.show_index()
            return
        try:
            guide = teaching.lesson_guide(name, raw)
        except ParamError as error:
            self.fail(error)
            guide = teaching.lesson_guide(name, {})
        self.show_lesson(name, guide)

    def fail(self, error: ParamError) -> None:
        self.error.textContent = f"{error.message}. Shown instead: the view's opening sizes."
        self.error.setAttribute("data-param", error.param)
        shown(self.error, True)

    def write(self, params: dict[str, str]) -> None:
        self.written = params
        self.navigate(params)

    def show_index(self) -> None:
        shown(self.error, bool(self.error.textContent))
        shown(self.index, True)
        shown(self.lesson, False)
        self.write({})

    def show_lesson(self, name: str, guide: Guide) -> None:
        shown(self.error, bool(self.error.textContent))
        shown(self.index, False)
        shown(self.lesson, True)
        lesson = teaching.LESSONS[name]
        sizes = sizes_text(guide)
        address = format_hash(f"/{name}", sizes)
        clear(self.key)
        state = ", ".join(f"{key}={value}" for key, value in sizes.items())
        links = h(
            "p",
            "teach-links",
            children=[
                h("a", "", "Open it guided", href=address, data_testid="teach-open-guided"),
                h("span", "", " · "),
                h("a", "", "Open it free (guide=0)", href=format_hash(f"/{name}", {**sizes, "guide": "0"})),
                h("span", "", " · "),
                h("a", "", "All views", href="#/teach"),
            ],
        )
        self.key.appendChild(h("h2", "", f"{lesson.title} · {state}", data_testid="teach-view"))
        self.key.appendChild(links)
        self.key.appendChild(h("h3", "", "Learning goals"))
        self.key.appendChild(h("ul", "", data_testid="teach-goals", children=[h("li", "", g) for g in lesson.goals]))
        self.key.appendChild(h("h3", "", "The guide's questions and their answers at these sizes"))
        self.key.appendChild(h("ol", "teach-questions", data_testid="teach-questions", children=self.entries(guide)))
        self.key.appendChild(h("h3", "", 'The "change it" task'))
        self.key.appendChild(self.task(guide.task))
        self.key.appendChild(h("h3", "", f"A {teaching.ACTIVITY_MINUTES}-minute activity"))
        steps = [h("li", "", f"{minutes} min: {text}") for minutes, text in teaching.activity(name, guide)]
        self.key.appendChild(h("ol", "", data_testid="teach-activity", children=steps))
        self.fill_sheet(lesson.title, state, guide)
        self.write({"view": name, **sizes})

    def entries(self, guide: Guide) -> list:
        found = []
        for entry in guide.entries:
            if isinstance(entry, Skipped):
                found.append(
                    h("li", "teach-skipped", f"Skipped at these sizes: {entry.reason}.", data_testid="teach-skipped")
                )
            else:
                found.append(h("li", "", children=self.asked(entry)))
        return found

    @staticmethod
    def asked(moment: Moment) -> list:
        answer = h(
            "strong",
            "",
            moment.answer_text,
            data_testid="teach-answer",
            data_value=teaching.response(moment),
            data_key=moment.key,
        )
        return [
            h("p", "", moment.question),
            *([h("p", "", "Choices: " + "; ".join(c.label for c in moment.choices))] if moment.choices else []),
            h("p", "", children=[h("span", "", "Answer: "), answer]),
            h("p", "hint", f"Why: {moment.why}."),
        ]

    def task(self, task: Task | Skipped):
        if isinstance(task, Skipped):
            return h("p", "teach-skipped", f"No task at these sizes: {task.reason}.", data_testid="teach-skipped")
        return h(
            "div",
            "",
            data_testid="teach-task",
            children=[h("p", "", f"Ask students to {task.instruction}."), *self.asked(task.moment)],
        )

    def fill_sheet(self, title: str, state: str, guide: Guide) -> None:
        """The worksheet: every question asked, then the task's, each with blank lines; no answer, no why."""
        clear(self.sheet)
        self.sheet.appendChild(h("h2", "", f"Worksheet: {title}"))
        self.sheet.appendChild(h("p", "", f"Sizes: {state}. Name: ____________________"))
        asked = [("", moment) for moment in guide.moments]
        if not isinstance(guide.task, Skipped):
            asked.append((f"Now {guide.task.instruction} and predict: ", guide.task.moment))
        items = []
        for lead, moment in asked:
            lines = [h("div", "answer-line") for _ in range(ANSWER_LINES)]
            choices = [h("p", "", "☐ " + c.label) for c in moment.choices]
            items.append(h("li", "", children=[h("p", "", lead + moment.question), *choices, *lines]))
        self.sheet.appendChild(h("ol", "", data_testid="teach-sheet-questions", children=items))
