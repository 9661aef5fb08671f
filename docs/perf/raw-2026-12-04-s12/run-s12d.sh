#!/bin/bash
# Session 12, run d: bf16 S8 / S16 at every head size of the sweep (built-in shape and the forced
# prefetching forms): cur against u2lb8 (batches of 2 states + launch bounds of 8 teams for the
# 16-bit prefetching forms) and u2lb8d8 (+ prefetch distance 8), alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/bf16/S(8|16)/[^/]*/(auto|[^/]*_ps)/'
for pass in 1 2 3; do
  for v in cur u2lb8 u2lb8d8; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s12d.tgz *)
done
