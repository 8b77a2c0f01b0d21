"""Barrier divergence by barrier instance: the same cuda.syncthreads() reached in different loop iterations is two
barriers; and each kind of divergence is described as a GPU of compute capability 7.0 or later behaves."""

from pysim.play import run


def kernel(body):
    return (
        "from numba import cuda, float32\n\n\n@cuda.jit\ndef kernel(A, B, C):\n"
        "    tx = cuda.threadIdx.x\n"
        + "".join(f"    {line}\n" for line in body)
        + "\n\ndef launch(M, N, K):\n    return 1, 64\n"
    )


def line_of(text, fragment):
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_one_barrier_line_reached_in_different_iterations_is_divergence():
    """Half the block waits there in iteration 0, the other half in iteration 1: every thread reaches the line
    once, in the same interval, yet they wait at two different barriers."""
    text = kernel(["for i in range(2):", "    if (tx < 32) == (i == 0): cuda.syncthreads()"])
    result = run(text, 1, 1, 1)
    (found,) = result.diagnostics_of("barrier_divergence")
    line = line_of(text, "cuda.syncthreads()")
    assert found.line == found.other_line == line
    assert f"in different iterations of the loop at line {line_of(text, 'for i in range(2)')}" in found.message
    assert "iteration 1" in found.message and "iteration 0" in found.message
    assert "deadlocks or misbehaves" in found.message


def test_two_barriers_in_two_branches_are_divergence():
    text = kernel(["if tx < 32:", "    cuda.syncthreads()", "else:", "    cuda.syncthreads()"])
    result = run(text, 1, 1, 1)
    (found,) = result.diagnostics_of("barrier_divergence")
    assert {found.line, found.other_line} == {line_of(text, "if tx < 32") + 1, line_of(text, "else:") + 1}
    assert "different cuda.syncthreads() calls" in found.message


def test_a_barrier_every_thread_reaches_in_the_same_iteration_is_fine():
    text = kernel(["for i in range(3):", "    cuda.syncthreads()"])
    assert not run(text, 1, 1, 1).diagnostics


def test_an_early_return_is_described_as_a_gpu_of_compute_capability_7_behaves():
    text = kernel(["if tx >= 40:", "    return", "cuda.syncthreads()"])
    (found,) = run(text, 1, 1, 1).diagnostics_of("barrier_divergence")
    assert "finished without reaching cuda.syncthreads()" in found.message
    assert "does not hang" in found.message and "7.0" in found.message
    assert "never stored" in found.message
    assert "hangs or misbehaves" not in found.message
