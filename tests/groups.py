"""Replays a cp.async pipeline's groups over one block's steps (pipelined warptiling, the TF32 kernel): a
compute step may only read a tile whose group wait_group has retired."""


def replay(trace, stages):
    """The tiles waited for, in order; fails on a compute step whose tile has not landed."""
    waited, pending, landed, copying = [], [], set(), []
    for step in (trace[i] for i in range(trace.steps_per_block)):
        if step.phase == "load":
            copying.append(step.tile)
            assert step.accesses[1].asynchronous
        elif step.phase == "commit":
            pending.append(tuple(dict.fromkeys(copying)))
            copying = []
        elif step.phase == "wait":
            while len(pending) > stages - 1:
                landed.update(pending.pop(0))
            waited.append(step.tile)
        elif step.phase == "compute":
            assert step.tile in landed, step.index
    return waited
