"""`python -m pysim`: counters and step traces from the command line (SPEC §3, §5).

python -m pysim count --kernel smem --M 6 --N 6 --K 9 --tile 3 --json
python -m pysim count --kernel naive --M 32 --N 32 --K 32 --tile 32 --map row    (map: col | row)
python -m pysim count --kernel transpose --n 64 --tile 32 --pad 1
python -m pysim trace --kernel register --M 8 --N 8 --K 8 --BM 4 --BN 4 --BK 4 --TM 2 --TN 2 --limit 20
python -m pysim trace --kernel smem --M 4 --N 4 --K 8 --tile 2 --json     (JSON Lines, SPEC §5)
python -m pysim run kernel.py --M 32 --N 32 --K 32 --json                  (a playground file, SPEC §5)
python -m pysim speed --kernel register --M 4096 --N 4096 --K 4096 --BM 128 --BN 128 --BK 8 --TM 8 --TN 8 \
    --device rtxa6000 --json                                               (model estimate and bounds, SPEC §6)
python -m pysim sass --kernel blocktile1d --BM 64 --BN 64 --BK 8 --TM 8 --arch sm_80 --json
                                  (what nvcc emits per main-loop iteration beside pysim's model, SPEC §7)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from .core.counters import COUNTER_LABELS
from .core.trace import Access, Step, Trace
from .hardware.params import ParamError, Params, parse_int
from .kernels import KERNELS, Kernel
from .lessons.narration import narration
from .runcommand import add_run_parser, run_file
from .text import one_line

# CLI option -> parameter name, per kernel.
OPTIONS = {
    "naive": {"M": "M", "N": "N", "K": "K", "tile": "T", "map": "map", "device": "device"},
    "smem": {"M": "M", "N": "N", "K": "K", "tile": "T", "device": "device"},
    "register": {name: name for name in ("M", "N", "K", "BM", "BN", "BK", "TM", "TN", "device")},
    "transpose": {"n": "n", "tile": "TILE", "pad": "pad", "device": "device"},
    "blocktile1d": {name: name for name in ("M", "N", "K", "BM", "BN", "BK", "TM", "device")},
    "vectorized": {name: name for name in ("M", "N", "K", "BM", "BN", "BK", "TM", "TN", "device")},
    "warptile": {
        name: name for name in ("M", "N", "K", "BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN", "threads", "device")
    },
}
OPTIONS["pipelined"] = {**OPTIONS["warptile"], "stages": "stages"}
OPTIONS["mma"] = {
    name: name
    for name in ("M", "N", "K", "BM", "BN", "BK", "WM", "WN", "stages", "swizzle", "swz_bits", "swz_base", "swz_shift")
    + ("split", "device")
}
OPTIONS["wgmma"] = {name: name for name in ("M", "N", "K", "BM", "BN", "BK", "stages", "consumers", "device")}

# Every kernel option, in the order --help lists them.
KNOWN_OPTIONS = tuple(dict.fromkeys(option for options in OPTIONS.values() for option in options))

# C is checked by running every step of the simulation and collecting what the
# threads stored; above this many steps (about ten seconds of CPython) the check
# is skipped and c_matches is null.
SIMULATE_LIMIT = 1_000_000
TEXT_LIMIT = 200  # steps the text trace prints unless --limit says otherwise


class OneLineParser(argparse.ArgumentParser):
    """Usage errors: exit 2 with a single line on stderr."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {one_line(message)}\n")


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m pysim", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, help_text in (("count", "print the SPEC §2 counters"), ("trace", "print the steps of a small run")):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("--kernel", choices=sorted(KERNELS), default="smem")
        for option in KNOWN_OPTIONS:
            sub.add_argument(f"--{option}", metavar="VALUE")
        sub.add_argument(
            "--seed", type=int, default=0, choices=range(0, 1 << 16), metavar="SEED", help="seed of the input matrices"
        )
        if name == "count":
            sub.add_argument("--json", action="store_true", help="one JSON object instead of a table")
        else:
            sub.add_argument("--thread", default="0", help="linear id of the thread to narrate")
            sub.add_argument(
                "--limit", type=int, help=f"print at most this many steps (default {TEXT_LIMIT}; all with --json)"
            )
            sub.add_argument("--json", action="store_true", help="JSON Lines: header, one object per step, then C")
    add_run_parser(commands)
    add_speed_parser(commands)
    add_sass_parser(commands)
    return parser


SASS_ARCHS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90")  # tools/sass/toolchain.py ARCHS, kept in step by a test
SASS_UNMODELLED = {
    "wgmma": "pysim's instruction model does not count TMA, mbarrier or wgmma instructions, and wgmma needs "
    "sm_90a, none of --arch's choices (tests/unit/test_wgmma_sass.py compiles the listing for sm_90a)",
}
"""Kernels `sass` refuses, each with why: their listing's own test reads nvcc's SASS instead."""


def add_sass_parser(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("sass", help="compile the listing with nvcc and count what it emits (needs nvcc)")
    sub.add_argument("--kernel", choices=sorted(KERNELS), default="smem")
    for option in KNOWN_OPTIONS:
        sub.add_argument(f"--{option}", metavar="VALUE")
    sub.add_argument("--arch", choices=SASS_ARCHS, default="sm_80")
    sub.add_argument("--json", action="store_true", help="one JSON object (SPEC §7)")


def sass(args: argparse.Namespace, params: Params) -> int:
    """nvcc's instruction mix of the main loop beside pysim's model; the compiler lives in tools/sass, a
    test dependency, imported only here."""
    try:
        from tools.sass import report, toolchain
    except ImportError:
        print("error: python -m pysim sass runs from a TileLab checkout (it needs tools/sass)", file=sys.stderr)
        return 2
    if args.kernel in SASS_UNMODELLED:
        print(f"error: --kernel {args.kernel}: {SASS_UNMODELLED[args.kernel]}", file=sys.stderr)
        return 2
    kernel = KERNELS[args.kernel]
    try:
        found = report.report(kernel, params, args.arch)
    except (toolchain.MissingToolchainError, toolchain.CompileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(found))
        return 0
    print(f"{kernel.TITLE} on {args.arch}: " + ", ".join(f"{k}={v}" for k, v in params.as_strings().items()))
    model = found["model"]["per_iteration"]
    print(f"  {'per main-loop iteration':<26}{'nvcc':>8}{'pysim':>8}")
    for name in sorted(set(found["per_iteration"]) | set(model)):
        print(f"  {name:<26}{found['per_iteration'].get(name, 0):>8}{model.get(name, 0):>8}")
    print("  agrees" if report.agrees(found) else "  DIFFERS: pysim's model does not count what nvcc emitted")
    for entry in found["lines"]:
        print(f"L{entry['line']:<4}{entry['text']}")
        for instruction in entry["sass"]:
            print(f"        {instruction}")
    return 0


def add_speed_parser(commands: argparse._SubParsersAction) -> None:
    from .speed import BUILDERS

    sub = commands.add_parser(
        "speed", help="estimate the run time on a device (a model) and its lower bounds at the rated clock"
    )
    sub.add_argument("--kernel", choices=sorted(set(BUILDERS) & set(KERNELS)), default="smem")
    for option in KNOWN_OPTIONS:
        sub.add_argument(f"--{option}", metavar="VALUE")
    sub.add_argument("--json", action="store_true", help="one JSON object (SPEC §6)")


def speed(args: argparse.Namespace, params: Params) -> None:
    from dataclasses import asdict

    from .hardware.devices import DEVICES
    from .speed import BANK_RULE, LATENCY, TENSOR, estimate

    device = params.device
    report = estimate(args.kernel, params, device)
    if args.json:
        found = {"kernel": args.kernel, "params": params.as_strings(), "device": device}
        found |= {"estimate_s": report.estimate_s, "gflops": report.gflops, "limiter": report.limiter}
        found |= {"units": {name: asdict(unit) for name, unit in report.units.items()}}
        # tensor_s only for a tensor-core kernel (SPEC §6's three bounds stay as they were for the others).
        bounds = {name: value for name, value in asdict(report.bounds).items() if value is not None}
        found |= {"bounds": bounds, "occupancy": asdict(report.occupancy)}
        print(json.dumps(found))
        return
    print(f"{KERNELS[args.kernel].TITLE} on {device}: " + ", ".join(f"{k}={v}" for k, v in params.as_strings().items()))
    print(f"  estimate (model)   {report.estimate_s:.4g} s, {report.gflops:,.1f} GFLOP/s")
    caveat = f" ({BANK_RULE})" if report.limiter_unverified else ""
    print(f"  limiter            {report.limiter}{caveat} (next: {report.next_limiter})")
    for name, unit in report.units.items():
        # A chain of round trips has no peak rate: its share is of the estimate, the time it would take alone.
        of = "of the estimate" if name == LATENCY else "of its peak"
        print(f"    {name:<9}{unit.seconds:>12.4g} s  {unit.share:>6.1%} {of}")
    b, clock = report.bounds, DEVICES[device].speed.boost_clock_mhz.value
    holds = f"no run at the rated {clock:,g} MHz boost clock is faster"
    if b.set_by == TENSOR:  # NVIDIA's TF32 figure is at its own clock, below the FP32 boost on Hopper (devices.py)
        holds = "no run at the clock NVIDIA's TF32 figure is rated at is faster (see the TF32 tensor peak line)"
    tensor = "" if b.tensor_s is None else f", tensor {b.tensor_s:.3g} s"
    # Where the assumed round trip sets the floor it is no bound, so the line is not headed "lower bound" then.
    label, says = (
        ("floor (estimate)", "set by the round trip at an assumed latency, not a bound")
        if b.set_by == LATENCY
        else ("lower bound", holds)
    )
    print(
        f"  {label:<19}{b.seconds:.4g} s (fp32 {b.fp32_s:.3g} s{tensor}, dram {b.dram_s:.3g} s, "
        f"latency {b.latency_s:.3g} s): {says}"
    )
    figure = DEVICES[device].tf32_tensor
    if b.tensor_s is not None and figure is not None and figure.alternative:
        print(f"  TF32 tensor peak   {figure.value:g} TFLOP/s, {figure.alternative}")
    print(f"  occupancy          {report.occupancy.blocks_per_sm} blocks, {report.occupancy.warps_per_sm} warps per SM")


def params_from(args: argparse.Namespace) -> Params:
    raw = {}
    for option, value in vars(args).items():
        if value is None or option not in KNOWN_OPTIONS:
            continue
        if option not in OPTIONS[args.kernel]:
            raise ParamError(option, f"--{option} does not apply to the {args.kernel} kernel")
        raw[OPTIONS[args.kernel][option]] = value
    return KERNELS[args.kernel].PARAMS.parse(raw)


def c_check(kernel: Kernel, params: Params, seed: int) -> bool | None:
    """Whether the C the simulated threads stored equals NumPy's; None when too large to simulate."""
    gx, gy = kernel.grid(params)
    if gx * gy * kernel.steps_per_block(params) > SIMULATE_LIMIT:
        return None
    return Trace(kernel, params, seed=seed).c_matches()


def count(args: argparse.Namespace, params: Params) -> None:
    kernel = KERNELS[args.kernel]
    totals = kernel.counters(params).as_dict()
    c_matches = c_check(kernel, params, args.seed)
    if args.json:
        print(json.dumps({"kernel": args.kernel, "params": params.as_strings(), **totals, "c_matches": c_matches}))
        return
    print(f"{kernel.TITLE}: " + ", ".join(f"{k}={v}" for k, v in params.as_strings().items()))
    for name, value in totals.items():
        print(f"  {COUNTER_LABELS[name]:<22}{value:>24,}")
    verdict = {True: "yes", False: "NO", None: "not checked (too many steps to simulate)"}[c_matches]
    print(f"  {'C matches NumPy':<22}{verdict:>24}")


def access_records(kernel: Kernel, params: Params, access: Access) -> list[dict]:
    """One SPEC §5 access object per thread that made the access; a vector access (SPEC §6) adds
    its `width` and gives `value` as the list of the `width` words it moved."""
    records = []
    for instruction, thread in zip(*access.active.nonzero()):
        value = access.values[instruction, thread]
        record = {
            "space": access.space,
            "op": access.op,
            "array": access.array,
            "index": [int(access.rows[instruction, thread]), int(access.cols[instruction, thread])],
            "thread": list(kernel.thread_xy(params, int(thread))),
            "value": float(value) if access.width == 1 else [float(v) for v in value],
        }
        if access.width != 1:
            record["width"] = access.width
        records.append(record)
    return records


def step_record(kernel: Kernel, params: Params, step: Step) -> dict:
    accesses = [record for access in step.accesses for record in access_records(kernel, params, access)]
    return {
        "index": step.index,
        "block": list(step.block),
        "phase": step.phase,
        "line": step.line,
        "accesses": accesses,
    }


def trace(args: argparse.Namespace, params: Params) -> None:
    kernel = KERNELS[args.kernel]
    too_large = params.too_large_to_animate()
    if too_large:
        raise too_large
    run = Trace(kernel, params, seed=args.seed)
    thread = parse_int("thread", args.thread, 0, kernel.threads(params) - 1)
    limit = args.limit if args.limit is not None else (len(run) if args.json else TEXT_LIMIT)
    if args.json:
        header = {"kernel": args.kernel, "params": params.as_strings(), "A": run.A.tolist(), "B": run.B.tolist()}
        print(json.dumps(header))
        for index in range(min(limit, len(run))):
            print(json.dumps(step_record(kernel, params, run[index])))
        c = [[None if value != value else float(value) for value in row] for row in run.final_c()]
        print(json.dumps({"C": c, "c_matches": run.c_matches()}))
        return
    source = kernel.source(params)
    for step in run:
        if step.index >= limit:
            print(f"... {len(run) - limit} more steps (raise --limit)")
            break
        line = source[step.line - 1].strip()
        print(f"{step.index:>5} {step.phase:<8} L{step.line:<3} {narration(kernel.NAME).narrate(step, params, thread)}")
        print(f"      {line}")
    print(f"C matches NumPy: {'yes' if run.c_matches() else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if args.command == "run":
        return run_file(args)
    try:
        params = params_from(args)
        if args.command == "sass":
            return sass(args, params)
        {"count": count, "trace": trace, "speed": speed}[args.command](args, params)
    except ParamError as error:
        print(f"error: {one_line(error.message)}", file=sys.stderr)
        return 2
    return 0
