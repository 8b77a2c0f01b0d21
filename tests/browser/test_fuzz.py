"""Hostile values through the address and the forms, in the real browser.

Every input must end in a valid state or an input-error naming a parameter;
never a Python error, a blank view, a hang, or executed markup.
"""

from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.urlstate import STEPPING_VIEWS
from browser.conftest import view
from pysim.kernels import KERNELS

STEPPING_KEYS = ("thread", "step", "mode")  # what every stepping view reads besides its kernel's parameters
# Every stepping view of the route table, with the address keys of its kernel's parameters; and the walkthrough.
VIEWS = {
    view.path.strip("/"): (*KERNELS[view.kernel].PARAMS().as_strings(), *STEPPING_KEYS) for view in STEPPING_VIEWS
} | {"hierarchy": ("N", "T", "device", "step", "pad", "access")}
CANARY = "window.__pwned = 1"
PAYLOADS = [
    f"<img src=x onerror='{CANARY}'>",
    f'"><svg onload="{CANARY}">',
    f"<script>{CANARY}</script>",
    "javascript:alert(1)",
    "' OR 1=1 --",
]
HOSTILE = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "-1",
            "-0",
            "1.5",
            "1e3",
            "0x10",
            "10" * 6,
            str(10**12),
            "64",
            "65",
            "33",
            "1,2",
            "9,9",
            "NaN",
            "∞",
            "٣",
            "ⅷ",
        ]
    ),
    st.sampled_from(PAYLOADS),
    st.integers(-(10**13), 10**13).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(str),
    st.text(max_size=12),
)
SMALL_VALID = st.integers(1, 12).map(str)


def hostile_hash(route: str, keys: tuple[str, ...], pairs: list[tuple[str, str]], cut: int | None) -> str:
    text = f"#/{route}?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in pairs)
    return text[:cut] if cut else text


def settle(app) -> None:
    app.page.wait_for_timeout(30)


def check_outcome(app, route: str) -> None:
    page = app.page
    assert page.evaluate("document.documentElement.dataset.state") == "ready"
    assert page.locator(".py-error").count() == 0
    assert page.evaluate("window.__pwned") is None
    section = view(app, route)
    assert section.locator(".app").inner_text().strip(), "blank view"
    error = section.locator("[data-testid=input-error]")
    if error.is_visible():
        message = error.inner_text()
        assert any(message.startswith(name) for name in VIEWS[route]), message


@settings(max_examples=240, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    route=st.sampled_from(list(VIEWS)),
    data=st.data(),
)
def test_hostile_addresses(app, route, data):
    keys = VIEWS[route]
    pairs = data.draw(
        st.lists(st.tuples(st.sampled_from([*keys, "junk", "embed"]), st.one_of(HOSTILE, SMALL_VALID)), max_size=6)
    )
    cut = data.draw(st.one_of(st.none(), st.integers(3, 60)))
    app.page.evaluate("hash => { location.hash = hash; }", hostile_hash(route, keys, pairs, cut))
    settle(app)
    check_outcome(app, route)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(route=st.sampled_from(list(VIEWS)), data=st.data())
def test_hostile_form_inputs(app, route, data):
    app.page.evaluate("r => { location.hash = '#/' + r; }", route)
    settle(app)
    section = view(app, route)
    section.locator("details.param-details > summary").evaluate_all(
        "ss => ss.forEach(s => { if (!s.parentElement.open) s.click(); })"
    )
    inputs = section.locator("form.param-form input[type=text]")
    count = inputs.count()
    for index in data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=3, unique=True)):
        inputs.nth(index).fill(data.draw(HOSTILE))
    section.locator("form.param-form [data-testid=apply]").click()
    settle(app)
    check_outcome(app, route)
    assert (
        section.locator(
            "[data-testid=input-error] img, [data-testid=input-error] script, [data-testid=input-error] svg"
        ).count()
        == 0
    )
