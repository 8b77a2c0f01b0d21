"""Device presets: the numbers the model and the views quote, each with its source.

Hardware figures are the vendor's published peaks (FP32 without tensor cores,
dense; DRAM bandwidth in decimal GB/s as vendors state it; shared memory in
KB = 1024 bytes as the CUDA C++ Programming Guide states it). Latencies are
*modelled* values in core clock cycles, read off published microbenchmarks;
real latencies vary with clock, access pattern and load. Where two sources
disagree, or a number needs a word of context, `Figure.alternative` says so.

Views print `Device.facts()`; they never format a unit themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from urllib.parse import urlsplit

from .registers import CUDA_GUIDE_LIMITS, MAX_REGISTERS_PER_THREAD

# --- sources -------------------------------------------------------------------
CUDA_GUIDE = CUDA_GUIDE_LIMITS  # "Technical Specifications per Compute Capability"
A100_DATASHEET = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
AMPERE_WHITEPAPER = (
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf"
)
AMPERE_TUNING = "https://docs.nvidia.com/cuda/ampere-tuning-guide/index.html"
H100_PAGE = "https://www.nvidia.com/en-us/data-center/h100/"
HOPPER_TUNING = "https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html"
H200_PAGE = "https://www.nvidia.com/en-us/data-center/h200/"
T4_DATASHEET = (
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
)
TURING_WHITEPAPER = "https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf"
TURING_TUNING = "https://docs.nvidia.com/cuda/turing-tuning-guide/index.html"
ADA_WHITEPAPER = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
ADA_TUNING = "https://docs.nvidia.com/cuda/ada-tuning-guide/index.html"
GA102_WHITEPAPER = "https://images.nvidia.com/aem-dam/en-zz/Solutions/geforce/ampere/pdf/NVIDIA-ampere-GA102-GPU-Architecture-Whitepaper-V1.pdf"
RTX_A6000_PAGE = "https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"
AMPERE_MICROBENCH = "https://arxiv.org/abs/2208.11174"
HOPPER_MICROBENCH = "https://arxiv.org/abs/2402.13499"
CHIPS_AND_CHEESE_H100 = "https://chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/"

TERA = 10**12
GIGA = 10**9
KIB = 1024
STATIC_SHARED_KB = 48  # a block's static __shared__ limit on every preset; more needs dynamic opt-in


@dataclass(frozen=True)
class Figure:
    """One number with where it comes from, and a second opinion or context where needed."""

    value: float
    source: str
    alternative: str = ""


@dataclass(frozen=True)
class Fact:
    """One row of a device's facts table, already formatted for display."""

    label: str
    text: str
    source: str
    note: str = ""

    @property
    def source_name(self) -> str:
        """The source's host, as link text: 'docs.nvidia.com', 'arxiv.org'."""
        return urlsplit(self.source).hostname or self.source


def _number(value: float) -> str:
    return f"{value:,g}"


@dataclass(frozen=True)
class Device:
    key: str
    name: str
    fp32_peak: Figure  # TFLOP/s, FP32 without tensor cores, dense
    dram_bandwidth: Figure  # GB/s (10^9 bytes per second)
    dram_capacity: Figure  # GB, as the vendor states it
    l2_size: Figure  # MB
    shared_per_sm: Figure  # KB (1024 bytes)
    shared_per_block: Figure  # KB, static limit
    shared_per_block_optin: Figure  # KB, with dynamic shared memory opt-in
    max_threads_per_block: Figure
    max_registers_per_thread: Figure
    latency_register: Figure  # modelled cycles
    latency_shared: Figure
    latency_l2: Figure
    latency_global: Figure

    # --- numbers the model computes with (exact, SI units) --------------------
    @property
    def shared_limit_bytes(self) -> int:
        """Static shared memory a block may declare (the default limit the model checks)."""
        return int(self.shared_per_block.value) * KIB

    @property
    def thread_limit(self) -> int:
        return int(self.max_threads_per_block.value)

    @property
    def register_limit(self) -> int:
        return int(self.max_registers_per_thread.value)

    @property
    def flops_per_second(self) -> Fraction:
        """FP32 peak in FLOP/s, exact (Fraction of the decimal the vendor prints), so bounds compare exactly."""
        return Fraction(str(self.fp32_peak.value)) * TERA

    @property
    def bytes_per_second(self) -> Fraction:
        return Fraction(str(self.dram_bandwidth.value)) * GIGA

    @property
    def ridge_point(self) -> Fraction:
        """FLOP per DRAM byte where the roofline's slope meets its roof: peak / bandwidth."""
        return self.flops_per_second / self.bytes_per_second

    # --- what views print -------------------------------------------------------
    def facts(self) -> tuple[Fact, ...]:
        """The hardware figures as display rows (label, value with unit, source, note)."""
        rows = (
            ("FP32 peak (no tensor cores)", f"{_number(self.fp32_peak.value)} TFLOP/s", self.fp32_peak),
            ("DRAM bandwidth", f"{_number(self.dram_bandwidth.value)} GB/s", self.dram_bandwidth),
            ("DRAM capacity", f"{_number(self.dram_capacity.value)} GB", self.dram_capacity),
            ("L2 cache", f"{_number(self.l2_size.value)} MB", self.l2_size),
            ("Shared memory per SM", f"{_number(self.shared_per_sm.value)} KB", self.shared_per_sm),
            ("Shared memory per block (static)", f"{_number(self.shared_per_block.value)} KB", self.shared_per_block),
            (
                "Shared memory per block (opt-in)",
                f"{_number(self.shared_per_block_optin.value)} KB",
                self.shared_per_block_optin,
            ),
            ("Threads per block (max)", _number(self.max_threads_per_block.value), self.max_threads_per_block),
            ("Registers per thread (max)", _number(self.max_registers_per_thread.value), self.max_registers_per_thread),
            ("Ridge point (peak ÷ bandwidth)", f"{float(self.ridge_point):.3g} FLOP/byte", self.fp32_peak),
        )
        notes = {"Ridge point (peak ÷ bandwidth)": "computed from the two rows above"}
        return tuple(
            Fact(label, text, figure.source, notes.get(label, figure.alternative)) for label, text, figure in rows
        )


# --- limits every preset shares (CUDA C++ Programming Guide) ---------------------
def _threads() -> Figure:
    return Figure(1024, CUDA_GUIDE)


def _registers() -> Figure:
    return Figure(MAX_REGISTERS_PER_THREAD, CUDA_GUIDE, "the compiler spills to local memory beyond it")


def _static_shared() -> Figure:
    return Figure(
        STATIC_SHARED_KB, CUDA_GUIDE, "for __shared__ arrays declared in the kernel; more needs dynamic opt-in"
    )


# Latencies: modelled cycles from microbenchmarks (kept as before; views quote them as modelled values).
def _ampere_latencies(measured_here: bool = True) -> dict[str, Figure]:
    # No comparable published measurement was checked for the T4, RTX 4090 and RTX A6000:
    # they reuse the A100's modelled values and say so, rather than quote unchecked numbers.
    elsewhere = "" if measured_here else "measured on an A100, used as the model here; "
    return {
        "latency_register": Figure(1, AMPERE_MICROBENCH, elsewhere + "operands are read as part of the instruction"),
        "latency_shared": Figure(29, AMPERE_MICROBENCH, elsewhere + f"about 30 cycles ({CHIPS_AND_CHEESE_H100})"),
        "latency_l2": Figure(200, AMPERE_MICROBENCH, elsewhere + f"far L2 partition slower ({CHIPS_AND_CHEESE_H100})"),
        "latency_global": Figure(
            290, AMPERE_MICROBENCH, elsewhere + f"about 400-800 cycles in the CUDA Programming Guide ({CUDA_GUIDE})"
        ),
    }


def _hopper_latencies() -> dict[str, Figure]:
    return {
        "latency_register": Figure(1, HOPPER_MICROBENCH, "operands are read as part of the instruction"),
        "latency_shared": Figure(29, HOPPER_MICROBENCH, f"about 30 cycles ({CHIPS_AND_CHEESE_H100})"),
        "latency_l2": Figure(261, HOPPER_MICROBENCH, f"far L2 partition slower ({CHIPS_AND_CHEESE_H100})"),
        "latency_global": Figure(
            478, HOPPER_MICROBENCH, f"about 400-800 cycles in the CUDA Programming Guide ({CUDA_GUIDE})"
        ),
    }


def _hopper(key: str, name: str, bandwidth: Figure, capacity: Figure, page: str) -> Device:
    # H100 SXM5 and H200 SXM share the GH100 chip and its FP32 units: they differ in memory only.
    return Device(
        key=key,
        name=name,
        fp32_peak=Figure(67, page, "same GH100 chip in H100 SXM and H200 SXM: their FP32 peaks are equal"),
        dram_bandwidth=bandwidth,
        dram_capacity=capacity,
        l2_size=Figure(50, HOPPER_TUNING, "the GH100 chip's L2, the same in H100 SXM and H200 SXM"),
        shared_per_sm=Figure(228, HOPPER_TUNING),
        shared_per_block=_static_shared(),
        shared_per_block_optin=Figure(227, HOPPER_TUNING),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_hopper_latencies(),
    )


def _ada_or_ga10x_shared(tuning: str) -> dict[str, Figure]:
    # Compute capability 8.6 (GA102) and 8.9 (AD102): 100 KB per SM, 99 KB per block with opt-in.
    return {
        "shared_per_sm": Figure(100, tuning),
        "shared_per_block": _static_shared(),
        "shared_per_block_optin": Figure(99, tuning),
    }


DEVICES: dict[str, Device] = {
    "a100": Device(
        key="a100",
        name="NVIDIA A100 40GB (SXM4)",
        fp32_peak=Figure(19.5, A100_DATASHEET),
        dram_bandwidth=Figure(1555, A100_DATASHEET),
        dram_capacity=Figure(40, A100_DATASHEET),
        l2_size=Figure(40, AMPERE_WHITEPAPER),
        shared_per_sm=Figure(164, CUDA_GUIDE),
        shared_per_block=_static_shared(),
        shared_per_block_optin=Figure(163, CUDA_GUIDE),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_ampere_latencies(),
    ),
    "h100": _hopper(
        "h100", "NVIDIA H100 SXM5", Figure(3350, H100_PAGE, "3.35 TB/s HBM3"), Figure(80, H100_PAGE), H100_PAGE
    ),
    "h200": _hopper(
        "h200", "NVIDIA H200 SXM", Figure(4800, H200_PAGE, "4.8 TB/s HBM3e"), Figure(141, H200_PAGE), H200_PAGE
    ),
    "t4": Device(
        key="t4",
        name="NVIDIA T4",
        fp32_peak=Figure(8.1, T4_DATASHEET, "the GPU free notebook services usually give"),
        dram_bandwidth=Figure(320, T4_DATASHEET, "the datasheet says 320+ GB/s"),
        dram_capacity=Figure(16, T4_DATASHEET),
        l2_size=Figure(4, TURING_WHITEPAPER, "4,096 KB on TU104, the chip the T4 uses"),
        shared_per_sm=Figure(64, TURING_TUNING),
        shared_per_block=_static_shared(),
        shared_per_block_optin=Figure(64, CUDA_GUIDE, "compute capability 7.5"),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_ampere_latencies(measured_here=False),
    ),
    "rtx4090": Device(
        key="rtx4090",
        name="NVIDIA GeForce RTX 4090",
        fp32_peak=Figure(82.6, ADA_WHITEPAPER),
        dram_bandwidth=Figure(1008, ADA_WHITEPAPER),
        dram_capacity=Figure(24, ADA_WHITEPAPER),
        l2_size=Figure(72, ADA_WHITEPAPER, "73,728 KB; the full AD102 chip has 96 MB"),
        **_ada_or_ga10x_shared(ADA_TUNING),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_ampere_latencies(measured_here=False),
    ),
    "rtxa6000": Device(
        key="rtxa6000",
        name="NVIDIA RTX A6000",
        fp32_peak=Figure(38.7, RTX_A6000_PAGE, "also in the GA102 whitepaper"),
        dram_bandwidth=Figure(768, RTX_A6000_PAGE),
        dram_capacity=Figure(48, RTX_A6000_PAGE),
        l2_size=Figure(6, GA102_WHITEPAPER, "6,144 KB"),
        **_ada_or_ga10x_shared(AMPERE_TUNING),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_ampere_latencies(measured_here=False),
    ),
}

DEFAULT_DEVICE = "a100"


def device(key: str) -> Device:
    return DEVICES[key]
