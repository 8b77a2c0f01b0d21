#!/usr/bin/env bash
# Everything a GPU session measures, as one command for a lent machine (minutes; never run on one yet):
#     bash bench/gpu/session.sh          logs to $OUT (the lent machine's folder that comes back), else ./gpu-session
# 1. the GPU, its driver and its clocks; 2. tests/unit/test_bench_gpu.py on the GPU (every runner builds, and a
# kernel that leaves a row of C unwritten fails C's check); 3. every kernel at 4096³ against the speed model of
# the preset named for this GPU, with Nsight Compute's counters where ncu can read them (issue 40 item 7);
# 4. naive map=row and map=col at 4096 and 4097 (issue 42 item 1: the odd-size cliff the model predicts).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-session}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if ! nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv \
  | tee "$out/gpu.txt"; then
  echo "no GPU answers nvidia-smi: this script measures one, run it where a GPU is at hand" >&2
  exit 1
fi
# --reruns is the browser layer's (pytest-rerunfailures, absent on a lent machine): addopts cleared.
python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/unit/test_bench_gpu.py 2>&1 | tee "$out/tests.txt"
python3 -m bench.gpu.run --reps 10 2>&1 | tee "$out/table.txt"  # the model: the preset named for this GPU
python3 -m bench.gpu.run --kernel naive --map row col --size 4096 4097 --reps 5 2>&1 \
  | tee "$out/odd-size.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$out/gpu.txt"
