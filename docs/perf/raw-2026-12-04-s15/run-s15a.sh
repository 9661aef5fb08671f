#!/bin/bash
# Session 15, run a: the review's kernel changes as bench variants against main's bench (bench-new,
# 1e037a5): s15a (the state ring's loads and sums walk one RingWalk, one flat loop; the fit
# fallback keeps the ring in batches of 4), s15b (the same walk, the sums in a loop per pack).
# bf16 N-way sweep entries of the ring (16384x32x128 S4/S8/S16, 4096x32x576 S8/S16, built-in) and
# S15 (built-in and the forced prefetching forms; bench-new has no S15 entries): 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/bf16/S(4|8|16)/16384x32x128/auto/|nway-sweep/bf16/S(8|16)/4096x32x576/auto/|nway-sweep/bf16/S15/16384x32x128/(auto|.*_ps.*)$'
$B/bench-s15a --sweep --benchmark_filter="$F" --benchmark_list_tests > /tmp/r/list.txt 2>&1
for pass in 1 2 3; do
  for v in new s15a s15b; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s15a.tgz * && ls -la $OUT
