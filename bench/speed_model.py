"""The speed model against every published run: siboehm's kernels at 4096³ on the RTX A6000 (the calibration),
then each out-of-sample run (pysim.hardware.measurements): estimate, measured, ratio, source.

python -m bench.speed_model
"""

from __future__ import annotations

from dataclasses import is_dataclass, replace
from types import SimpleNamespace
from typing import Any

from pysim.hardware.measurements import RUNS
from pysim.speed import estimate, measured
from pysim.speed.measured import SIZE
from pysim.speed.profiles import RunnerShape

DEVICE = "rtxa6000"
n = SIZE
# siboehm's kernel number -> (TileLab kernel key, the runner's parameters for it).
RUNGS = {
    1: ("naive", SimpleNamespace(M=n, N=n, K=n, T=32, map="row")),
    2: ("naive", SimpleNamespace(M=n, N=n, K=n, T=32, map="col")),
    3: ("smem", SimpleNamespace(M=n, N=n, K=n, T=32)),
    4: ("blocktile1d", RunnerShape(n, n, n, BM=64, BN=64, BK=8, TM=8)),
    5: ("register", RunnerShape(n, n, n)),
    6: ("vectorized", RunnerShape(n, n, n)),
    10: ("warptile", RunnerShape(n, n, n, BK=16, TN=4)),
}


def rung_at(number: int, size: int) -> tuple[str, Any]:
    """siboehm's kernel `number` as his runner launches it, at M = N = K = size."""
    kernel, params = RUNGS[number]
    square = {"M": size, "N": size, "K": size}
    return kernel, replace(params, **square) if is_dataclass(params) else SimpleNamespace(**{**vars(params), **square})


def out_of_sample() -> None:
    print(f"\n{'preset':<22}{'N':>6} {'k':>3}{'estimate':>10}{'measured':>10}{'ratio':>7}  source")
    for run in RUNS:
        for number, gflops in run.gflops if not run.calibration else ():
            if number in RUNGS:
                report = estimate(*rung_at(number, run.size), run.preset)
                print(
                    f"{run.preset:<22}{run.size:>6} {number:>3}{report.gflops:>10.1f}{gflops:>10.1f}"
                    f"{report.gflops / gflops:>7.2f}  {run.cite}"
                )


def main() -> None:
    print(f"{'rung':<16}{'estimate GF/s':>14}{'measured':>10}{'ratio':>7}  {'limiter':<8}next")
    for number, (kernel, params) in RUNGS.items():
        report, cited = estimate(kernel, params, DEVICE), measured(number)
        assert cited is not None
        ratio = report.gflops / cited.gflops
        print(
            f"k{number:<3}{kernel:<12}{report.gflops:>14.1f}{cited.gflops:>10.1f}{ratio:>7.2f}  "
            f"{report.limiter:<8}{report.next_limiter}"
        )
    out_of_sample()


if __name__ == "__main__":
    main()
