"""The compiler panel (`data-testid="sass-panel"`, issue 40) of #/tiling, #/register and #/blocktile1d:
nvcc's instruction mix at the presets from pysim/data/sass_presets.py, and at other sizes the command."""

import pytest

ROUTES = {
    "register": "M=32&N=32&K=32&BM=16&BN=16&BK=4&TM=4&TN=4",
    "blocktile1d": "M=64&N=64&K=64&BM=64&BN=64&BK=8&TM=8",
}


def test_blocktile1d_at_siboehms_sizes_shows_the_merged_reads(page):
    page.go(f"#/blocktile1d?{ROUTES['blocktile1d']}&guide=0")
    panel = page.testid("sass-panel")
    assert page.attribute(panel, "data-state") == "shown"
    assert page.text(page.testid("sass-nvcc-LDS.128", panel)) == "16"
    assert page.text(page.testid("sass-nvcc-LDS", panel)) == "8"
    assert page.text(page.testid("sass-nvcc-FFMA", panel)) == "64"
    assert "16 LDS.128" in page.text(page.testid("sass-sentence", panel))


def test_register_at_its_second_preset(page):
    page.go(f"#/register?{ROUTES['register']}&guide=0")
    panel = page.testid("sass-panel")
    assert page.text(page.testid("sass-nvcc-LDS.128", panel)) == "8"
    assert "LDS.128" in page.inner_text(panel)


@pytest.mark.parametrize("route", ["tiling", "register", "blocktile1d"])
def test_other_sizes_say_so_and_give_the_command(page, route):
    page.go(f"#/{route}?M=7&N=9&K=5&guide=0")
    panel = page.testid("sass-panel")
    assert page.attribute(panel, "data-state") == "absent"
    assert "python -m pysim sass --kernel" in page.text(page.testid("sass-absent", panel))


def test_the_tiling_preset_is_shown(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2&guide=0")
    assert page.attribute(page.testid("sass-panel"), "data-state") == "shown"
    assert page.text(page.testid("sass-nvcc-LDS.64")) == "1"


def test_vectorized_has_no_panel(page):
    page.go("#/vectorized?guide=0")
    assert not page.all('[data-testid="sass-panel"]')
