"""The new routes (#/naive, #/transpose, #/ladder) under axe-core in Chromium. The ladder's table, deep links and
roofline: tests/views/test_ladder.py."""

from pathlib import Path

from browser.conftest import go

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


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
