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

from .registers import MAX_REGISTERS_PER_THREAD
from .sources import (
    A100_DATASHEET,
    ADA_TUNING,
    ADA_WHITEPAPER,
    AMPERE_L2_NOTES,
    AMPERE_MICROBENCH_NOTES,
    AMPERE_TUNING,
    AMPERE_WHITEPAPER,
    ASSUMED,
    CHIPS_AND_CHEESE_H100,
    CUDA_GUIDE,
    CUDA_GUIDE_LATENCY,
    GA102_WHITEPAPER,
    GPU_FEATURE_TABLE,
    H100_L2_STUDY,
    H100_PAGE,
    H200_PAGE,
    HOPPER_BLOG,
    HOPPER_TUNING,
    L2_COPIES_H100,
    L2_COPIES_RTX4090,
    RTX4090_STOCK_CLOCK,
    RTX_A6000_PAGE,
    T4_DATASHEET,
    T4_POWER_CAP,
    T4_UNDER_LOAD,
    TURING_TUNING,
    TURING_WHITEPAPER,
)
from .speed_figures import Figure, SpeedFigures, assumed_l2, rated_clocks, speed_figures

TERA = 10**12
GIGA = 10**9
KIB = 1024
STATIC_SHARED_KB = 48  # a block's static __shared__ limit on every preset; more needs dynamic opt-in


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
    speed: SpeedFigures
    # TFLOP/s on the tensor cores, dense (no sparsity), TF32 operands with FP32 accumulation (mma.sync .tf32), from
    # NVIDIA's datasheet or whitepaper; None where the card has no TF32 tensor cores (the T4, sm_75) or no figure was
    # found (the RTX A6000): the speed model then prices no tensor pipe and refuses a tensor-core kernel.
    tf32_tensor: Figure | None = None

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
    def tf32_per_second(self) -> Fraction | None:
        """Dense TF32 tensor peak in FLOP/s, exact; None where there is no figure."""
        return None if self.tf32_tensor is None else Fraction(str(self.tf32_tensor.value)) * TERA

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


def _turing_latencies() -> dict[str, Figure]:
    """The T4 (compute capability 7.5): the A100's memory latencies borrowed, the arithmetic one NVIDIA's own."""
    return {
        **_borrowed_latencies(),
        "latency_register": Figure(
            4,
            CUDA_GUIDE_LATENCY,
            "'On devices of compute capability 7.x, for most arithmetic instructions, it is typically 4 clock "
            "cycles'; the T4 is compute capability 7.5",
        ),
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


# The L2 bandwidth of the Hopper presets: the 3.6 TB/s an H100 SXM5 measured copying a working set that fits L2
# (H100_L2_STUDY; the figure issue 42 cites), with the other measurement found beside it.
H100_L2_GBS = 3574
H100_L2_MEASURED = "measured on an H100 SXM5: '528 blocks (4× SMs) | 3,574 GB/s (3.6 TB/s)', a 16 MB copy in L2"
H100_L2_OTHERS = (
    "another H100 SXM5 gave 'BW: 4199.223627 GB/s' for a 16 MB int32 copy and 'bandwidth = 8428.563534 GB/s' for "
    f"cp.async loads from L2 ({L2_COPIES_H100}): the figure depends on the access"
)


def _hopper(
    key: str, name: str, bandwidth: Figure, capacity: Figure, page: str, l2_note: str, l2_bandwidth: Figure
) -> Device:
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
        # H100 SXM5 and H200 SXM: the same GH100 tensor cores. The page gives 989 TFLOPS "with sparsity"; dense is
        # half. 494.7 / 67 = 7.4 where the A100's TF32 / FP32 is 8.0: NVIDIA's TF32 figure appears to assume a
        # lower clock than its FP32 one, so this roof holds at that clock, not necessarily at 1,980 MHz (the figure
        # is 132 SMs x 4 tensor cores x 256 TF32 FMA x 2 at about 1,830 MHz: arithmetic, no source found).
        # Hopper reaches this rate through wgmma; the older mma.sync (rung 12) is reported to fall well short of it
        # (Luo et al., "Dissecting the NVIDIA Hopper Architecture...", arXiv 2501.12084): as rung 12's pipe rate it
        # is optimistic (its estimate here is limited by L2, not by this pipe).
        tf32_tensor=Figure(
            494.7,
            page,
            "dense: half the page's 989 TFLOPS with sparsity; it implies a lower clock than the FP32 figure's 1,980 MHz",
        ),
        speed=speed_figures(
            Figure(132, HOPPER_BLOG, "H100 SXM5: 132 SMs; the H200 SXM's FP32 peak equals it on the same GH100"),
            rated_clocks(
                Figure(1980, page, "67 TFLOP/s ÷ (132 SMs × 128 FP32 cores × 2 FLOP per FMA) = 1.98 GHz"),
                "no SXM card's clock under load was found (an H100 PCIe, 350 W, dropped to 1,395 of its 1,755 MHz: "
                f"{CHIPS_AND_CHEESE_H100})",
            ),
            Figure(128, HOPPER_BLOG, "128 FP32 cores per SM"),
            Figure(64, CUDA_GUIDE, "cc 9.0: 2048 threads per SM"),
            Figure(32, CUDA_GUIDE),
            l2_bandwidth,
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
        # "TF32 Tensor Core 156 TF | 312 TF*" (* with sparsity): 8 times the FP32 peak at the same 1,410 MHz.
        tf32_tensor=Figure(156, A100_DATASHEET, "dense; 312 TF with sparsity"),
        dram_bandwidth=Figure(1555, A100_DATASHEET),
        dram_capacity=Figure(40, A100_DATASHEET),
        l2_size=Figure(40, AMPERE_WHITEPAPER),
        shared_per_sm=Figure(164, CUDA_GUIDE),
        shared_per_block=_static_shared(),
        shared_per_block_optin=Figure(163, CUDA_GUIDE),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_ampere_latencies(),
        speed=speed_figures(
            Figure(108, AMPERE_WHITEPAPER, "A100: 108 SMs"),
            (
                Figure(1410, AMPERE_WHITEPAPER, "rated boost"),
                Figure(1410, CHIPS_AND_CHEESE_H100, "an A100 SXM4 (400 W): 'went to 1410 MHz under load and stays'"),
            ),
            Figure(64, AMPERE_WHITEPAPER, "GA100: 64 FP32 cores per SM"),
            Figure(64, CUDA_GUIDE, "cc 8.0: 2048 threads per SM"),
            Figure(32, CUDA_GUIDE),
            assumed_l2(5000),
        ),
    ),
    "h100": _hopper(
        "h100",
        "NVIDIA H100 SXM5",
        Figure(3350, H100_PAGE, "3.35 TB/s HBM3"),
        Figure(80, H100_PAGE),
        H100_PAGE,
        "'A 50 MB L2 cache in H100 is 1.25x larger than the A100 40 MB L2'",
        Figure(
            H100_L2_GBS,
            H100_L2_STUDY,
            f"{H100_L2_MEASURED}, read and write counted; NVIDIA publishes none; {H100_L2_OTHERS}",
        ),
    ),
    "h200": _hopper(
        "h200",
        "NVIDIA H200 SXM",
        Figure(4800, H200_PAGE, "4.8 TB/s HBM3e"),
        Figure(141, H200_PAGE),
        H200_PAGE,
        # NVIDIA states no L2 size for the H200; the H100's, on the same die, is the best figure there is.
        "stated for the H100, not the H200 ('A 50 MB L2 cache in H100 ...'): NVIDIA's H200 page gives no L2 size. "
        "Taken as equal: the H200 page's FP32 peak, 67 TFLOP/s, is the H100 SXM5's: the same GH100 die",
        assumed_l2(
            H100_L2_GBS,
            f"the H100 SXM5's figure on the same die; {H100_L2_MEASURED} ({H100_L2_STUDY}); {H100_L2_OTHERS}",
        ),
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
        **_turing_latencies(),
        speed=speed_figures(
            Figure(40, TURING_WHITEPAPER, "Tesla T4: 40 SMs"),
            (
                Figure(1590, TURING_WHITEPAPER, "rated boost"),
                # The T4 is a 70 W card: a long SGEMM holds it at its power cap, far below the rated clock, which
                # is why the rated clock put kernel 10 at ~1.5x a T4's measured cuBLAS (issue 42 item 5).
                Figure(
                    900,
                    T4_UNDER_LOAD,
                    "a T4 at its 1,590 MHz application clock 'dropping down to ~900 MHz' under a sustained load; "
                    f"NVIDIA: power capping at 'about 70W' is 'expected behavior for approximately continuous "
                    f"matrix multiply operations on a T4' ({T4_POWER_CAP})",
                ),
            ),
            Figure(64, TURING_WHITEPAPER, "TU104: 64 FP32 cores per SM"),
            Figure(32, CUDA_GUIDE, "cc 7.5: 1024 threads per SM"),
            Figure(16, CUDA_GUIDE),
            assumed_l2(1000),
        ),
    ),
    "rtx4090": Device(
        key="rtx4090",
        name="NVIDIA GeForce RTX 4090",
        fp32_peak=Figure(82.6, ADA_WHITEPAPER),
        # The whitepaper's RTX 4090 column: "Peak TF32 Tensor TFLOPS 82.6/165.2" (dense/sparse), at the rated
        # 2,520 MHz, equal to its FP32 peak (GeForce Ada runs TF32 at the FP32 rate per SM).
        tf32_tensor=Figure(
            82.6,
            ADA_WHITEPAPER,
            "dense, at the rated 2,520 MHz boost clock; a card that clocks higher beats it, and a published cuBLAS "
            "TF32 run beats it (84.4 TFLOP/s at 4096³, pysim.hardware.measurements.TF32_CUBLAS): a roof at the "
            "rated clock, not a bound on this card",
        ),
        dram_bandwidth=Figure(1008, ADA_WHITEPAPER),
        dram_capacity=Figure(24, ADA_WHITEPAPER),
        l2_size=Figure(72, ADA_WHITEPAPER, "73,728 KB; the full AD102 chip has 96 MB"),
        **_ada_or_ga10x_shared(ADA_TUNING),
        max_threads_per_block=_threads(),
        max_registers_per_thread=_registers(),
        **_borrowed_latencies(),
        speed=speed_figures(
            Figure(128, ADA_WHITEPAPER, "RTX 4090: 128 SMs"),
            rated_clocks(
                Figure(2520, ADA_WHITEPAPER, "rated boost"),
                f"a stock card ran at 2,730 MHz under load ({RTX4090_STOCK_CLOCK}); the estimates do not assume "
                "it, so they stay at or above the bounds, which hold at the rated clock",
            ),
            Figure(128, ADA_WHITEPAPER, "AD102: 128 FP32 cores per SM"),
            Figure(48, CUDA_GUIDE, "cc 8.9: 1536 threads per SM"),
            Figure(24, CUDA_GUIDE),
            assumed_l2(
                5000,
                f"measured on an RTX 4090, a 16 MB int32 copy through L2: 'BW: 3645.014244 GB/s' ({L2_COPIES_RTX4090})",
            ),
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
        speed=speed_figures(
            Figure(84, RTX_A6000_PAGE, "10,752 CUDA cores, 128 per SM (GA102 whitepaper): 84 SMs"),
            rated_clocks(
                Figure(1800, RTX_A6000_PAGE, "38.7 TFLOP/s ÷ (84 SMs × 128 FP32 cores × 2 FLOP per FMA) = 1.80 GHz"),
                "the constants fitted on this card absorb what its clock under load differs by",
            ),
            Figure(128, GA102_WHITEPAPER, "each SM: 128 CUDA cores"),
            Figure(48, CUDA_GUIDE, "cc 8.6: 1536 threads per SM"),
            Figure(16, CUDA_GUIDE),
            assumed_l2(2500),
            calibrated=True,
        ),
    ),
}

DEFAULT_DEVICE = "a100"


def device(key: str) -> Device:
    return DEVICES[key]
