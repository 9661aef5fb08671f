#!/usr/bin/env bash
# Benchmark (and optionally profile) the CUDA build on an NVIDIA GPU; logs into $OUT.
#   perf/h200_perf.sh <dir holding merge_attn_bench> [extra benchmark flags]
# Env: BENCH_GRID (default full), NCU_FILTER (a --benchmark_filter to profile with ncu; empty: none).
set -uo pipefail
bin=${1:?directory of merge_attn_bench}
shift
out=${OUT:-./perf-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:$here/.gpu-carry/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt"
"$bin/merge_attn_bench" --grid="${BENCH_GRID:-full}" --benchmark_counters_tabular=true \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@" > "$out/bench.txt" 2>&1
echo "bench exit $?"
# ncu: one launch of the merge kernel and one of the plain kernel, for each benchmark filter given
# in NCU_FILTERS (space separated; forms as in --benchmark_filter; --sweep is passed along).
n=0
for f in ${NCU_FILTERS:-}; do
  for k in MergeFunctor plain_merge; do
    n=$((n + 1))
    ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$k" \
        --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
        --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section InstructionStats \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
        "$bin/merge_attn_bench" --sweep --grid=smoke --benchmark_filter="$f" \
        --benchmark_min_time=0.01 > "$out/ncu-$n-$k.txt" 2>&1
    echo "ncu $f $k exit $?"
  done
done
