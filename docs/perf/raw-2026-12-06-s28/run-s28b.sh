#!/bin/bash
# Session 28, call 2 (carry [".gpu-carry"]: bin/bench.gz = merge_attn_bench of the commit that
# names these entries "nway-pairs/", CUDA, stripped):
#   bash docs/perf/raw-2026-12-06-s28/run-s28b.sh
# The N-way launches of 256, 1024 and 4096 tokens x 32 x 128 (S 4/16/64, float and bf16) with
# forced shapes (8/16/32 lanes, teams of 128 or 32 threads, row prefetch off/on) beside the
# built-in one, alternating passes while they fit in BUDGET seconds: where the 32-lane shapes that
# won at 1-64 tokens (run1) stop winning.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s28b
mkdir -p $W
t0=$(date +%s)
budget=${BUDGET:-540}
gunzip -c .gpu-carry/bin/bench.gz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
B=$W/merge_attn_bench
for pass in 1 2 3; do
  start=$(date +%s)
  $B --sweep --benchmark_filter="${FILTER:-^nway-pairs/.*/(256|1024|4096)x32x128/}" \
    --benchmark_out=$W/decode-$pass.json --benchmark_out_format=json > $W/decode-$pass.txt 2>&1
  echo "pass $pass exit $? ($(( $(date +%s) - start )) s)"
  tar czf $OUT/s28b.tgz -C $W --exclude merge_attn_bench .
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per )) -lt $budget ] || break
done
ls -la $OUT
