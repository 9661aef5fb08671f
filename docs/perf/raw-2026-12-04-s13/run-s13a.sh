#!/bin/bash
# Session 13, run a: cp.async ring (lane-minor slots) for the prefetching 16-bit LanePairs rows,
# 8 and 4 slots, against main (bench-new), alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/(bf16/S[0-9]+/[^/]*/(auto|team16xvec8_g4_k8_ps2?)|float/S[0-9]+/[0-9]+x32x128/auto)/'
for pass in 1 2 3; do
  for v in new ring8 ring4 jp4; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s13a.tgz *)
done
