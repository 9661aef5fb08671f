#!/bin/bash
# Session 26 (carry [".gpu-carry"]: merge_attn_tests-main.xz, the CUDA test binary of main ebfb843
# built from a clean clone (`cmake --workflow --preset cuda-build`), stripped; bench-main.gz as in
# run-s26a.sh):
#   bash docs/perf/raw-2026-12-06-s26/run-s26b.sh
# 1. perf/h200_validate.sh on main's test binary (any GPU): a62c891's plan test on a GPU.
# 2. On an H200 only: run-s26a.sh's three passes of the call against its plan, then main's whole
#    grid if at least 400 s of the call's 600 are left.
# One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s26w; B=/tmp/s26bin; mkdir -p $W $B
t0=$(date +%s)
pack() { tar czf $OUT/s26b.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
OUT=$W/validation timeout 240 bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-main.xz 2>&1 | tail -25
echo "validation done $(( $(date +%s) - t0 )) s"
pack
grep -q H200 $W/gpu.txt || { echo "not an H200: no timing"; exit 0; }
gunzip -c .gpu-carry/bin/bench-main.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  timeout 100 $B/merge_attn_bench --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/plan-$pass.json --benchmark_out_format=json > $W/plan-$pass.txt 2>&1
  echo "pass $pass rc $? $(( $(date +%s) - t0 )) s"
  pack
done
left=$(( 590 - ($(date +%s) - t0) ))
if [ $left -ge 400 ]; then
  OUT=$W/grid timeout $(( left - 10 )) bash perf/h200_perf.sh $B
  echo "grid rc $? $(( $(date +%s) - t0 )) s"
else
  echo "grid skipped: $left s left"
fi
pack; ls -la $OUT
