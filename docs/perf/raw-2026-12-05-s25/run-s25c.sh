#!/bin/bash
# Session 25 (carry [".gpu-carry"]: merge_attn_tests-s25.xz, the CUDA test binary of the
# clean-clone CI proof of branch s25 (the plans and their tests); bench-plan.gz as run-s25b.sh):
#   bash docs/perf/raw-2026-12-05-s25/run-s25c.sh
# 1. perf/h200_validate.sh on the s25 test binary (any GPU).
# 2. On an H200 only: run-s25b.sh's 3 passes of the call against its plan, then the whole grid
#    (perf/h200_perf.sh) with the plan counters.
# One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s25cw; B=/tmp/s25cbin; mkdir -p $W $B
pack() { tar czf $OUT/s25c.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
OUT=$W/validation timeout 200 bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-s25.xz 2>&1 | tail -25
pack
grep -q H200 $W/gpu.txt || { echo "not an H200: no timing"; ls -la $OUT; exit 0; }
gunzip -c .gpu-carry/bin/bench-plan.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  timeout 150 $B/merge_attn_bench --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/plan-$pass.json --benchmark_out_format=json > $W/plan-$pass.txt 2>&1
  echo "pass $pass rc $? $(date +%T)"
  pack
done
OUT=$W/grid timeout 330 bash perf/h200_perf.sh $B
echo "grid rc $? $(date +%T)"
pack; ls -la $OUT
