"""No markup is built from text that could come from a user or the address."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAW_MARKUP = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|srcdoc")


def sources():
    for folder in ("site", "pysim"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".js", ".html"}:
                yield path


def test_raw_markup_only_in_the_numbers_only_helper():
    found = {
        (path.relative_to(ROOT).as_posix(), number)
        for path in sources()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if RAW_MARKUP.search(line)
    }
    assert {path for path, _ in found} == {"site/app/dom.py"}
    assert len(found) == 1


def test_the_numbers_only_helper_is_fed_numbers():
    callers = [
        (path, line)
        for path in sources()
        for line in path.read_text().splitlines()
        if "set_number_markup(" in line and "def set_number_markup" not in line
    ]
    assert len(callers) == 1
    grids = (ROOT / "site/app/grids.py").read_text()
    # The one caller builds cells from the loop integers r and c only.
    assert (
        """f'<span class="cell" data-r="{r}" data-c="{c}"></span>' for r in range(rows) for c in range(cols)""" in grids
    )


def test_no_inline_handlers_or_styles_in_the_page():
    html = (ROOT / "site/index.html").read_text()
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert "style=" not in html
    assert "'unsafe-inline'" not in html
