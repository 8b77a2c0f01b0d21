"""#/playground: write a Numba-CUDA kernel, run it on pysim.play, step through what it did, solve puzzles.

`page` holds the view (editor, sizes, address, Run); `card` the puzzle card and its
grade; `results` what a run produced (counters, diagnostics, C against NumPy);
`stepping` the interval-by-interval player with its grids, thread and warp tables;
`texts` the few formats they share.
"""
