#!/bin/bash
# Session 11, run g: the N-state row prefetch at head sizes 64, 256, 576 (4096x32, S 8/16/64):
# the built-in shape with and without it, 3 passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
for pass in 1 2 3; do
  $B/bench-hd --sweep --benchmark_filter='nway-sweep/.*/4096x32x(64|256|576)/' --benchmark_out=/tmp/r/hd-$pass.json --benchmark_out_format=json > /tmp/r/hd-$pass.log 2>&1
  echo "pass $pass $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s11g.tgz *
