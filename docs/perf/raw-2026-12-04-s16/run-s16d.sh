#!/bin/bash
# Session 16, run d: main (wmain) against the working tree's rule (wnew: the 16-bit LanePairs form
# by waves of teams below the ring threshold; one pair with the prefetch for rows of one pack per
# lane and where LanePairs has no room), both with the entries of variant-patches/wavebench.py
# (nway-wave/: bf16 4096-16384 x 32 x 64/128/256, S4/S8/S16; float and bf16 x32/x512), 3
# alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/d
for pass in 1 2 3; do
  for v in wmain wnew; do
    timeout 140 $B/bench-$v --sweep --benchmark_filter='nway-wave/' \
      --benchmark_out=$OUT/d/$v-$pass.json --benchmark_out_format=json > $OUT/d/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
cd $OUT && tar czf s16d.tgz gpu.txt d && rm -rf d && ls -la $OUT
