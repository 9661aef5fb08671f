#!/bin/bash
# Session 14, run a: the state ring across a step's pairs (bench-xp: one ring pass over the K
# pairs of a LanePairs step, no drain between rows) against main's bench (bench-prod, 036684a);
# the N-way sweep's built-in and prefetching entries, 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/[^/]*/S[0-9]*/[^/]*/(auto|[^/]*_ps[^/]*)/'
for pass in 1 2 3; do
  for v in prod xp; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s14a.tgz *)
done
