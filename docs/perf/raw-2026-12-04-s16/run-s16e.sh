#!/bin/bash
# Session 16, run e: the working tree's rule (as in run d) with the entries of wavebench.py and
# formbench.py (nway-form/: bf16 4096-16384 x 32 x 64/128, S4/S8/S16, the built-in shape and the
# four 16-bit prefetching LanePairs forms forced), 2 passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/e
for pass in 1 2; do
  timeout 250 $B/bench-form --sweep --benchmark_filter='nway-form/' \
    --benchmark_out=$OUT/e/form-$pass.json --benchmark_out_format=json > $OUT/e/form-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
cd $OUT && tar czf s16e.tgz gpu.txt e && rm -rf e && ls -la $OUT
