"""Widgets the views are built from: grids, player, form, counters, code panel, charts, warp pictures."""
