#!/bin/bash
# alternating passes: base vs new, nway entries
D=${1:-/tmp/s19/h1}; mkdir -p $D
for pass in 1 2 3; do
  for v in base new; do
    OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/s19/bench-$v --grid=full --benchmark_filter='nway' \
      --benchmark_out=$D/$v-$pass.json --benchmark_out_format=json > $D/$v-$pass.log 2>&1
    echo "$v $pass $(date +%T)"
  done
done
