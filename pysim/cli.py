"""`python -m pysim`: counters and step traces from the command line (SPEC §3).

python -m pysim count --kernel smem --M 6 --N 6 --K 9 --tile 3 --json
python -m pysim trace --kernel register --M 8 --N 8 --K 8 --BM 4 --BN 4 --BK 4 --TM 2 --TN 2 --limit 20
"""

from __future__ import annotations

import argparse
import json
import sys

from .counters import COUNTER_LABELS
from .kernels import KERNELS
from .matrices import operands
from .params import ParamError, Params, parse_int
from .trace import Trace

# CLI option -> parameter name, per kernel.
OPTIONS = {
    "naive": {"M": "M", "N": "N", "K": "K", "tile": "T", "device": "device"},
    "smem": {"M": "M", "N": "N", "K": "K", "tile": "T", "device": "device"},
    "register": {name: name for name in ("M", "N", "K", "BM", "BN", "BK", "TM", "TN", "device")},
    "transpose": {"n": "n", "tile": "TILE", "pad": "pad", "device": "device"},
}


# Above this many multiply-adds the C check is skipped (c_matches: null): it would
# need the whole matrices in memory and seconds of NumPy time.
CHECK_LIMIT = 1 << 31


def one_line(message: str) -> str:
    """The message with every unprintable character escaped, so it stays on one line."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)


class OneLineParser(argparse.ArgumentParser):
    """Usage errors: exit 2 with a single line on stderr."""

    def error(self, message: str) -> None:
        self.exit(2, f"error: {one_line(message)}\n")


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m pysim", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, help_text in (("count", "print the SPEC §2 counters"), ("trace", "print the steps of a small run")):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("--kernel", choices=sorted(KERNELS), default="smem")
        for option in ("M", "N", "K", "tile", "BM", "BN", "BK", "TM", "TN", "n", "pad", "device"):
            sub.add_argument(f"--{option}", metavar="VALUE")
        sub.add_argument(
            "--seed", type=int, default=0, choices=range(0, 1 << 16), metavar="SEED", help="seed of the input matrices"
        )
        if name == "count":
            sub.add_argument("--json", action="store_true", help="one JSON object instead of a table")
        else:
            sub.add_argument("--thread", default="0", help="linear id of the thread to narrate")
            sub.add_argument("--limit", type=int, default=200, help="print at most this many steps")
    return parser


def params_from(args: argparse.Namespace) -> Params:
    raw = {}
    for option, value in vars(args).items():
        if value is None or option not in {*OPTIONS["register"], "tile", "n", "pad"}:
            continue
        if option not in OPTIONS[args.kernel]:
            raise ParamError(option, f"--{option} does not apply to the {args.kernel} kernel")
        raw[OPTIONS[args.kernel][option]] = value
    return KERNELS[args.kernel].PARAMS.parse(raw)


def count(args: argparse.Namespace, params: Params) -> None:
    kernel = KERNELS[args.kernel]
    totals = kernel.counters(params).as_dict()
    c_matches = None
    if params.M * params.N * params.K <= CHECK_LIMIT:
        A, B = operands(params.M, params.N, params.K, args.seed)
        c_matches = bool((kernel.run_c(params, A, B) == kernel.reference(A, B)).all())
    if args.json:
        print(json.dumps({"kernel": args.kernel, "params": params.as_strings(), **totals, "c_matches": c_matches}))
        return
    print(f"{kernel.TITLE}: " + ", ".join(f"{k}={v}" for k, v in params.as_strings().items()))
    for name, value in totals.items():
        print(f"  {COUNTER_LABELS[name]:<22}{value:>24,}")
    verdict = {True: "yes", False: "NO", None: "not checked (too large)"}[c_matches]
    print(f"  {'C matches NumPy':<22}{verdict:>24}")


def trace(args: argparse.Namespace, params: Params) -> None:
    kernel = KERNELS[args.kernel]
    too_large = params.too_large_to_animate()
    if too_large:
        raise too_large
    run = Trace(kernel, params, seed=args.seed)
    thread = parse_int("thread", args.thread, 0, kernel.threads(params) - 1)
    source = kernel.source(params)
    for step in run:
        if step.index >= args.limit:
            print(f"... {len(run) - args.limit} more steps (raise --limit)")
            break
        line = source[step.lines[1] - 1].strip()
        print(f"{step.index:>5} {step.phase:<8} L{step.lines[1]:<3} {kernel.narrate(step, params, thread)}")
        print(f"      {line}")
    print(f"C matches NumPy: {'yes' if run.verified() else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        params = params_from(args)
        (count if args.command == "count" else trace)(args, params)
    except ParamError as error:
        print(f"error: {one_line(error.message)}", file=sys.stderr)
        return 2
    return 0
