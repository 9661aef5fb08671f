#!/bin/bash
# Session 28, call 3 (carry [".gpu-carry"]: bin/bench.gz = merge_attn_bench of 067dee5 (small N-state launches: a warp per pair), CUDA,
# stripped; lib/ as before):
#   bash docs/perf/raw-2026-12-06-s28/run-s28a.sh
# Alternating passes (as many as fit in BUDGET seconds, at least one):
# 1. the N-way entries of the full grid: the large ones and split-KV decode's (1/16/64 tokens x 32
#    x 128, S 4/16/64) with their plans (plan_vs_call, plan_kernel_vs_call);
# 2. the decode launches with forced shapes (--sweep: 8/16/32 lanes, teams of 128 or 32 threads,
#    row prefetch off/on) beside the built-in one ("auto").
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s28c
mkdir -p $W
t0=$(date +%s)
budget=${BUDGET:-540}
gunzip -c .gpu-carry/bin/bench.gz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
B=$W/merge_attn_bench
pack() { tar czf $OUT/s28c.tgz -C $W --exclude merge_attn_bench .; }
for pass in 1 2 3; do
  start=$(date +%s)
  $B --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/nway-$pass.json \
    --benchmark_out_format=json > $W/nway-$pass.txt 2>&1
  echo "pass $pass nway exit $? ($(( $(date +%s) - start )) s)"
  $B --sweep --benchmark_filter='^nway-pairs/.*/(1|16|64|256)x32x128/' \
    --benchmark_out=$W/decode-$pass.json --benchmark_out_format=json > $W/decode-$pass.txt 2>&1
  echo "pass $pass decode exit $? ($(( $(date +%s) - start )) s)"
  pack
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per )) -lt $budget ] || break
done
ls -la $OUT
