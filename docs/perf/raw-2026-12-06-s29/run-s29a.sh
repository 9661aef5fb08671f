#!/bin/bash
# Session 29, call 1 (carry [".gpu-carry"]: bin/bench.gz = merge_attn_bench of the commit that
# added this script's varlen-pairs entries, CUDA, stripped: main's built-in shapes plus
# LaunchShape::state_batch for forced shapes; lib/ as before):
#   bash docs/perf/raw-2026-12-06-s29/run-s29a.sh
# 1. Passes (as many as fit in BUDGET seconds, at most 3) of split-KV decode's launches (1/16/64
#    tokens x 32 x 64/128/256, S 4/16/64, float and bf16) with forced shapes: one pair per team
#    thread of 128 threads on 8/16/32 lanes, row loads in batches of 4/8/16 states or of 4 with the
#    row prefetch, beside the built-in shape ("auto"); then the same launches through the varlen
#    form (varlen-pairs: 1-256 tokens x 32 x 128).
# 2. On an H200 with 240 s left: the whole grid (perf/h200_perf.sh; the built-in shapes are main's).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s29a
mkdir -p $W
t0=$(date +%s)
budget=${BUDGET:-560}
gunzip -c .gpu-carry/bin/bench.gz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
B=$W/merge_attn_bench
pack() { tar czf $OUT/s29a.tgz -C $W --exclude merge_attn_bench .; }
for pass in 1 2 3; do
  start=$(date +%s)
  $B --sweep \
    --benchmark_filter='^nway-pairs/.*/(1|16|64)x32x(64|128|256)/(auto$|team(4xvec32|8xvec16|16xvec8)_)' \
    --benchmark_out=$W/decode-$pass.json --benchmark_out_format=json > $W/decode-$pass.txt 2>&1
  echo "pass $pass decode exit $? ($(( $(date +%s) - start )) s)"
  $B --sweep --benchmark_filter='^varlen-pairs/' \
    --benchmark_out=$W/varlen-$pass.json --benchmark_out_format=json > $W/varlen-$pass.txt 2>&1
  echo "pass $pass varlen exit $? ($(( $(date +%s) - start )) s)"
  pack
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per + 240 )) -lt $budget ] || break
done
if grep -q H200 $W/gpu.txt; then
  left=$(( budget - ($(date +%s) - t0) ))
  if [ $left -gt 240 ]; then
    OUT=$W/grid timeout $(( left - 10 )) bash perf/h200_perf.sh $W
    echo "grid rc $? ($(( $(date +%s) - t0 )) s)"
    pack
  else
    echo "grid skipped: $left s left"
  fi
else
  echo "not an H200: no grid"
fi
ls -la $OUT
