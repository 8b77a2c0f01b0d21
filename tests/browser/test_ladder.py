"""#/ladder in Chromium: the table agrees with the CLI, deep links, the roofline, a11y of the new routes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from browser.conftest import go, url_has, view
from pysim.lessons.ladder import (
    SIBOEHM_NUMBER,
    LadderParams,
    cells,
    measured_seconds,
    measurement,
    roofline,
    siboehm_ladder,
    speed,
)
from pysim.lessons.speed_of_light import speed_of_light

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHECKED = ("global_loads", "global_sectors", "shared_loads", "bank_extra_cycles")


def section(app):
    return view(app, "ladder")


@pytest.mark.parametrize("device", ["a100", "t4"])
def test_table_agrees_with_the_cli(app, device):
    go(app, f"#/ladder?N=4096&device={device}")
    rows = section(app).locator("[data-testid^=ladder-row-]")
    assert rows.count() == 8
    for rung in siboehm_ladder(LadderParams(N=4096, device=device)):
        command = section(app).locator(f"[data-testid=ladder-cli-{rung.key}]").inner_text()
        argv = command.split()[3:]  # after "python -m pysim"
        done = subprocess.run(
            [sys.executable, "-m", "pysim", *argv, "--json"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        printed = json.loads(done.stdout)
        for name in CHECKED:
            shown = section(app).locator(f"[data-testid=ladder-{rung.key}-{name}]").get_attribute("data-value")
            assert int(shown) == printed[name], (rung.key, name)


def test_deep_link_and_device_change(app):
    go(app, "#/ladder?N=1000&T=16&device=rtx4090")
    assert section(app).locator("[data-testid=input-device]").input_value() == "rtx4090"
    assert "GeForce RTX 4090" in section(app).locator("[data-testid=ladder-device]").inner_text()
    section(app).locator("[data-testid=input-device]").select_option("h200")
    section(app).locator("[data-testid=apply]").click()
    assert url_has(app.page, "N=1000", "T=16", "device=h200")
    assert "H200" in section(app).locator("[data-testid=ladder-device]").inner_text()


def test_invalid_size_names_the_parameter(app):
    go(app, "#/ladder?N=4096&device=a100")
    section(app).locator("[data-testid=input-TM]").fill("3")
    section(app).locator("[data-testid=apply]").click()
    assert "BM=64 is not divisible by TM=3" in section(app).locator("[data-testid=input-error]").inner_text()
    assert url_has(app.page, "TM=4")


@pytest.mark.parametrize(
    "query", ["N=4096&device=rtxa6000", "N=4096&T=16&device=rtxa6000", "N=4096&device=t4", "N=16384&device=h100"]
)
def test_roofline_has_the_roof_and_a_point_per_kernel(app, query):
    go(app, f"#/ladder?{query}")
    params = LadderParams.parse(dict(pair.split("=") for pair in query.split("&")))
    rungs = siboehm_ladder(params)
    runnable = [rung for rung in rungs if speed(rung) is not None]
    points = {point.key: point for point in roofline(params, rungs).points}
    chart = section(app).locator("[data-testid=roofline] svg")
    assert chart.locator("[data-testid=roof]").count() == 1
    estimates = chart.locator("circle.estimate-mark")
    assert estimates.count() == len(runnable)
    assert [estimates.nth(i).get_attribute("data-key") for i in range(len(runnable))] == [r.key for r in runnable]
    for i, rung in enumerate(runnable):  # Pyodide's libm may round the model's p-norm an ulp apart from CPython's
        point = points[rung.key]
        assert float(estimates.nth(i).get_attribute("data-intensity")) == pytest.approx(point.intensity, rel=1e-12)
        assert float(estimates.nth(i).get_attribute("data-estimate")) == pytest.approx(point.estimate, rel=1e-12)
    mine = params.device == "rtxa6000" and params.N == 4096
    tile_ok = params.T == 32
    expected = [
        r.key for r in runnable if mine and r.key in SIBOEHM_NUMBER and (tile_ok or r.kernel not in ("naive", "smem"))
    ]
    measured = chart.locator("path.measured-mark")
    assert [measured.nth(i).get_attribute("data-key") for i in range(measured.count())] == expected
    for i, key in enumerate(expected):
        gflops, _ = measurement(next(r for r in runnable if r.key == key))
        assert float(measured.nth(i).get_attribute("data-measured")) == gflops * 1e9, key
        assert float(measured.nth(i).get_attribute("data-intensity")) == pytest.approx(points[key].intensity, rel=1e-12)
    key = section(app).locator("[data-testid=roofline-key] li")
    assert [key.nth(i).inner_text().strip() for i in range(key.count())] == [points[r.key].describe() for r in runnable]


def test_estimate_bound_and_measured_on_the_a6000(app):
    go(app, "#/ladder?N=4096&device=rtxa6000")
    page = section(app)
    rungs = siboehm_ladder(LadderParams(N=4096, device="rtxa6000"))
    for rung in rungs:
        expected = cells(rung)
        shown = {
            column: page.locator(f"[data-testid=ladder-{rung.key}-{column}]")
            for column in ("estimate", "bound", "measured")
        }
        for column, cell in shown.items():
            value = cell.get_attribute("data-value")
            if column == "estimate":  # the model's p-norm: Pyodide's libm may round it an ulp apart from CPython's
                assert float(value) == pytest.approx(float(expected[column].value), rel=1e-12), rung.key
            else:
                assert value == expected[column].value, (rung.key, column)
            assert cell.inner_text() == expected[column].text, (rung.key, column)
        if rung.key in SIBOEHM_NUMBER:
            assert "measured on RTX A6000, N=4096" in shown["measured"].inner_text()
            assert "another" not in shown["measured"].inner_text()
            measured_s = measured_seconds(float(shown["measured"].get_attribute("data-value")))
            assert float(shown["bound"].get_attribute("data-value")) <= measured_s, rung.key
            assert float(shown["estimate"].get_attribute("data-value")) > 0
        else:
            assert shown["measured"].inner_text() == ""
        figure = page.locator(f"[data-testid=sol-{rung.key}]")
        sol = speed_of_light(rung)
        assert figure.get_attribute("data-limiter") == sol.limiter
        bars = figure.locator("rect.sol-bar")
        assert bars.count() == 7
        shares = [float(bars.nth(i).get_attribute("data-share")) for i in range(7)]
        assert shares == pytest.approx([b.share for b in sol.bars], rel=1e-12)
        limiter = figure.locator("rect.sol-limiter")
        assert limiter.count() == 1 and limiter.get_attribute("data-unit") == sol.limiter
        assert "◀ limiter" in figure.locator("text.sol-limiter").text_content()  # SVG text: no innerText
        assert figure.locator("svg").get_attribute("aria-label") == sol.description
    assert page.locator("[data-testid^=ladder-step-]").count() == len(rungs) - 1
    assert "kernel 3 → kernel 4" in page.locator("[data-testid=ladder-step-blocktile1d]").inner_text()


def test_measured_says_when_card_or_size_differ(app):
    go(app, "#/ladder?N=1024&device=t4")
    text = section(app).locator("[data-testid=ladder-warptile-measured]").inner_text()
    assert "on another card" in text and "at another size" in text


def test_home_has_cards_for_the_new_views(app):
    go(app, "#/")
    for route in ("naive", "transpose", "ladder"):
        assert app.page.locator(f"#view-landing .cards a[href='#/{route}']").count() == 1
        assert app.page.locator(f".site-header nav a[data-nav='/{route}']").count() == 1


def test_axe_finds_no_serious_violations_in_the_new_views(app):
    source = AXE.read_text()
    for route in (
        "#/naive?M=32&N=32&K=8&T=32&map=row&step=3",
        "#/transpose?n=64&T=32&pad=0&step=3",
        "#/ladder?N=4096&device=t4",
    ):
        go(app, route)
        app.page.wait_for_timeout(200)
        app.page.evaluate(source)
        result = app.page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        bad = [
            f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], f"{route}: {bad}"
