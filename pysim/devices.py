"""Device presets: the numbers the model and the walkthrough quote, each with its source.

Latencies are *modelled* values in core clock cycles, read off published
microbenchmarks; real latencies vary with clock, access pattern and load.
Where two sources disagree, both are kept (`Figure.alternative`).
"""

from __future__ import annotations

from dataclasses import dataclass

CUDA_GUIDE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications"
A100_DATASHEET = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
AMPERE_WHITEPAPER = (
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf"
)
H100_PAGE = "https://www.nvidia.com/en-us/data-center/h100/"
HOPPER_TUNING = "https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html"
H200_PAGE = "https://www.nvidia.com/en-us/data-center/h200/"
AMPERE_MICROBENCH = "https://arxiv.org/abs/2208.11174"
HOPPER_MICROBENCH = "https://arxiv.org/abs/2402.13499"
CHIPS_AND_CHEESE_H100 = "https://chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/"


@dataclass(frozen=True)
class Figure:
    """One number with where it comes from, and a second opinion where sources disagree."""

    value: float
    unit: str
    source: str
    alternative: str = ""


@dataclass(frozen=True)
class Device:
    key: str
    name: str
    dram_bandwidth: Figure
    l2_size: Figure
    shared_per_sm: Figure
    shared_per_block: Figure
    shared_per_block_optin: Figure
    max_threads_per_block: Figure
    latency_register: Figure
    latency_shared: Figure
    latency_l2: Figure
    latency_global: Figure

    @property
    def shared_limit_bytes(self) -> int:
        """Static shared memory a block may declare (the default limit the model checks)."""
        return int(self.shared_per_block.value) * 1024

    @property
    def thread_limit(self) -> int:
        return int(self.max_threads_per_block.value)


def _hopper(key: str, name: str, bandwidth: Figure) -> Device:
    return Device(
        key=key,
        name=name,
        dram_bandwidth=bandwidth,
        l2_size=Figure(50, "MB", HOPPER_TUNING),
        shared_per_sm=Figure(228, "KB", HOPPER_TUNING),
        shared_per_block=Figure(48, "KB", CUDA_GUIDE, "static limit; up to 227 KB with dynamic opt-in"),
        shared_per_block_optin=Figure(227, "KB", HOPPER_TUNING),
        max_threads_per_block=Figure(1024, "threads", CUDA_GUIDE),
        latency_register=Figure(1, "cycles", HOPPER_MICROBENCH, "operands are read as part of the instruction"),
        latency_shared=Figure(29, "cycles", HOPPER_MICROBENCH, f"about 30 cycles ({CHIPS_AND_CHEESE_H100})"),
        latency_l2=Figure(261, "cycles", HOPPER_MICROBENCH, f"far L2 partition slower ({CHIPS_AND_CHEESE_H100})"),
        latency_global=Figure(
            478, "cycles", HOPPER_MICROBENCH, f"about 400-800 cycles in the CUDA Programming Guide ({CUDA_GUIDE})"
        ),
    )


DEVICES: dict[str, Device] = {
    "a100": Device(
        key="a100",
        name="NVIDIA A100 40GB (SXM4)",
        dram_bandwidth=Figure(1555, "GB/s", A100_DATASHEET),
        l2_size=Figure(40, "MB", AMPERE_WHITEPAPER),
        shared_per_sm=Figure(164, "KB", CUDA_GUIDE),
        shared_per_block=Figure(48, "KB", CUDA_GUIDE, "static limit; up to 163 KB with dynamic opt-in"),
        shared_per_block_optin=Figure(163, "KB", CUDA_GUIDE),
        max_threads_per_block=Figure(1024, "threads", CUDA_GUIDE),
        latency_register=Figure(1, "cycles", AMPERE_MICROBENCH, "operands are read as part of the instruction"),
        latency_shared=Figure(29, "cycles", AMPERE_MICROBENCH, f"about 30 cycles ({CHIPS_AND_CHEESE_H100})"),
        latency_l2=Figure(200, "cycles", AMPERE_MICROBENCH, f"far L2 partition slower ({CHIPS_AND_CHEESE_H100})"),
        latency_global=Figure(
            290, "cycles", AMPERE_MICROBENCH, f"about 400-800 cycles in the CUDA Programming Guide ({CUDA_GUIDE})"
        ),
    ),
    "h100": _hopper("h100", "NVIDIA H100 SXM5", Figure(3350, "GB/s", H100_PAGE)),
    "h200": _hopper("h200", "NVIDIA H200 SXM", Figure(4800, "GB/s", H200_PAGE)),
}

DEFAULT_DEVICE = "a100"


def device(key: str) -> Device:
    return DEVICES[key]
