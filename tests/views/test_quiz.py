"""The walkthrough's quiz in CPython: question 1's answer is never printed above it. (Was part of
tests/browser/test_quiz.py; the browser keeps the tries under axe-core and the keyboard.)"""

import re

import pytest

from tools.sitebuild.fakedom import Element, Text


def digits(text: str) -> set[int]:
    """Every number written on screen (thousands separators allowed)."""
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)}


def text_before(root: Element, stop: Element) -> str:
    """The text of `root` in document order up to `stop` (a DOM Range from the root's start to before it)."""
    parts: list[str] = []

    def walk(node: Element) -> bool:
        for child in node.childNodes:
            if child is stop:
                return True
            if isinstance(child, Text):
                parts.append(child.data)
            elif isinstance(child, Element) and walk(child):
                return True
        return False

    walk(root)
    return "".join(parts)


@pytest.mark.parametrize("N", [1024, 512, 7])
def test_question_one_is_not_answered_above_it(page, N):
    page.go(f"#/hierarchy?N={N}&T=16")
    label = page.text(page.find('label[for="quiz-naive"]'))
    asked = int(re.search(r"N = ([\d,]+)", label).group(1).replace(",", ""))
    answer = 2 * asked**3  # the naive kernel: N² threads, 2N loads each
    assert answer not in digits(text_before(page.view, page.find('form[data-quiz="naive"]')))
    assert f"{answer:,}" not in page.inner_text("quiz")  # its explanation is hidden
    assert answer in digits(page.text("quiz"))  # ...though written: so the checks above can see it
