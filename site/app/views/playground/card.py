"""The puzzle card: goal, budgets, starter and hints, and the checker's grade with every check."""

from __future__ import annotations

from collections.abc import Callable

from ...core.dom import Listeners, h, thousands
from .texts import size_text


class PuzzleCard:
    """Shows one puzzle (or hides itself in free play) and the grade of the last check."""

    def __init__(self, load_starter: Callable[[], None], holds_edits: Callable[[], bool]) -> None:
        self.load_starter = load_starter
        self.holds_edits = holds_edits
        self.puzzle = None
        self.hints_shown = 0
        self.listeners = Listeners()
        self.title = h("h2", "", "")
        self.goal = h("p", "goal", "", data_testid="puzzle-goal")
        self.notes = h("p", "hint", "")
        self.key = h("p", "hint", "")
        self.budget_list = h("ul", "budgets", data_testid="puzzle-budgets")
        self.starter_button = h("button", "", "Load the starter code", type="button", data_testid="load-starter")
        self.listeners.on(self.starter_button, "click", lambda event: self.starter_asked())
        # Asked in the page, not with confirm(): a course's sandboxed frame may refuse dialogs.
        self.replace_button = h("button", "", "Replace my code", type="button", data_testid="replace-code")
        self.keep_button = h("button", "primary", "Keep my code", type="button", data_testid="keep-code")
        self.listeners.on(self.replace_button, "click", lambda event: self.answered(True))
        self.listeners.on(self.keep_button, "click", lambda event: self.answered(False))
        self.confirm = h(
            "div",
            "confirm-replace",
            role="group",
            data_testid="confirm-starter",
            hidden="",
            children=[
                h("p", "", "The starter code replaces everything in the editor; your edits are lost."),
                h("div", "card-buttons", children=[self.keep_button, self.replace_button]),
            ],
        )
        self.hint_button = h("button", "", "Show a hint", type="button", data_testid="hint")
        self.listeners.on(self.hint_button, "click", lambda event: self.reveal_hint())
        self.hint_list = h("ol", "hints", data_testid="hints", aria_live="polite")
        self.grade_line = h("p", "grade", "Not checked yet: press Run.", data_testid="grade", data_value="none")
        head = h(
            "tr",
            "",
            children=[h("th", "", text, scope="col") for text in ("Check", "Size", "Measured", "Budget", "")],
        )
        self.checks_body = h("tbody", "")
        self.checks = h(
            "table",
            "checks",
            data_testid="checks",
            children=[h("caption", "", "Every check at every size"), h("thead", "", children=[head]), self.checks_body],
            hidden="",
        )
        self.element = h(
            "section",
            "puzzle-card",
            data_testid="puzzle-card",
            aria_label="Puzzle",
            hidden="",
            children=[
                self.title,
                self.goal,
                h("h3", "", "To pass"),
                self.budget_list,
                self.notes,
                self.key,
                h("div", "card-buttons", children=[self.starter_button, self.hint_button]),
                self.confirm,
                self.hint_list,
                self.grade_line,
                self.checks,
            ],
        )

    def show(self, puzzle) -> None:
        """A new puzzle (None: free play, the card hides); the grade starts unchecked."""
        self.puzzle = puzzle
        self.confirm.setAttribute("hidden", "")
        self.hints_shown = 0
        self.hint_list.textContent = ""
        self.checks_body.textContent = ""
        self.checks.setAttribute("hidden", "")
        self.grade_line.textContent = "Not checked yet: press Run."
        self.grade_line.setAttribute("data-value", "none")
        self.grade_line.className = "grade"
        if puzzle is None:
            self.element.setAttribute("hidden", "")
            return
        self.element.removeAttribute("hidden")
        self.title.textContent = puzzle.title
        self.goal.textContent = puzzle.goal
        self.budget_list.textContent = ""
        sizes = ", ".join(size_text(s) for s in puzzle.sizes)
        self.budget_list.appendChild(
            h("li", "", f"C equals NumPy's {puzzle.expected_label}, with no diagnostics, at M×N×K = {sizes}")
        )
        if puzzle.edge_sizes:
            edges = ", ".join(size_text(s) for s in puzzle.edge_sizes)
            self.budget_list.appendChild(h("li", "", f"also correct, with no diagnostics, at {edges}"))
        for budget in puzzle.budgets:
            self.budget_list.appendChild(h("li", "", budget.label))
        self.notes.textContent = " ".join(puzzle.notes)
        self.key.textContent = f"Grade it on the command line with --puzzle {puzzle.key}."
        self.hint_button.disabled = not puzzle.hints
        self.hint_button.textContent = f"Show a hint (0 of {len(puzzle.hints)})"

    def starter_asked(self) -> None:
        if self.holds_edits():
            self.confirm.removeAttribute("hidden")
            self.keep_button.focus()
        else:
            self.load_starter()

    def answered(self, replace: bool) -> None:
        self.confirm.setAttribute("hidden", "")
        if replace:
            self.load_starter()
        self.starter_button.focus()

    def reveal_hint(self) -> None:
        puzzle = self.puzzle
        if puzzle is None or self.hints_shown >= len(puzzle.hints):
            return
        self.hint_list.appendChild(h("li", "", puzzle.hints[self.hints_shown]))
        self.hints_shown += 1
        self.hint_button.textContent = f"Show a hint ({self.hints_shown} of {len(puzzle.hints)})"
        self.hint_button.disabled = self.hints_shown >= len(puzzle.hints)

    def pending(self) -> None:
        self.grade_line.textContent = f"Checking {self.puzzle.title} at every size…"
        self.grade_line.setAttribute("data-value", "pending")
        self.grade_line.className = "grade"

    def checker_failed(self, why: str) -> None:
        self.grade_line.textContent = f"Not checked: {why}"
        self.grade_line.setAttribute("data-value", "fail")
        self.grade_line.className = "grade bad"

    def show_grade(self, grade) -> None:
        passed = grade.passed
        self.grade_line.setAttribute("data-value", "pass" if passed else "fail")
        self.grade_line.className = "grade ok" if passed else "grade bad"
        if grade.error:
            self.grade_line.textContent = f"✗ Not yet: the file cannot run ({grade.error})."
        else:
            failed = sum(1 for check in grade.checks if not check.passed)
            self.grade_line.textContent = (
                f"✓ Passed: all {len(grade.checks)} checks hold."
                if passed
                else f"✗ Not yet: {failed} of {len(grade.checks)} checks fail."
            )
        # Built detached and put in with one insertion: the page's script loader (PyScript) inspects each element
        # added to the document, which took ~40 ms for a grade's rows added one by one (bench/playground.py).
        body = h("tbody", "", children=[check_row(check) for check in grade.checks])
        self.checks_body.replaceWith(body)
        self.checks_body = body
        self.checks.removeAttribute("hidden")


def check_row(check):
    """One row of the checks table: label (and why it failed), size, measured value, budget, ✓/✗."""
    measured = "–" if check.value is None else thousands(check.value)
    budget = "–" if check.limit is None else f"{check.relation} {thousands(check.limit)}"
    label = h("td", "", check.label)
    if check.detail:
        label.appendChild(h("span", "hint check-detail", check.detail))
    return h(
        "tr",
        "ok" if check.passed else "bad",
        data_testid="check",
        data_passed="true" if check.passed else "false",
        children=[
            label,
            h("td", "num", size_text(check.size)),
            h("td", "num", measured, data_value="" if check.value is None else str(check.value)),
            h("td", "num", budget),
            h("td", "", "✓" if check.passed else "✗"),
        ],
    )
