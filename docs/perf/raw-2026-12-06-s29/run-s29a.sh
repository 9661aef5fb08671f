#!/bin/bash
# Session 29, call 1 (carry [".gpu-carry"]: bin/bench.gz = merge_attn_bench of ce936a9 ("A"),
# bin/benchC.gz = that of 4a0849b ("C": A + the one-pair N-state weights' exponentials by the vector
# lanes + the deep batches unrolled, with launch bounds of 2 / 4 teams per SM), CUDA, stripped; lib/
# as before). Main's built-in shapes in both; LaunchShape::state_batch for forced shapes.
#   bash docs/perf/raw-2026-12-06-s29/run-s29a.sh
# Passes (as many as fit in BUDGET seconds, at most 3), each, for A then C:
# 1. split-KV decode's launches (1/16/64 tokens x 32 x 64/128/256, S 4/16/64, float and bf16): the
#    built-in shape ("auto") and one pair per team thread of 128 threads on 32 lanes (row loads in
#    batches of 4/8/16 states, or of 4 with the row prefetch) or on 8 lanes (batches of 4/16);
# 2. the full grid's N-way entries (large launches, and decode at 32 x 128 with plans);
# and for C alone 3. the same decode launches through the varlen form (varlen-pairs: 1-256 tokens x
# 32 x 128).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s29a
mkdir -p $W/C
t0=$(date +%s)
budget=${BUDGET:-330}
gunzip -c .gpu-carry/bin/bench.gz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
gunzip -c .gpu-carry/bin/benchC.gz > $W/C/merge_attn_bench && chmod +x $W/C/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
pack() { tar czf $OUT/s29a.tgz -C $W --exclude merge_attn_bench .; }
F='^nway-pairs/.*/(1|16|64)x32x(64|128|256)/(auto/|team4xvec32_|team16xvec8_g[0-9]+_k1(_b16)?/)'
for pass in 1 2 3; do
  start=$(date +%s)
  for v in A C; do
    B=$W/merge_attn_bench
    [ $v = C ] && B=$W/C/merge_attn_bench
    $B --sweep --benchmark_filter="$F" --benchmark_out=$W/decode$v-$pass.json \
      --benchmark_out_format=json > $W/decode$v-$pass.txt 2>&1
    echo "pass $pass decode $v exit $? ($(( $(date +%s) - start )) s)"
    $B --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/nway$v-$pass.json \
      --benchmark_out_format=json > $W/nway$v-$pass.txt 2>&1
    echo "pass $pass nway $v exit $? ($(( $(date +%s) - start )) s)"
  done
  $B --sweep --benchmark_filter='^varlen-pairs/' \
    --benchmark_out=$W/varlen-$pass.json --benchmark_out_format=json > $W/varlen-$pass.txt 2>&1
  echo "pass $pass varlen exit $? ($(( $(date +%s) - start )) s)"
  pack
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per + 10 )) -lt $budget ] || break
done
ls -la $OUT
