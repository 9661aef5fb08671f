#!/bin/bash
# Session 17, run e: validation of the commit's CUDA build (perf/h200_validate.sh: test binary,
# memcheck, racecheck, initcheck); main's bench (s17base) against pfh (the steady-state row
# prefetch for the first half of each batch's states only), the N-way sweep's built-in entries,
# 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/e/validation
OUT=$OUT/e/validation bash perf/h200_validate.sh $B/merge_attn_tests.gz
echo "validation exit $?"
F='nway-sweep/.*/auto'
for pass in 1 2 3; do
  for v in s17base pfh; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/e/$v-$pass.json --benchmark_out_format=json > $OUT/e/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
done
cd $OUT && tar czf s17e.tgz gpu.txt e && rm -rf e && ls -la $OUT
