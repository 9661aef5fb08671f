#!/bin/bash
# Session 12, run b: N-state variants against the current bench (cur = 15db9b4), alternating passes,
# N-way sweep head size 128: built-in shape and the forced prefetching forms (k1_ps, k8_ps).
#   pc: one prefetch stream over (pack iteration, state); u2: batches of 2 states for 16-bit;
#   lb7 / lb8: launch bounds of 7 / 8 teams for the 16-bit prefetching forms; pa: s11's pa.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/[^/]*/S[0-9]*/[0-9]*x32x128/(auto|team16xvec8_g4_k[18]_ps)/'
for pass in 1 2 3; do
  for v in cur pa pc pcu2lb8 u2 u2lb7 pcu2 u2lb8; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s12b.tgz *)
done
