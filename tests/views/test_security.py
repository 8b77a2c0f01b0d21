"""No markup is built from text that could come from a user or the address."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
    # dom.py's numbers-only helper, and the boot's reading of a pre-render file: markup the build drew from
    # the views at their preset addresses (tools/sitebuild/prerender.py), a same-origin file whose bytes the
    # service worker checks against the build's hash; no text of the reader's reaches it.
    assert found == {
        ("site/app/core/dom.py", found_line(found, "site/app/core/dom.py")),
        ("site/boot/prerender.js", found_line(found, "site/boot/prerender.js")),
    }


def found_line(found: set[tuple[str, int]], path: str) -> int:
    lines = [number for where, number in found if where == path]
    assert len(lines) == 1, (path, lines)
    return lines[0]


def test_the_numbers_only_helper_is_fed_numbers():
    callers = [
        line.strip()
        for path in sources()
        for line in path.read_text().splitlines()
        if "set_number_markup(" in line and "def set_number_markup" not in line
    ]
    # The callers write a grid built by cells_markup, the thread picker's options built by options_markup
    # (through thread_options), which escape everything they are given, and the values in flight (motion.py),
    # each a number escaped into its span.
    assert len(callers) == 3
    assert sum("cells_markup(" in line for line in callers) == 1, callers
    assert any("thread_options(" in line for line in callers)
    flights = (ROOT / "site/app/widgets/motion.py").read_text()
    assert 'parts.append(f\'<span class="flight" data-level="{level}">{escape(fmt(move.value))}</span>\')' in flights
    assert "level = escape(" in flights
    picker = (ROOT / "site/app/views/playground/stepping.py").read_text()
    assert "return options_markup(" in picker.split("def thread_options", 1)[1].split("\n\n\n", 1)[0]


def test_grid_markup_escapes_what_it_is_given():
    from app.widgets.cellmarkup import cells_markup, options_markup

    markup = cells_markup(2, ["1", "<b>2</b>"], {1: 'x" onclick="alert(1)'}, {0: "<img src=x>"})
    assert "<b>" not in markup and "<img" not in markup and 'onclick="' not in markup
    assert markup.count("<span ") == 2 and 'data-r="0" data-c="1"' in markup
    options = options_markup([(0, "(0, 0)"), (1, "<img src=x onerror=alert(1)>")])
    assert "<img" not in options and options.count("<option ") == 2 and 'value="1"' in options


def test_no_inline_handlers_or_styles_in_the_page():
    html = (ROOT / "site/index.html").read_text()
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert "style=" not in html
    assert "'unsafe-inline'" not in html


# Where the functions a kernel can call come from: the access functions, the launch's 64-bit check and the
# runtime's own exceptions.
# intrinsics and math: the math.* functions, cuda.fma and the integer conversions a kernel calls (pure functions
# of numbers, no module or operand reachable through them)
RUNTIME_MODULES = {
    "pysim.play.guards",
    "pysim.play.intrinsics",
    "math",
    "pysim.play.launch",
    "pysim.play.runtime",
    "builtins",
}


def test_a_kernel_reaches_no_module_and_no_operands():
    """What a kernel's code can name: no module (so no `secrets`, NumPy or the grade's fresh operands), no
    builtins, no array but its three arguments; its functions are the runtime's own."""
    import types

    from pysim.play import compile_program
    from pysim.play.guards import F32_BUFFER, namespace
    from pysim.play.runtime import Runtime

    source = (ROOT / "pysim" / "play" / "starters" / "free_play.py").read_text()
    runtime = Runtime(compile_program(source), 1000)
    names = namespace(runtime)
    assert names.pop("__builtins__") == {}
    for name, value in names.items():
        assert not isinstance(value, types.ModuleType), name
        if value is runtime.values or value is F32_BUFFER or value is runtime.vectors.numbers:
            continue  # `_pl_values`: the run's access values (floats), which the step budget counts; `_pl_F`: the
            # one float the kernel rounds to float32 through; `_pl_vectors`: the run's table of iteration vectors
        assert isinstance(value, (int, float, type)) or callable(value), name
        if isinstance(value, types.BuiltinMethodType) and value.__self__ is runtime.vectors.numbers:
            continue  # `_pl_vset`: the run's own table of iteration vectors (a dict of tuples)
        assert getattr(value, "__module__", "pysim.play.guards") in RUNTIME_MODULES, name
