#!/bin/bash
# Session 27 (carry [".gpu-carry"]: merge_attn_tests.xz, the CUDA test binary of branch s27 with
# graph-backed plans, stripped; bench.gz, its bench, stripped):
#   bash docs/perf/raw-2026-12-06-s27/run-s27a.sh
# 1. perf/h200_validate.sh on the test binary (any GPU): the plan tests in every launch mode, under
#    memcheck too.
# 2. Any GPU: three passes of session 25's entries of 1-1024 tokens and the empty launches: the
#    call, its plan as users get it (a CUDA graph), the plan with Kokkos' launch, the plain kernel.
# 3. On an H200 with at least 230 s left (the grid took about 200 s in session 26): the whole grid.
# STEPS (default "1 2 3") picks steps, PASSES (default 3) the passes of step 2; a missing binary
# skips its steps; BUDGET (default 590) the seconds the script may take. One archive, packed after
# each step.
STEPS=${STEPS:-1 2 3}
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s27w; B=/tmp/s27bin; mkdir -p $W $B
t0=$(date +%s)
pack() { tar czf $OUT/s27a.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
if [[ " $STEPS " == *" 1 "* && -f .gpu-carry/bin/merge_attn_tests.xz ]]; then
  OUT=$W/validation timeout 260 bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests.xz 2>&1 |
    tail -25
  echo "validation done $(( $(date +%s) - t0 )) s"
  pack
fi
[ -f .gpu-carry/bin/bench.gz ] || { echo "no bench"; ls -la $OUT; exit 0; }
gunzip -c .gpu-carry/bin/bench.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in $(seq 1 ${PASSES:-3}); do
  [[ " $STEPS " == *" 2 "* ]] || break
  timeout 90 $B/merge_attn_bench --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/plan-$pass.json --benchmark_out_format=json > $W/plan-$pass.txt 2>&1
  echo "pass $pass rc $? $(( $(date +%s) - t0 )) s"
  pack
done
[[ " $STEPS " == *" 3 "* ]] || { ls -la $OUT; exit 0; }
grep -q H200 $W/gpu.txt || { echo "not an H200: no grid"; ls -la $OUT; exit 0; }
left=$(( ${BUDGET:-590} - ($(date +%s) - t0) ))
if [ $left -ge 230 ]; then
  OUT=$W/grid timeout $(( left - 10 )) bash perf/h200_perf.sh $B
  echo "grid rc $? $(( $(date +%s) - t0 )) s"
else
  echo "grid skipped: $left s left"
fi
pack; ls -la $OUT
