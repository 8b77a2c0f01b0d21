"""Every validation rule raises ParamError naming the parameter, with the same text everywhere."""

import pytest

from pysim.hardware.params import NaiveParams, ParamError, RegisterParams, SmemParams, TransposeParams, parse_int


@pytest.mark.parametrize(
    "cls,raw,param,fragment",
    [
        (SmemParams, {"M": "abc"}, "M", "M must be a whole number (got 'abc')"),
        (SmemParams, {"K": "2.5"}, "K", "K must be a whole number"),
        (SmemParams, {"N": ""}, "N", "N must be a whole number"),
        (SmemParams, {"M": "0"}, "M", "M must be at least 1 (got 0)"),
        (SmemParams, {"M": "-3"}, "M", "M must be at least 1"),
        (SmemParams, {"K": "1000000000000"}, "K", "K must be at most 16,384"),
        (SmemParams, {"T": "64"}, "T", "T=64 needs 4,096 threads per block; a block holds at most 1,024"),
        (SmemParams, {"T": "33"}, "T", "1,089 threads per block"),
        (SmemParams, {"device": "gtx"}, "device", "device must be one of a100, h100, h200"),
        (NaiveParams, {"T": "40"}, "T", "1,600 threads per block"),
        (RegisterParams, {"BM": "8", "TM": "3"}, "TM", "BM=8 is not divisible by TM=3"),
        (RegisterParams, {"BN": "6", "TN": "4"}, "TN", "BN=6 is not divisible by TN=4"),
        (RegisterParams, {"BM": "64", "BN": "64", "TM": "1", "TN": "1"}, "TM", "4,096 threads per block"),
        (
            RegisterParams,
            {"BM": "128", "BN": "128", "BK": "64", "TM": "8", "TN": "8"},
            "BK",
            "65,536 bytes of shared memory",
        ),
        (TransposeParams, {"pad": "5"}, "pad", "pad must be at most 4"),
    ],
)
def test_invalid_values_name_the_parameter(cls, raw, param, fragment):
    with pytest.raises(ParamError) as caught:
        cls.parse(raw)
    assert caught.value.param == param
    assert fragment in caught.value.message


def test_integers_only_in_code_too():
    with pytest.raises(ParamError) as caught:
        SmemParams(M=2.0)
    assert caught.value.param == "M"
    with pytest.raises(ParamError):
        SmemParams(M=True)


def test_parse_round_trips_and_keeps_defaults():
    p = SmemParams.parse({"M": " 6 ", "T": "+3", "unknown": "x"})
    assert (p.M, p.N, p.K, p.T) == (6, 4, 8, 3)
    assert SmemParams.parse(p.as_strings()) == p


def test_long_hostile_text_is_shortened_in_the_message():
    with pytest.raises(ParamError) as caught:
        parse_int("M", "<script>" + "x" * 500, 1, 10)
    assert len(caught.value.message) < 100


def test_too_large_to_animate_names_the_size():
    assert SmemParams(M=64, N=64, K=64, T=8).too_large_to_animate() is None
    error = SmemParams(M=65, N=4, K=4, T=2).too_large_to_animate()
    assert error.param == "M" and "counts only" in error.message
    assert TransposeParams(n=100).too_large_to_animate().param == "n"


def test_presets_are_valid():
    for cls in (SmemParams, RegisterParams):
        for values in cls.PRESETS.values():
            cls(**values)


def test_sweep_walls_for_each_preset():
    from pysim.hardware.devices import DEVICES
    from pysim.lessons.formulas import largest_tile, sweep

    for device in DEVICES.values():
        points = sweep(1024, device, range(1, 97))
        assert next(p.T for p in points if p.over_threads) == 33  # 33² = 1089 > 1024
        assert next(p.T for p in points if p.over_shared) == 79  # 8·79² = 49,928 > 49,152
        assert points[0].speedup == 1 and points[15].speedup == 16
        assert largest_tile(device) == 32
        assert "1,089 threads" in points[32].wall


@pytest.mark.parametrize(
    "TM,TN,param,total",
    [
        (16, 16, "TM", 304),  # 256 accumulators + 32 fragments + 16 overhead
        (15, 15, "TM", 271),  # the first square over 255: 225 + 30 + 16
        (8, 32, "TN", 312),  # TN alone is the larger, so TN is named: 256 + 40 + 16
        (32, 8, "TM", 312),
    ],
)
def test_register_budget_over_255_is_an_input_error(TM, TN, param, total):
    with pytest.raises(ParamError) as caught:
        RegisterParams(M=256, N=256, K=8, BM=256, BN=256, BK=1, TM=TM, TN=TN)
    message = caught.value.message
    assert caught.value.param == param
    assert f"TM={TM}, TN={TN}" in message and f"about {total} registers" in message
    assert f"{TM * TN} accumulators" in message and "estimate" in message and "at most 255" in message


def test_register_budget_named_before_divisibility():
    # No BM or BN can make 16×16 fit, so that is what the reader is told first.
    with pytest.raises(ParamError) as caught:
        RegisterParams.parse({"BM": "4", "BN": "4", "TM": "16", "TN": "16"})
    assert caught.value.param == "TM" and "255" in caught.value.message


@pytest.mark.parametrize("TM,TN", [(8, 8), (14, 14), (16, 8)])
def test_register_budget_within_255_is_accepted(TM, TN):
    # 8×8 is what production SGEMM kernels use: 64 + 16 + 16 = 96 registers (estimate).
    RegisterParams(M=128, N=128, K=8, BM=4 * TM, BN=4 * TN, BK=1, TM=TM, TN=TN)


def test_register_wall_matches_the_budget():
    from pysim.hardware.registers import RegisterBudget, largest_square_tile

    assert largest_square_tile() == 14
    assert RegisterBudget(14, 14).fits and not RegisterBudget(15, 15).fits
