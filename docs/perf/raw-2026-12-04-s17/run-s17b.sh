#!/bin/bash
# Session 17, run b: main's bench (s17base) against variants of the one-pair prefetching N-state
# kernel (one.py: pk2 / pk4 pack pairs with 2 / 4 states per batch, b8 batches of 8 states, t8
# launch bounds of 8 teams for 16-bit values), float built-in N-way entries and bf16 S64 ones,
# 2 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/b
F='nway-sweep/float/.*/auto|nway-sweep/bf16/S64/.*/auto|nway-sweep/bf16/S(8|16)/4096x32x32/auto'
for pass in 1 2; do
  for v in s17base one-pk2 one-pk4 one-b8 one-t8; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/b/$v-$pass.json --benchmark_out_format=json > $OUT/b/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
done
cd $OUT && tar czf s17b.tgz gpu.txt b && rm -rf b && ls -la $OUT
