#!/bin/bash
# Sweep: small launches (lanes) and LanePairs residency caps; three passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin/bench-base
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
F='^(launch/|sweep/(float|bf16)/(1|64|256)x32x128/|sweep/bf16/(4096x32x64|16384x8x64|16384x32x64|65536x32x64)/(auto|team16xvec8_g4_k8_pf))'
for i in 1 2 3; do
  $B --sweep --benchmark_filter="$F" --benchmark_out=$OUT/sweep-$i.json --benchmark_out_format=json > $OUT/sweep-$i.log 2>&1 || echo "pass $i rc $?"
done
tail -5 $OUT/sweep-1.log
