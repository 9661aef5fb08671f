#!/bin/bash
# Session 16, run b: main's kernels with extra bench entries (variant-patches/padbench.py):
# N-way at token counts beside the powers of two (4096 / 4104 / 4352, 16384 / 16392 x 32 x 128,
# S8 and S16: the built-in shape and the LanePairs prefetching forms forced), 2 passes; the rules
# at head sizes 32 and 512 (4096 x 32, S8 / S16 / S64: built-in and forced forms), 1 pass.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/b
for pass in 1 2; do
  timeout 200 $B/bench-padb --sweep --benchmark_filter='nway-pad/|nway-sweep/[^/]*/S(8|16)/(4096|4104|4352|16384|16392)x32x128/auto/' \
    --benchmark_out=$OUT/b/pad-$pass.json --benchmark_out_format=json > $OUT/b/pad-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
timeout 200 $B/bench-padb --sweep --benchmark_filter='nway-rule/|nway-sweep/[^/]*/S[0-9]*/4096x32x(32|512)/auto/' \
  --benchmark_out=$OUT/b/rule-1.json --benchmark_out_format=json > $OUT/b/rule-1.log 2>&1
echo "rule done $(date +%T)"
cd $OUT && tar czf s16b.tgz gpu.txt b && rm -rf b && ls -la $OUT
