"""The simulator's core: steps, accesses and traces, and the warp-level analyses (sectors, banks, lanes)."""
