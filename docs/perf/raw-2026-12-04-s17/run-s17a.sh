#!/bin/bash
# Session 17, run a: main's bench (s17base) against the pack-pair variants (ppA: batches of
# Batch/2 states x 2 packs; ppB: Batch states x 2 packs), all with gbench.py's forced token groups
# for S64 (nway-g/), bf16 built-in N-way entries and float 4096-token ones, 2 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/a
F='nway-sweep/bf16/.*/auto|nway-sweep/float/S(8|16|64)/4096x32x(64|128|256)/auto|nway-g/bf16'
for pass in 1 2; do
  for v in s17base ppA ppB; do
    timeout 150 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/a/$v-$pass.json --benchmark_out_format=json > $OUT/a/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
done
cd $OUT && tar czf s17a.tgz gpu.txt a && rm -rf a && ls -la $OUT
