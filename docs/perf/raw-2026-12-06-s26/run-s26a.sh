#!/bin/bash
# Session 26, timing on an H200 only (carry [".gpu-carry"]: bench-main.gz, the CUDA bench of main
# ebfb843 built from a clean clone, `cmake --preset cuda` + target merge_attn_bench, stripped):
#   bash docs/perf/raw-2026-12-06-s26/run-s26a.sh
# 1. Not an H200: stop after nvidia-smi (the H100's plan timing is session 25's run1-h100).
# 2. Three passes of the call against its plan (session 25's run-s25b.sh entries: 1-1024 tokens x
#    8/32/128 heads x head sizes 64/128/576 x float/half/bf16, and the empty launches).
# 3. main's whole grid (perf/h200_perf.sh), with the plan counters.
# One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s26w; B=/tmp/s26bin; mkdir -p $W $B
pack() { tar czf $OUT/s26a.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
pack
grep -q H200 $W/gpu.txt || { echo "not an H200: no timing"; exit 0; }
gunzip -c .gpu-carry/bin/bench-main.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  timeout 100 $B/merge_attn_bench --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/plan-$pass.json --benchmark_out_format=json > $W/plan-$pass.txt 2>&1
  echo "pass $pass rc $? $(date +%T)"
  pack
done
OUT=$W/grid timeout 400 bash perf/h200_perf.sh $B
echo "grid rc $? $(date +%T)"
pack; ls -la $OUT
