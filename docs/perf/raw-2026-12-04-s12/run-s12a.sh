#!/bin/bash
# Session 12, run a: N-state variants against the current bench (cur = 15db9b4), alternating passes,
# N-way sweep head size 128: built-in shape and the forced prefetching forms (k1_ps, k8_ps).
#   h256: row loads of the prefetching forms with ld.global.L2::256B; lb8: launch bounds of 8 teams
#   (64 registers) for the prefetching forms; u2lb8: lb8 + batches of 2 for 16-bit; pa: s11's pa.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/[^/]*/S[0-9]*/[0-9]*x32x128/(auto|team16xvec8_g4_k[18]_ps)/'
for pass in 1 2 3; do
  for v in cur h256 lb8 u2lb8 pa; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s12a.tgz *)
done
