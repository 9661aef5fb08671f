#!/bin/bash
# Session 11, run b: N-state L2 row prefetch with compile-time distances: bench-r (rolling only),
# bench-rs (rolling + a pair's first rows before its weights) against 77378df's bench (bench-main).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r
for b in bench-r bench-rs; do cuobjdump --dump-resource-usage $B/$b 2>&1 | grep -A1 -i "MergeFunctor" | grep -v "^--" > /tmp/r/res-$b.txt; done
for pass in 1 2 3; do
  $B/bench-main --sweep --benchmark_filter='nway-sweep/.*/auto' --benchmark_out=/tmp/r/main-$pass.json --benchmark_out_format=json > /tmp/r/main-$pass.log 2>&1
  for b in r rs; do
  $B/bench-$b --sweep --benchmark_filter='nway-sweep/.*/(auto|.*_ps[0-9]+)' --benchmark_out=/tmp/r/$b-$pass.json --benchmark_out_format=json > /tmp/r/$b-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s11b.tgz *
