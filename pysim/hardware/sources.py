"""Where the device presets' numbers come from: one constant per document, NVIDIA's own first.

A figure is cited to NVIDIA's datasheet, whitepaper, tuning guide or CUDA guide wherever one states it
(issue 42 item 7: no retailer, gist mirror or crate docs). Measurements a vendor does not publish (clocks
under load, latencies in cycles) are cited to the study or thread that measured them, quoted where used.
"""

from __future__ import annotations

from .registers import CUDA_GUIDE_LIMITS

# --- NVIDIA's documents ----------------------------------------------------------
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
# The CUDA C++ Programming Guide, "Multiprocessor Level": a dependent arithmetic instruction's latency on cc 7.x.
CUDA_GUIDE_LATENCY = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#multiprocessor-level"
# Nsight Compute's kernel profiling guide: L1 and shared memory are one L1TEX unit, one data path.
NSIGHT_L1TEX = "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#memory-tables-l1"
# An NVIDIA engineer on the forum: "the T4 ... power capping ... about 70W. It is expected behavior for
# approximately continuous matrix multiply operations on a T4."
T4_POWER_CAP = "https://forums.developer.nvidia.com/t/about-gpu-peak-performance/264462"
L1_RETURN_RATE = "https://forums.developer.nvidia.com/t/unexpected-shared-memory-bank-conflict/77228/2"

# --- measurements NVIDIA does not publish -----------------------------------------
AMPERE_MICROBENCH_NOTES = "https://kayzee3327.github.io/the-cuda-cache/blog/demystifying-ampere-arch"  # 2208.11174
AMPERE_L2_NOTES = "https://kayzee3327.github.io/the-cuda-cache/blog/gtc-2021-ampere-details-via-microbenchmarking"
GPU_FEATURE_TABLE = "https://pmc.ncbi.nlm.nih.gov/articles/PMC10448217/table/t0015"  # V100/A100/H100 latencies
# Clocks under load: "A100 ... Core clocks went to 1410 MHz under load and stays there" (SXM4, 400 W); the
# H100 PCIe "occasionally dropped down to as low as 1395 MHz" of 1,755.
CHIPS_AND_CHEESE_H100 = "https://chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/"
# An H100 SXM5 microbenchmarked at its 1.98 GHz boost (CUDA 12.8), README section 3c: a 16 MB copy through L2
# with __ldcg/__stcg, "528 blocks (4× SMs) | 3,574 GB/s (3.6 TB/s)" (132 blocks: 3,223 GB/s).
H100_L2_STUDY = "https://github.com/ahmadsharif1/cuda_study/blob/0dc3e53e303241dce5cf2f8c185c07628240f714/README.md"
# Another H100 SXM5 and an RTX 4090, int32 copies through L2 ("case 3: 16 MB copy ... BW: 4199.223627 GB/s" and
# "... 3645.014244 GB/s"); on the H100, cp.async loads from L2: "bandwidth = 8428.563534 GB/s".
L2_COPIES_H100 = "https://github.com/smallscientist1/cuda_microbenchmark/blob/da1b812fe7dc948e81912bc4638cde21c276d0ff/analysis_H100.md"
L2_COPIES_RTX4090 = "https://github.com/smallscientist1/cuda_microbenchmark/blob/5df468184ab6ffe5637c6dbf968bd34adaf99f08/analysis_RTX4090.md"
# A T4 on AWS g4dn at its 1,590 MHz application clock: "dropping down to ~900 MHz" under a sustained load.
T4_UNDER_LOAD = "https://github.com/mlcommons/inference_results_v0.5/issues/20"
# "shows the card running 2730 MHz under a 97% load ... This is stock performance" (rated boost: 2,520 MHz).
RTX4090_STOCK_CLOCK = "https://hothardware.com/news/rtx-4090-amazing-32ghz-clock-shreds-pubg-330-fps"
# NVIDIA's TensorRT guide: "By default, the GPU clock frequency is floating, meaning it sits idle when there is no
# active workload and boosts the boost clock frequency when the workload starts."
FLOATING_CLOCK = "https://docs.nvidia.com/deeplearning/tensorrt/latest/performance/hw-sw-environment.html"
SIBOEHM_README = "https://github.com/siboehm/SGEMM_CUDA/blob/60cba6f9b20a198116c76f18de8047f44df8c8b8/README.md"

ASSUMED = "modelled"  # Figure.source of a modelled assumption: no statement giving the number was found
