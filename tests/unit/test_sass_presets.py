"""pysim/data/sass_presets.py is what `python -m tools.sass.write` writes today (nvcc, from the cache when
warm): stale data fails, naming the tool. A missing compiler fails too (never a skip)."""

from __future__ import annotations

import pytest

from tools.sass import toolchain, write


def test_the_committed_sass_is_what_nvcc_emits_now() -> None:
    try:
        toolchain.tool("nvcc"), toolchain.tool("nvdisasm")
    except toolchain.MissingToolchainError as error:
        pytest.fail(str(error))
    committed = write.TARGET.read_text(encoding="utf-8")
    assert committed == write.text(), f"{write.TARGET} is stale: run python -m tools.sass.write"
