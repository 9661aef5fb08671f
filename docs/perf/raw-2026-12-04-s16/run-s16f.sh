#!/bin/bash
# Session 16, run f: main (wmain) against the rule by waves of teams as landed (wnew2:
# variant-patches/wnew2-rule.diff), both with the entries of wavebench.py (nway-wave/) and
# holdbench.py (nway-hold/: points the rule was not fitted on), 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/f
for pass in 1 2 3; do
  for v in wmain wnew2; do
    timeout 140 $B/bench-$v --sweep --benchmark_filter='nway-wave/|nway-hold/' \
      --benchmark_out=$OUT/f/$v-$pass.json --benchmark_out_format=json > $OUT/f/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
cd $OUT && tar czf s16f.tgz gpu.txt f && rm -rf f && ls -la $OUT
