#!/bin/bash
# Session 11, run a: N-state L2 row prefetch distances (bench-ps) against 77378df's bench (bench-main).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt

for pass in 1 2; do
  $B/bench-main --sweep --benchmark_filter='nway-sweep/.*/auto' --benchmark_out=/tmp/r/main-$pass.json --benchmark_out_format=json > /tmp/r/main-$pass.log 2>&1
  $B/bench-ps --sweep --benchmark_filter='nway-sweep/.*/(auto|.*_ps[0-9]+)' --benchmark_out=/tmp/r/ps-$pass.json --benchmark_out_format=json > /tmp/r/ps-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s11a.tgz *
