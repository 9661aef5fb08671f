#!/bin/bash
# Session 14, run b: the state ring (8 slots) in the one-pair prefetching form for 16-bit values
# (bench-p64, variant-patches/p64ring.py) against the cross-pair ring build (bench-xp) and main's
# bench (bench-prod); bf16 built-in and one-pair prefetching entries, 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/bf16/S[0-9]*/[^/]*/(auto|[^/]*_k1[^/]*_ps[^/]*)/'
for pass in 1 2 3; do
  for v in prod xp p64; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s14b.tgz *)
done
