#!/bin/bash
# Validation of the unmanaged-views build + A/B (base = c99006b's bench, new = this build) on small launches.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
gunzip -k .gpu-carry/bin/merge_attn_tests.gz; T=.gpu-carry/bin/merge_attn_tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
s=$(date +%s)
$T --gtest_brief=1 > $OUT/gtest-all.log 2>&1; echo "exit code $? ($(( $(date +%s) - s )) s)" >> $OUT/gtest-all.log
s=$(date +%s)
timeout 150 compute-sanitizer --tool memcheck $T --gtest_brief=1 \
  --gtest_filter='MergeStates/Cuda*:MergeEdgeCases/Cuda*:MergeMappings/Cuda*:MergeLaw/Cuda*:MergeMany/Cuda*' > $OUT/memcheck.log 2>&1
echo "exit code $? ($(( $(date +%s) - s )) s)" >> $OUT/memcheck.log
tail -n 3 $OUT/gtest-all.log; tail -n 3 $OUT/memcheck.log
mkdir -p /tmp/ab
F='^merge/(float|half|bf16)/(1|16|64)x(8|32|128)x(64|128|576)/'
for r in 1 2 3; do
  for v in base new; do
    .gpu-carry/bin/bench-$v --grid=full --benchmark_filter="$F" --benchmark_out=/tmp/ab/$v-$r.json --benchmark_out_format=json > /dev/null 2>&1 || echo "$v $r rc $?"
    .gpu-carry/bin/bench-$v --sweep --benchmark_filter='^launch/' --benchmark_out=/tmp/ab/launch-$v-$r.json --benchmark_out_format=json > /dev/null 2>&1 || echo "launch $v $r rc $?"
  done
done
cd /tmp/ab && tar czf $OUT/ab.tgz *.json; ls $OUT
