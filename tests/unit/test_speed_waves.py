"""The speed model's L2 wave pass (interval arithmetic over all waves at once) against a brute force
that walks the launch order block by block with Python sets."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from pysim.hardware.devices import DEVICES
from pysim.hardware.params import SmemParams
from pysim.speed.model import KernelProfile, Machine, _wave_dram_bytes
from pysim.speed.profiles import BUILDERS


def brute_force(m: Machine, prof: KernelProfile, resident: int) -> float:
    gx, gy = prof.grid
    wave = m.sms * resident
    a_tile, b_tile = 4.0 * prof.tile_m * prof.K, 4.0 * prof.K * prof.tile_n
    order = [(b % gx, b // gx) for b in range(gx * gy)]
    total, previous, previous_fits = 0.0, (set(), set()), False
    for first in range(0, len(order), wave):
        xs = {x for x, _ in order[first : first + wave]}
        ys = {y for _, y in order[first : first + wave]}
        new_x, new_y = (xs - previous[0], ys - previous[1]) if previous_fits else (xs, ys)
        rows, cols = (new_x, new_y) if prof.grid_x_is_row else (new_y, new_x)
        total += len(rows) * a_tile + len(cols) * b_tile
        every_row, every_col = (xs, ys) if prof.grid_x_is_row else (ys, xs)
        previous_fits = len(every_row) * a_tile + len(every_col) * b_tile <= m.l2_bytes
        previous = (xs, ys)
    return total


@settings(max_examples=60, deadline=None)
@given(
    gx=st.integers(1, 90),
    gy=st.integers(1, 90),
    K=st.integers(1, 4096),
    resident=st.integers(1, 16),
    row=st.booleans(),
    device=st.sampled_from(sorted(DEVICES)),
)
def test_wave_pass_equals_walking_the_launch_order(gx, gy, K, resident, row, device):
    prof = replace(BUILDERS["smem"](SmemParams(M=32, N=32, K=32, T=8)), grid=(gx, gy), K=K, grid_x_is_row=row)
    m = Machine.of(DEVICES[device])
    assert _wave_dram_bytes(m, prof, resident) == brute_force(m, prof, resident)
