"""Device presets: the numbers the model and the views quote, each with its source.

Hardware figures are the vendor's published peaks (FP32 without tensor cores,
dense, at the rated boost clock; DRAM bandwidth in decimal GB/s as vendors state
it; shared memory in KB = 1024 bytes as the CUDA C++ Programming Guide states it).
Latencies are the values the model uses, in core clock cycles. A latency whose
source is a URL has a statement there that gives the number (quoted in
`Figure.alternative`); one whose source is `ASSUMED` is a modelled assumption,
and its `alternative` says so and what published figures say instead. Real
latencies vary with clock, access pattern and load. Where two sources disagree,
or a number needs a word of context, `Figure.alternative` says so.

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
HOPPER_BLOG = "https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/"
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
# Secondary sources that state a latency in cycles (quoted where used):
AMPERE_MICROBENCH_NOTES = "https://kayzee3327.github.io/the-cuda-cache/blog/demystifying-ampere-arch"  # 2208.11174
AMPERE_L2_NOTES = "https://kayzee3327.github.io/the-cuda-cache/blog/gtc-2021-ampere-details-via-microbenchmarking"
GPU_FEATURE_TABLE = "https://pmc.ncbi.nlm.nih.gov/articles/PMC10448217/table/t0015"  # V100/A100/H100 latencies
SAME_DIE_H200 = (
    "https://ai-hpc.github.io/ai-hardware-engineer-roadmap/Phase%205%20-%20Advanced%20Topics%20and%20Specialization/"
    "1.%20GPU%20Infrastructure/Nvidia%20GPU/HPC%20Setup/8x-H200-Training-Inference/01-Hardware-Architecture"
)
CHIPS_AND_CHEESE_H100 = "https://chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/"
# "shows the card running 2730 MHz under a 97% load ... This is stock performance" (rated boost: 2,520 MHz).
RTX4090_STOCK_CLOCK = "https://hothardware.com/news/rtx-4090-amazing-32ghz-clock-shreds-pubg-330-fps"
ASSUMED = "modelled"  # Figure.source of a modelled assumption: no statement giving the number was found
# Speed-model figures (the statements quoted from them: scratch/speed FACTS.md, kept with pysim/speed).
SYSRQMTS_A6000 = "https://sysrqmts.com/es/gpus/compare/nvidia-rtx-a6000-vs-nvidia-tesla-p40"
SYSRQMTS_A100_T4 = "https://sysrqmts.com/gpus/compare/nvidia-a100-sxm4-40-gb-vs-nvidia-tesla-t4"
GA10X_SM = "https://gist.521000.best/getianao"  # GA10x whitepaper excerpt: 128 cores, 4 partitions, 256 KB RF per SM
H100_KLOCKWOOD = "https://glennklockwood.com/garden/processors/h100"
H200_SMS = "https://www.saulelectric.com/nvidia-h200.html"
RTX4090_SPECS = "https://holynerdvana.blogspot.com/2022/10/nvidia-geforce-rtx-4090-specifications.html"
SM86_LIMITS = "https://docs.rs/oxicuda-launch/0.4.1/oxicuda_launch/telemetry/enum.SmVersion.html"
L1_RETURN_RATE = "https://forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228/2"
LAUNCH_OVERHEAD = "http://www.cs.virginia.edu/~mwb7w/cuda_support/kernel_overhead.html"
SIBOEHM_README = "https://github.com/siboehm/SGEMM_CUDA/blob/60cba6f9b20a198116c76f18de8047f44df8c8b8/README.md"

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

    @property
    def assumed(self) -> bool:
        """A modelled assumption: no source states this number."""
        return self.source == ASSUMED


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


@dataclass(frozen=True)
class Fitted:
    """A constant solved so the model reproduces a measurement: what it was fitted to, on which card."""

    value: float
    fitted_to: str


@dataclass(frozen=True)
class SpeedFigures:
    """What the speed model (pysim/speed) needs beyond the facts table. `alternative` marks modelled values."""

    sm_count: Figure
    boost_clock_mhz: Figure  # the *rated* boost clock; under load a card can run below it, or above (fp32_note)
    fp32_lanes_per_sm: Figure
    schedulers_per_sm: Figure  # warp instructions issued per clock per SM, nominal
    l1_bytes_per_clock: Figure  # L1/shared return rate per SM: one 128 B wavefront per clock
    l2_bandwidth: Figure  # GB/s
    registers_per_sm: Figure
    max_warps_per_sm: Figure
    max_blocks_per_sm: Figure
    shared_reserved_per_block: Figure  # bytes the system keeps per resident block
    launch_overhead_us: Figure
    issue_efficiency: Fitted
    round_latency_cycles: Fitted
    overlap_p: Fitted


# At most three fitted constants per architecture; only GA102 (RTX A6000) is calibrated.
GA102_FIT = (
    Fitted(0.6813, f"siboehm's kernel 10 on the RTX A6000 at 4096³, 21779.3 GFLOP/s ({SIBOEHM_README})"),
    Fitted(573.1, f"siboehm's kernel 2 on the RTX A6000 at 4096³, 1986.5 GFLOP/s ({SIBOEHM_README})"),
    Fitted(4.0, "worst ratio over siboehm's kernels 1-6 and 10 on the RTX A6000, grid of p, the other two re-solved"),
)
PLACEHOLDER = "placeholder, not calibrated on this device: GA102's value, fitted to "
MODELLED = "modelled: no published figure found"


def _fit(calibrated: bool) -> dict[str, Fitted]:
    names = ("issue_efficiency", "round_latency_cycles", "overlap_p")
    return {
        name: fit if calibrated else Fitted(fit.value, PLACEHOLDER + fit.fitted_to)
        for name, fit in zip(names, GA102_FIT)
    }


def _speed(
    sms: Figure, clock: Figure, lanes: Figure, warps: Figure, blocks: Figure, l2_gbs: float, calibrated: bool = False
) -> SpeedFigures:
    # Shared by every preset: 4 schedulers and a 64 K-register file per SM (GA10x whitepaper; the same
    # on GA100, GH100, TU104, AD102), 128 B/clk L1 return, 1 KB reserved per block (cc >= 8.0), few-µs launches.
    return SpeedFigures(
        sm_count=sms,
        boost_clock_mhz=clock,
        fp32_lanes_per_sm=lanes,
        schedulers_per_sm=Figure(4, GA10X_SM, "one warp scheduler per SM partition, four partitions"),
        l1_bytes_per_clock=Figure(128, L1_RETURN_RATE, "stated for cc 7.0-7.5; assumed unchanged later"),
        l2_bandwidth=Figure(l2_gbs, ASSUMED, MODELLED + "; never the limiter of the calibrated kernels"),
        registers_per_sm=Figure(65536, GA10X_SM, "a 256 KB register file per SM"),
        max_warps_per_sm=warps,
        max_blocks_per_sm=blocks,
        shared_reserved_per_block=Figure(1024, CUDA_GUIDE, "1 KB system reservation per block"),
        launch_overhead_us=Figure(2, LAUNCH_OVERHEAD, "modelled: 'a few µs'; back-to-back launches hide most"),
        **_fit(calibrated),
    )


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
    speed: SpeedFigures

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
    def fp32_note(self) -> str:
        """Where the FP32 roof comes from: the vendor's peak is SMs × FP32 cores × 2 FLOP per FMA × the *rated*
        boost clock, so every time computed from it assumes that clock."""
        sp = self.speed
        sms, lanes, mhz = sp.sm_count.value, sp.fp32_lanes_per_sm.value, sp.boost_clock_mhz.value
        product = sms * lanes * 2 * mhz * 1e6 / TERA
        note = (
            f"at the rated boost clock: {sms:g} SMs × {lanes:g} FP32 cores × 2 FLOP per FMA × {mhz:,g} MHz = "
            f"{product:.3g} TFLOP/s. Under load the clock can be lower (an H100 PCIe dropped to 1,395 of its "
            f"1,755 MHz: {CHIPS_AND_CHEESE_H100}), which lowers the real roof. It can also be higher (a stock RTX 4090 "
            f"ran at 2,730 MHz under load against its rated 2,520: {RTX4090_STOCK_CLOCK}), so a bound from this roof "
            "holds at the rated clock, not above it"
        )
        return f"{note}; {self.fp32_peak.alternative}" if self.fp32_peak.alternative else note

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
        notes = {
            "FP32 peak (no tensor cores)": self.fp32_note(),
            "Ridge point (peak ÷ bandwidth)": "computed from the two rows above",
        }
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


# Latencies: the cycles the model uses. Each either has a source whose statement gives the number (quoted in
# the note) or is a modelled assumption (ASSUMED) whose note says so and what a published table gives instead.
# The pointer-chase papers (arXiv 2208.11174 on the A100, 2402.13499 on the H800) report memory latencies, but
# no statement of theirs containing 29, 261, 290 or 478 cycles was found, so those stay assumptions.
ASSUMPTION = "a modelled assumption: no statement giving this number was found"


def _assumed(cycles: int, table_cycles: int, chip: str) -> Figure:
    return Figure(
        cycles, ASSUMED, f"{ASSUMPTION}; Table 3 of {GPU_FEATURE_TABLE} gives {table_cycles} cycles for the {chip}"
    )


def _ampere_latencies() -> dict[str, Figure]:
    return {
        "latency_register": Figure(
            4,
            AMPERE_MICROBENCH_NOTES,
            "a dependent FP32 add on the A100: 'a single-precision add.f32 takes 4 cycles when dependent, but only "
            "2 cycles when independent' (arXiv 2208.11174, as summarised there)",
        ),
        "latency_shared": _assumed(29, 20, "A100"),
        "latency_l2": Figure(
            200,
            GPU_FEATURE_TABLE,
            "Table 3 there: 'L2 cache latency (clock cycles) 200' for the A100; the far half of the L2 is slower: "
            f"'a 1.75x slowdown when an SM has to access data from the far partition' ({AMPERE_L2_NOTES})",
        ),
        "latency_global": _assumed(290, 400, "A100"),
    }


def _borrowed_latencies() -> dict[str, Figure]:
    """The T4, RTX 4090 and RTX A6000: no published figure for these cards was checked, so the A100's are used,
    each a modelled assumption here and saying so."""
    return {
        field: Figure(
            figure.value,
            ASSUMED,
            f"a modelled assumption on this card: the A100's figure, not checked here (for the A100: {figure.alternative})",
        )
        for field, figure in _ampere_latencies().items()
    }


def _hopper_latencies() -> dict[str, Figure]:
    return {
        "latency_register": Figure(
            4, GPU_FEATURE_TABLE, "Table 3 there: 'arithmetic operation latency (cl. cyc.) 4' for the H100"
        ),
        "latency_shared": _assumed(29, 20, "H100"),
        "latency_l2": _assumed(261, 200, "H100"),
        "latency_global": _assumed(478, 400, "H100"),
    }


def _hopper(key: str, name: str, bandwidth: Figure, capacity: Figure, page: str, sms: Figure, l2_note: str) -> Device:
    # H100 SXM5 and H200 SXM share the GH100 chip and its FP32 units: they differ in memory only.
    return Device(
        key=key,
        name=name,
        fp32_peak=Figure(67, page, "same GH100 chip in H100 SXM and H200 SXM: their FP32 peaks are equal"),
        dram_bandwidth=bandwidth,
        dram_capacity=capacity,
        l2_size=Figure(50, HOPPER_BLOG, l2_note),
        shared_per_sm=Figure(228, HOPPER_TUNING),
        shared_per_block=_static_shared(),
        shared_per_block_optin=Figure(227, HOPPER_TUNING),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_hopper_latencies(),
        speed=_speed(
            sms,
            Figure(1980, H100_KLOCKWOOD, "rated boost, '1.98 GHz (high precision)'"),
            Figure(128, H100_KLOCKWOOD, "16,896 FP32 cores (128 per SM)"),
            Figure(64, CUDA_GUIDE, "cc 9.0: 2048 threads per SM"),
            Figure(32, CUDA_GUIDE),
            10000,
        ),
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
        speed=_speed(
            Figure(108, SYSRQMTS_A100_T4),
            Figure(1410, SYSRQMTS_A100_T4, "rated boost"),
            Figure(64, AMPERE_WHITEPAPER, "GA100: 64 FP32 cores per SM"),
            Figure(64, CUDA_GUIDE, "cc 8.0: 2048 threads per SM"),
            Figure(32, CUDA_GUIDE),
            5000,
        ),
    ),
    "h100": _hopper(
        "h100",
        "NVIDIA H100 SXM5",
        Figure(3350, H100_PAGE, "3.35 TB/s HBM3"),
        Figure(80, H100_PAGE),
        H100_PAGE,
        Figure(132, H100_KLOCKWOOD),
        "'A 50 MB L2 cache in H100 is 1.25x larger than the A100 40 MB L2'",
    ),
    "h200": _hopper(
        "h200",
        "NVIDIA H200 SXM",
        Figure(4800, H200_PAGE, "4.8 TB/s HBM3e"),
        Figure(141, H200_PAGE),
        H200_PAGE,
        Figure(132, H200_SMS),
        # NVIDIA states no L2 size for the H200; the H100's, on the same die, is the best figure there is.
        "stated for the H100, not the H200 ('A 50 MB L2 cache in H100 ...'): NVIDIA's H200 page gives no L2 size. "
        f"Taken as equal because the H200 'uses the same GH100 die as H100' ({SAME_DIE_H200})",
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
        **_borrowed_latencies(),
        speed=_speed(
            Figure(40, SYSRQMTS_A100_T4),
            Figure(1590, SYSRQMTS_A100_T4, "rated boost"),
            Figure(64, TURING_WHITEPAPER, "TU104: 64 FP32 cores per SM"),
            Figure(32, CUDA_GUIDE, "cc 7.5: 1024 threads per SM"),
            Figure(16, CUDA_GUIDE),
            1000,
        ),
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
        **_borrowed_latencies(),
        speed=_speed(
            Figure(128, RTX4090_SPECS),
            Figure(2520, RTX4090_SPECS, "rated boost"),
            Figure(128, ADA_WHITEPAPER, "AD102: 128 FP32 cores per SM"),
            Figure(48, SM86_LIMITS, "cc 8.9: 1536 threads per SM"),
            Figure(24, CUDA_GUIDE),
            5000,
        ),
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
        **_borrowed_latencies(),
        speed=_speed(
            Figure(84, SYSRQMTS_A6000, "'Conteo SM | 84'"),
            Figure(1800, SYSRQMTS_A6000, "rated boost ('Aumento de frecuencia | 1800 MHz'); sustained is lower"),
            Figure(128, GA10X_SM, "each SM: 128 CUDA cores"),
            Figure(48, SM86_LIMITS, "cc 8.6: 1536 threads per SM"),
            Figure(16, CUDA_GUIDE),
            2500,
            calibrated=True,
        ),
    ),
}

DEFAULT_DEVICE = "a100"


def device(key: str) -> Device:
    return DEVICES[key]
