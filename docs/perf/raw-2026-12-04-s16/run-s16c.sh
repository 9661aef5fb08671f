#!/bin/bash
# Session 16, run c: variant k4 (variant-patches/k4.py: the 16-bit prefetching LanePairs forms with
# K = 4 pairs per team thread) with the bench entries of padbench.py and k4bench.py: bf16 N-way at
# 4096 / 4352 / 5120 / 8192 / 16384 x 32 x 128, S4 / S8 / S16, the built-in shape and the LanePairs
# prefetching forms with K = 8 and K = 4 forced, 3 passes; the head size 32 / 512 rules again.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/c
for pass in 1 2 3; do
  timeout 150 $B/bench-k4 --sweep --benchmark_filter='nway-k4/|nway-sweep/bf16/S(4|8|16)/(4096|4352|5120|8192|16384)x32x128/auto/' \
    --benchmark_out=$OUT/c/k4-$pass.json --benchmark_out_format=json > $OUT/c/k4-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
timeout 150 $B/bench-k4 --sweep --benchmark_filter='nway-rule/|nway-sweep/[^/]*/S[0-9]*/4096x32x(32|512)/auto/' \
  --benchmark_out=$OUT/c/rule-2.json --benchmark_out_format=json > $OUT/c/rule-2.log 2>&1
echo "rule done $(date +%T)"
cd $OUT && tar czf s16c.tgz gpu.txt c && rm -rf c && ls -la $OUT
