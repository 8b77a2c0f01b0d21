"""The playground's arithmetic is the GPU's: float32 rounding where Numba types float32, float64 where it
types float64, each checked against NumPy float32 or Numba's own compiler; multiply-adds counted in every form.
"""

import ast
import importlib.util
from fractions import Fraction

import numpy as np
import pytest

from pysim.play import run
from pysim.play.numba_types import NumbaTypes

HEAD = "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
LAUNCH = "\n\ndef launch(M, N, K):\n    return ((N + 3) // 4, (M + 3) // 4), (4, 4)\n"


def dot_kernel(start: str) -> str:
    """One thread per C element; the accumulator starts as `start` (its type decides the arithmetic)."""
    return (
        HEAD
        + "    col, row = cuda.grid(2)\n"
        + "    if row < C.shape[0] and col < C.shape[1]:\n"
        + f"        acc = {start}\n"
        + "        for k in range(A.shape[1]):\n"
        + "            acc += A[row, k] * B[k, col]\n"
        + "        C[row, col] = acc\n"
        + LAUNCH
    )


def rounding_operands(M=5, N=6, K=96):
    """Operands whose dot products come out differently in float32 and in float64 arithmetic."""
    generator = np.random.default_rng(7)
    A = generator.standard_normal((M, K)).astype(np.float32)
    B = generator.standard_normal((K, N)).astype(np.float32)
    return A, B


def float32_accumulated(A, B, step):
    """C by NumPy float32 scalars, `acc = step(a, b, acc)` for each k."""
    C = np.zeros((A.shape[0], B.shape[1]), dtype=np.float32)
    for r in range(A.shape[0]):
        for c in range(B.shape[1]):
            acc = np.float32(0)
            for k in range(A.shape[1]):
                acc = step(A[r, k], B[k, c], acc)
            C[r, c] = acc
    return C


def float32_dots(A, B):
    """C by NumPy float32 scalars, one rounding after each multiply and each add (no fused multiply-add)."""
    return float32_accumulated(A, B, lambda a, b, acc: np.float32(acc + np.float32(a * b)))


def rounded_to_float32(exact):
    """The float32 nearest a Fraction, ties to even: the neighbours of NumPy's guess, compared exactly."""
    guess = np.float32(float(exact))
    candidates = [guess, np.nextafter(guess, np.float32(np.inf)), np.nextafter(guess, np.float32(-np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.array(c).view(np.uint32)) & 1))


def fma_emulated(x, y, z):
    """fma.rn.f32 by exact rational arithmetic: x·y + z rounded once (an emulation independent of pysim's)."""
    return rounded_to_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))


def fused_dots(A, B):
    """C as NVVM compiles `acc += A[row, k] * B[k, col]`: one fma.rn.f32 per step (its default `-fma=1`)."""
    return float32_accumulated(A, B, fma_emulated)


def float64_dots(A, B):
    """C accumulated in float64 from float32 products, rounded once when stored."""
    C = np.zeros((A.shape[0], B.shape[1]), dtype=np.float32)
    for r in range(A.shape[0]):
        for c in range(B.shape[1]):
            acc = 0.0
            for k in range(A.shape[1]):
                acc += float(np.float32(A[r, k] * B[k, c]))
            C[r, c] = acc
    return C


def test_a_float32_accumulator_fuses_each_multiply_add_as_nvvm_does():
    """Issue 42 item 8: NVVM contracts `acc += x*y` into fma.rn.f32 whatever fastmath says, so the playground
    rounds each multiply-add once, bit for bit with the exact emulation (and unlike rounding twice)."""
    A, B = rounding_operands()
    expected, twice, wide = fused_dots(A, B), float32_dots(A, B), float64_dots(A, B)
    assert np.count_nonzero(expected != wide) > 5  # the kernel's result depends on float32 rounding
    assert np.count_nonzero(expected != twice) > 5  # and on the fusion
    result = run(dot_kernel("float32(0.0)"), 5, 6, 96, A=A, B=B, expected=lambda a, b: expected)
    np.testing.assert_array_equal(result.C, expected)
    assert result.c_matches


@pytest.mark.parametrize(
    "body",
    [
        "acc = float32(0.5)\n    acc += x * y",
        "acc = float32(0.5)\n    acc -= x * y",
        "acc = x * y + z",
        "acc = z - x * y",
        "acc = x * y - z",
        "C[0, 0] = z\n    C[0, 0] += x * y",
    ],
)
def test_every_form_of_a_multiply_add_is_one_fma(body):
    """`+=`, `-=`, a product on either side, and an element updated in place: one rounding each."""
    generator = np.random.default_rng(3)
    A = generator.standard_normal((1, 3)).astype(np.float32)
    assign = "" if body.startswith("C[") else "\n    C[0, 0] = acc"
    text = f"{HEAD}    x = A[0, 0]\n    y = A[0, 1]\n    z = A[0, 2]\n    {body}{assign}\n\n\ndef launch(M, N, K):\n    return 1, 1\n"
    x, y, z = (np.float32(v) for v in A[0])
    half = np.float32(0.5)
    want = {
        "acc += x * y": fma_emulated(x, y, half),
        "acc -= x * y": fma_emulated(-x, y, half),
        "acc = x * y + z": fma_emulated(x, y, z),
        "acc = z - x * y": fma_emulated(-x, y, z),
        "acc = x * y - z": fma_emulated(x, y, -z),
        "C[0, 0] += x * y": fma_emulated(x, y, z),
    }[body.split("\n    ")[-1]]
    B = np.zeros((3, 1), dtype=np.float32)
    assert run(text, 1, 1, 3, A=A, B=B).C[0, 0] == want


def test_fma32_is_the_exactly_rounded_multiply_add():
    """pysim's TwoSum-and-round-to-odd fma against exact rationals, on random operands and on sums that land
    near a float32 halfway point (where rounding the float64 sum to float32 would round twice)."""
    from pysim.play.intrinsics import fma32

    generator = np.random.default_rng(11)
    triples = generator.standard_normal((3000, 3)).astype(np.float32)
    triples[:1000, 2] *= np.float32(2.0**-30)  # a tiny addend: the sum sits just off the product's halfway points
    for x, y, z in triples:
        assert np.float32(fma32(float(x), float(y), float(z))) == fma_emulated(x, y, z), (x, y, z)
    # x·y = 1 + 2^-11 + 2^-24, a float32 halfway point; + 2^-80 puts the exact sum just above it, so it rounds
    # up, while the float64 sum is the halfway point itself and would round to even, down.
    x = y = 1 + 2.0**-12
    above = fma_emulated(np.float32(x), np.float32(y), np.float32(2.0**-80))
    assert above == np.float32(1 + 2.0**-11 + 2.0**-23) != np.float32(x * y + 2.0**-80)
    assert np.float32(fma32(x, y, 2.0**-80)) == above


def test_a_float64_accumulator_is_float64_as_numba_types_it():
    """`acc = 0.0` is a float64 in Numba, so `acc += float32 * float32` adds in float64."""
    A, B = rounding_operands()
    result = run(dot_kernel("0.0"), 5, 6, 96, A=A, B=B)
    np.testing.assert_array_equal(result.C, float64_dots(A, B))
    assert np.count_nonzero(result.C != float32_dots(A, B)) > 5


numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")

# (expression, what it exercises); x and y are float32 elements, i an integer, d a float64 (none of them a
# literal, so Numba cannot fold a branch away).
EXPRESSIONS = [
    "x + y",
    "x * y - x",
    "x + 1",  # float32 with an int: float64
    "x * 2.0",  # with a float literal: float64
    "x / y",
    "i / 2",  # int / int: float64
    "i // 2 + i % 3",
    "x ** 2",  # powi keeps float32
    "-x",
    "abs(x)",
    "min(x, y)",
    "max(x, d)",
    "x if i > 0 else 0.0",
    "x if i > 0 else y",
    "float32(i) * x",
    "float(x) * y",  # float() of a float32 stays float32
    "float(i) * x",
    "x + True",
    "int(x) + i",
    "d * x + y",
]


@numba
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_types_of_expressions_are_numbas(expression):
    """NumbaTypes against numba.njit's own type inference (the CUDA target types like the CPU one)."""
    from numba import float32, njit

    body = f"    x = A[0, 0]\n    y = A[0, 1]\n    i = int(A[1, 1]) + 3\n    d = A[1, 0] * 0.5\n    r = {expression}\n    return r\n"
    namespace = {"float32": float32}
    exec(f"def f(A):\n{body}", namespace)
    compiled = njit(namespace["f"])
    compiled(np.ones((2, 2), dtype=np.float32))
    (signature,) = compiled.nopython_signatures
    expected = {"float32": "float32", "float64": "float64", "bool": "bool"}.get(str(signature.return_type), "int64")
    function = ast.parse(f"def f(A):\n{body}").body[0]
    types = NumbaTypes({}, ["A"])
    types.infer(function.body)
    assigned = function.body[4].value
    assert types.of(assigned) == expected, (expression, str(signature.return_type))


@numba
def test_a_loop_carried_variable_takes_the_join_of_its_definitions():
    """`acc = float32(0)` meeting `acc * 0.5` in a loop is float64 from the start, as Numba's SSA joins it."""
    from numba import float32, njit

    source = (
        "def f(A):\n    acc = float32(0)\n    for k in range(3):\n        acc = acc * 0.5 + A[0, k]\n    return acc\n"
    )
    namespace = {"float32": float32}
    exec(source, namespace)
    compiled = njit(namespace["f"])
    compiled(np.ones((1, 3), dtype=np.float32))
    assert str(compiled.nopython_signatures[0].return_type) == "float64"
    function = ast.parse(source).body[0]
    types = NumbaTypes({}, ["A"])
    types.infer(function.body)
    loop_value = function.body[1].body[0].value
    assert types.of(loop_value) == "float64" and types.of(loop_value.left.left) == "float64"


# (statement, multiply-adds it holds): a float product that is an operand of a float addition or subtraction.
FMA_FORMS = [
    ("acc += a * b", 1),
    ("acc += a * b + c * d", 2),
    ("acc = acc + a * b", 1),
    ("acc = a * b + acc", 1),
    ("acc -= a * b", 1),
    ("acc = a * b - c * d", 2),
    ("acc = a * b * c + d", 1),
    ("acc = a * b", 0),
    ("acc = (a + b) * c", 0),
    ("acc = acc + (a * b if k > 0 else 0.0)", 0),
    ("i = i * 2 + 1", 0),  # integer arithmetic is not an FMA
]


@pytest.mark.parametrize("statement,count", FMA_FORMS)
def test_fma_counts_every_multiply_add_form(statement, count):
    body = (
        "    acc = 0.0\n    i = 1\n    for k in range(3):\n"
        "        a = A[0, k]\n        b = B[k, 0]\n        c = A[0, k]\n        d = B[k, 0]\n"
        f"        {statement}\n"
    )
    result = run(HEAD + body + "\n\ndef launch(M, N, K):\n    return 1, (2, 1)\n", 1, 1, 3)
    assert result.counters.fma == count * 3 * 2  # per execution, 3 iterations, 2 threads


def test_a_global_atomic_add_flushes_denormals_and_a_shared_one_does_not():
    """The CUDA C++ Programming Guide (Floating-Point Standard): global float32 atomic adds run flush-to-zero,
    shared ones keep denormals. 2**-140 is a float32 denormal; NumPy float32 keeps it, the global add does not."""
    tiny = np.float32(2.0**-140)
    assert 0 < tiny < np.finfo(np.float32).tiny  # a denormal, not zero
    body = (
        "    s = cuda.shared.array(1, float32)\n    s[0] = float32(0.0)\n"
        "    cuda.atomic.add(s, 0, A[0, 0] * float32(2.0**-140))\n"
        "    cuda.atomic.add(C, (0, 0), A[0, 0] * float32(2.0**-140))\n"
        "    C[0, 1] = s[0]\n"
    )
    A = np.ones((1, 1), dtype=np.float32)
    B = np.ones((1, 2), dtype=np.float32)
    result = run(HEAD + body + "\n\ndef launch(M, N, K):\n    return 1, 1\n", 1, 2, 1, A=A, B=B)
    assert result.C[0, 0] == 0 and result.C[0, 1] == tiny
