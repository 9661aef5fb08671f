#!/bin/bash
# Session 13, run c: the state ring as landed (bench-prod: rule, fit checks, sweep forms) against
# main (bench-new): every bf16 N-way sweep entry of the built-in shape and the prefetching LanePairs
# forms, float built-in entries; alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/(bf16/S[0-9]+/[^/]*/(auto|[^/]*k8[^/]*_ps[^/]*)|float/S[0-9]+/[^/]*/auto)/'
for pass in 1 2 3; do
  for v in new prod; do
    timeout 90 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s13c.tgz *)
done
