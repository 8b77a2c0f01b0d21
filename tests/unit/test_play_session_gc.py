"""pysim.play.session and the cyclic garbage collector (issue 22): a run's records are kept out of the
collector's reach once it is answered (a collection over them frees nothing and took 30-70 ms of the next
request), and what only a collection frees is freed every COLLECT_EVERY_RUNS runs, so a long session holds
no more than that many runs' worth of it."""

import gc
import json
from pathlib import Path

from pysim.play.session import COLLECT_EVERY_RUNS, Session

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "pysim" / "play" / "solutions" / "naive.py").read_text()
RUN = json.dumps({"op": "run", "source": NAIVE, "M": 4, "N": 4, "K": 4})


def collectable_after(runs: int) -> int:
    """Objects that only a collection frees, left by `runs` runs of a fresh session (counted by collecting)."""
    gc.unfreeze()
    gc.collect()
    session = Session()
    for _ in range(runs):
        session.handle(RUN)
    gc.unfreeze()
    return gc.collect()


def test_a_runs_records_are_out_of_the_collectors_reach_once_answered():
    session = Session()
    session.handle(RUN)
    record = session.result.intervals[0]
    # gc.get_objects lists what a collection walks; frozen objects are not in it.
    assert all(item is not record for item in gc.get_objects())
    gc.unfreeze()
    assert any(item is record for item in gc.get_objects())


def test_what_only_a_collection_frees_is_freed_every_so_many_runs():
    one = collectable_after(1)
    before = collectable_after(COLLECT_EVERY_RUNS - 1)
    after = collectable_after(COLLECT_EVERY_RUNS)
    assert one > 0  # a run leaves some (its compiled module's functions and namespace)
    assert before >= (COLLECT_EVERY_RUNS - 1) * one * 0.9  # they pile up...
    assert after <= 2 * one  # ...until the collection at the COLLECT_EVERY_RUNS-th run frees them
