"""Device presets: every figure present with a source, the numbers as the vendors publish them, and the panel."""

import re
import sys
from dataclasses import fields
from pathlib import Path
from types import ModuleType

import pytest

from pysim.hardware.devices import DEFAULT_DEVICE, DEVICES, Device, Figure, device
from pysim.speed import time_bound

ROOT = Path(__file__).resolve().parents[2]

# Typed here from the datasheets / whitepapers / CUDA guide (not read from pysim):
# FP32 TFLOP/s, DRAM GB/s, DRAM GB, L2 MB, shared KB per SM, opt-in KB per block.
PUBLISHED = {
    "a100": (19.5, 1555, 40, 40, 164, 163),
    "h100": (67, 3350, 80, 50, 228, 227),
    "h200": (67, 4800, 141, 50, 228, 227),
    "t4": (8.1, 320, 16, 4, 64, 64),
    "rtx4090": (82.6, 1008, 24, 72, 100, 99),
    "rtxa6000": (38.7, 768, 48, 6, 100, 99),
}
FIGURES = [f.name for f in fields(Device) if f.type in ("Figure", Figure)]


def test_presets_and_default():
    assert list(DEVICES) == ["a100", "h100", "h200", "t4", "rtx4090", "rtxa6000"]
    assert DEFAULT_DEVICE == "a100" and device("t4").key == "t4"
    assert all(d.key == key for key, d in DEVICES.items())


@pytest.mark.parametrize("key", DEVICES)
def test_every_figure_is_positive_and_sourced(key):
    d = DEVICES[key]
    assert len(FIGURES) == 13
    for name in FIGURES:
        figure = getattr(d, name)
        assert figure.value > 0, name
        # A URL, or (latencies only) the mark of a modelled assumption that says so in its note.
        assert figure.source.startswith("https://") or (name.startswith("latency_") and figure.assumed), name


def test_figure_has_no_unit_field():
    assert [f.name for f in fields(Figure)] == ["value", "source", "alternative"]


@pytest.mark.parametrize("key", DEVICES)
def test_published_numbers(key):
    d = DEVICES[key]
    got = (
        d.fp32_peak.value,
        d.dram_bandwidth.value,
        d.dram_capacity.value,
        d.l2_size.value,
        d.shared_per_sm.value,
        d.shared_per_block_optin.value,
    )
    assert got == PUBLISHED[key]
    # Limits every preset shares: 48 KB static shared memory, 1024 threads, 255 registers.
    assert (d.shared_limit_bytes, d.thread_limit, d.register_limit) == (49152, 1024, 255)


def test_latencies_kept():
    a100, h100 = DEVICES["a100"], DEVICES["h100"]
    assert [f.value for f in (a100.latency_register, a100.latency_shared, a100.latency_l2, a100.latency_global)] == [
        4,
        29,
        200,
        290,
    ]
    assert [f.value for f in (h100.latency_register, h100.latency_shared, h100.latency_l2, h100.latency_global)] == [
        4,
        29,
        261,
        478,
    ]
    assert "A100" in DEVICES["t4"].latency_global.alternative  # borrowed values say so


def test_h100_and_h200_differ_where_the_hardware_does():
    h100, h200 = DEVICES["h100"], DEVICES["h200"]
    assert h100.dram_bandwidth.value != h200.dram_bandwidth.value
    assert h100.dram_capacity.value != h200.dram_capacity.value
    assert h100.fp32_peak.value == h200.fp32_peak.value  # same GH100 FP32 units, and the note says so
    assert "equal" in h200.fp32_peak.alternative
    naive = dict(fma=1024**3, global_loads=2 * 1024**3, global_stores=1024**2, M=1024, N=1024, K=1024)
    assert time_bound(h100, **naive).no_reuse.memory_seconds > time_bound(h200, **naive).no_reuse.memory_seconds


def test_ridge_point_by_hand():
    assert float(DEVICES["a100"].ridge_point) == pytest.approx(19.5e12 / 1555e9)
    assert float(DEVICES["h200"].ridge_point) == pytest.approx(67e12 / 4800e9)


@pytest.mark.parametrize("key", DEVICES)
def test_facts_rows(key):
    facts = DEVICES[key].facts()
    labels = [f.label for f in facts]
    for needed in ("FP32 peak", "DRAM bandwidth", "DRAM capacity", "L2 cache", "Shared memory per SM"):
        assert any(label.startswith(needed) for label in labels), needed
    assert all(f.source.startswith("https://") and f.source_name for f in facts)
    by_label = {f.label: f.text for f in facts}
    assert by_label["DRAM bandwidth"].endswith(" GB/s")
    assert by_label["FP32 peak (no tensor cores)"].endswith(" TFLOP/s")
    assert by_label["Shared memory per block (static)"] == "48 KB"


def test_facts_text_for_the_h200():
    by_label = {f.label: f.text for f in DEVICES["h200"].facts()}
    assert by_label["DRAM bandwidth"] == "4,800 GB/s"
    assert by_label["DRAM capacity"] == "141 GB"
    assert by_label["FP32 peak (no tensor cores)"] == "67 TFLOP/s"


# --- the panel, on a small stand-in for the browser DOM ------------------------------
class FakeElement:
    def __init__(self, tag):
        self.tag, self.children, self.attributes, self.className, self._text = tag, [], {}, "", ""

    def setAttribute(self, name, value):
        self.attributes[name] = value

    def removeAttribute(self, name):
        self.attributes.pop(name, None)

    def appendChild(self, child):
        self.children.append(child)

    def removeChild(self, child):
        self.children.remove(child)

    @property
    def firstChild(self):
        return self.children[0] if self.children else None

    @property
    def textContent(self):
        return self._text + "".join(child.textContent for child in self.children)

    @textContent.setter
    def textContent(self, text):
        self._text, self.children = text, []

    def find(self, testid):
        if self.attributes.get("data-testid") == testid:
            return self
        return next((hit for child in self.children if (hit := child.find(testid))), None)

    def all(self, tag):
        return [self] * (self.tag == tag) + [hit for child in self.children for hit in child.all(tag)]


@pytest.fixture
def panel_module(monkeypatch):
    document = ModuleType("pyscript")
    document.document = type("Document", (), {"createElement": staticmethod(FakeElement)})()
    document.window = None
    ffi = ModuleType("pyodide.ffi")
    ffi.create_proxy = lambda handler: handler
    monkeypatch.setitem(sys.modules, "pyscript", document)
    monkeypatch.setitem(sys.modules, "pyodide", ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    monkeypatch.syspath_prepend(str(ROOT / "site"))
    for name in [name for name in sys.modules if name == "app" or name.startswith("app.")]:
        monkeypatch.delitem(sys.modules, name)
    import app.widgets.device_panel

    yield app.widgets.device_panel
    for name in [name for name in sys.modules if name == "app" or name.startswith("app.")]:
        del sys.modules[name]


def test_device_panel_shows_facts_and_bound(panel_module):
    panel = panel_module.DevicePanel()
    h200 = DEVICES["h200"]
    bound = time_bound(h200, fma=8**3, global_loads=2 * 8**3, global_stores=64, M=8, N=8, K=8)
    panel.show(h200, bound)
    table = panel.element.find("device-facts")
    links = table.all("a")
    assert len(links) == len(h200.facts())
    assert all(a.attributes["rel"] == "noopener noreferrer" and a.attributes["target"] == "_blank" for a in links)
    assert "4,800 GB/s" in table.textContent
    # Issue 39: the fourth column (the notes) had no header, and the caption named the device only in part.
    heads = [th for th in table.all("th") if th.attributes.get("scope") == "col"]
    assert [th.textContent for th in heads] == ["Figure", "Value", "Source", "Note"]
    assert {len(row.children) for row in table.all("tr")} == {len(heads)}
    assert panel.caption.textContent.startswith(f"{h200.name}: ")
    shown = panel.element.find("time-bound")
    assert float(shown.attributes["data-value"]) == bound.seconds == bound.latency_seconds  # 8³: the round trip
    assert shown.textContent.startswith("Floor on the NVIDIA H200 SXM, an estimate: 241 ns, set by one global-memory")
    # A floor set by the round trip is an estimate: no bound's heading, no bound's caveat.
    assert "not a prediction" not in panel.element.textContent
    assert panel.bound_heading.textContent == "Time floor (an estimate)"
    panel.show(DEVICES["h100"], time_bound(DEVICES["h100"], 512, 1024, 64, 8, 8, 8))
    assert "3,350 GB/s" in table.textContent and "4,800" not in table.textContent
    n = 4096
    panel.show(DEVICES["h100"], time_bound(DEVICES["h100"], n**3, 2 * n**3, n * n, n, n, n))  # the FP32 peak sets it
    assert "not a prediction" in panel.element.textContent
    assert panel.bound_heading.textContent == "Time bound (at the rated boost clock)"


# --- issue 25: every latency sourced or an assumption (item 8); the FP32 roof's clock, the H200's L2 (item 12) ----
LATENCIES = ("latency_register", "latency_shared", "latency_l2", "latency_global")


@pytest.mark.parametrize("key", DEVICES)
def test_every_latency_is_quoted_from_its_source_or_called_an_assumption(key):
    for name in LATENCIES:
        figure = getattr(DEVICES[key], name)
        if not figure.source.startswith("https://"):  # a modelled assumption
            assert figure.alternative.startswith("a modelled assumption"), name
        else:  # the note quotes the statement, and the statement gives the number the model uses
            assert figure.source.startswith("https://") and "'" in figure.alternative, name
            quoted = " ".join(re.findall(r"'([^']*)'", figure.alternative))
            assert re.search(rf"\b{figure.value:g}\b", quoted), (name, quoted)
        # The CUDA guide's limits section gives no latency; 400-800 was the guide's figure for cc 1.x/2.x.
        assert "400-800" not in figure.alternative and "#features-and-technical-specifications" not in figure.source


# Typed from the vendors' pages (SMs, FP32 cores per SM, rated boost MHz), not read from pysim.
RATED = {
    "a100": (108, 64, 1410),
    "h100": (132, 128, 1980),
    "h200": (132, 128, 1980),
    "t4": (40, 64, 1590),
    "rtx4090": (128, 128, 2520),
    "rtxa6000": (84, 128, 1800),
}


@pytest.mark.parametrize("key", DEVICES)
def test_the_fp32_roof_is_the_rated_boost_clock_and_says_so(key):
    sms, lanes, mhz = RATED[key]
    assert sms * lanes * 2 * mhz * 1e6 == pytest.approx(PUBLISHED[key][0] * 1e12, rel=0.01)
    note = next(f.note for f in DEVICES[key].facts() if f.label.startswith("FP32 peak"))
    assert "rated boost clock" in note and f"{mhz:,} MHz" in note and f"{sms} SMs" in note


def test_the_h200s_l2_says_it_is_the_h100s_figure():
    h200 = DEVICES["h200"].l2_size
    assert "stated for the H100, not the H200" in h200.alternative and "same GH100 die" in h200.alternative
    assert "H100" in DEVICES["h100"].l2_size.alternative and "50 MB" in DEVICES["h100"].l2_size.alternative


def test_the_t4s_arithmetic_latency_is_nvidias_statement_for_its_compute_capability():
    """Issue 42 item 7: where NVIDIA's CUDA guide states a figure (a dependent arithmetic instruction on cc 7.x, the
    T4's 7.5), the preset cites it, not a figure borrowed from another card."""
    figure = DEVICES["t4"].latency_register
    assert figure.source.startswith("https://docs.nvidia.com/cuda/") and not figure.assumed
    assert "compute capability 7.x" in figure.alternative and "typically 4 clock cycles" in figure.alternative
