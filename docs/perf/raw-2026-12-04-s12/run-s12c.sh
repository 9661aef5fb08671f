#!/bin/bash
# Session 12, run c: bf16 N-state variants, head size 128 (built-in, forced prefetching forms) and
# head sizes 64/256/576 at 4096x32 S8 (all entries), alternating passes.
#   u2lb8: batches of 2 states + launch bounds of 8 teams for the 16-bit prefetching forms;
#   pau2lb8: + s11's pa; u2lb8d6 / d8: + prefetch distance 6 / 8.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/bf16/(S[0-9]*/[0-9]*x32x128/(auto|team16xvec8_g4_k[18]_ps)/|S8/4096x32x(64|256|576)/)'
for pass in 1 2 3; do
  for v in cur pa u2lb8 pau2lb8 u2lb8d6 u2lb8d8; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s12c.tgz *)
done
