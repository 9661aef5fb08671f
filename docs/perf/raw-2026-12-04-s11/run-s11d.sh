#!/bin/bash
# Session 11, run d: the adopted N-state row prefetch (bench-f: distance 4 for 16-bit, 2 for float;
# bench-f8: 8 for 16-bit) against 77378df's bench (bench-main), 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r
for b in bench-f bench-f8; do cuobjdump --dump-resource-usage $B/$b 2>&1 | grep -A1 -i "MergeFunctor" | grep -v "^--" > /tmp/r/res-$b.txt; done
for pass in 1 2 3; do
  $B/bench-main --sweep --benchmark_filter='nway-sweep/.*/auto' --benchmark_out=/tmp/r/main-$pass.json --benchmark_out_format=json > /tmp/r/main-$pass.log 2>&1
  $B/bench-f --sweep --benchmark_filter='nway-sweep/.*/(auto|team16xvec8_g4_k[18](_ps)?/)' --benchmark_out=/tmp/r/f-$pass.json --benchmark_out_format=json > /tmp/r/f-$pass.log 2>&1
  $B/bench-f8 --sweep --benchmark_filter='nway-sweep/bf16/.*/team16xvec8_g4_k[18]_ps/' --benchmark_out=/tmp/r/f8-$pass.json --benchmark_out_format=json > /tmp/r/f8-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s11d.tgz *
