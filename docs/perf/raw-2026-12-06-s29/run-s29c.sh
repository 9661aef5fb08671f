#!/bin/bash
# Session 29 (carry [".gpu-carry"]: bin/benchF.xz, the CUDA bench of e4d87df, stripped; lib/):
#   bash docs/perf/raw-2026-12-06-s29/run-s29c.sh
# 1. On an H200: the whole grid (perf/h200_perf.sh) into $W/grid;
# 2. passes (as many as fit in BUDGET seconds) of the full grid's N-way entries and the varlen-pairs
#    sweep (the built-in shape against forced 8 / 16 / 32 lanes).
# Everything into $OUT/s29c.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-300}
W=/tmp/s29c
mkdir -p $W
xz -dc .gpu-carry/bin/benchF.xz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
B=$W/merge_attn_bench
pack() { tar czf $OUT/s29c.tgz -C $W --exclude merge_attn_bench .; }
if grep -q H200 $W/gpu.txt; then
  OUT=$W/grid timeout $(( budget - 60 )) bash perf/h200_perf.sh $W
  echo "grid rc $? ($(( $(date +%s) - t0 )) s)"
  pack
fi
for pass in 1 2 3; do
  start=$(date +%s)
  $B --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/nway-$pass.json \
    --benchmark_out_format=json > $W/nway-$pass.txt 2>&1
  echo "pass $pass nway exit $? ($(( $(date +%s) - start )) s)"
  $B --sweep --benchmark_filter='^varlen-pairs/' --benchmark_out=$W/varlen-$pass.json \
    --benchmark_out_format=json > $W/varlen-$pass.txt 2>&1
  echo "pass $pass varlen exit $? ($(( $(date +%s) - start )) s)"
  pack
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per + 10 )) -lt $budget ] || break
done
ls -la $OUT
