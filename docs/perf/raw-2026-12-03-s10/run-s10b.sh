#!/bin/bash
# Session 10, run b: validation of the cache/row-pointer build (test binary, memcheck), N-way A/B
# main vs ring variants (3 rounds), N-way launch-shape sweep of main (2 passes).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
mkdir -p /tmp/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
gunzip -k $B/merge_attn_tests.gz; chmod +x $B/merge_attn_tests; T=$B/merge_attn_tests
s=$(date +%s)
$T --gtest_brief=1 > /tmp/r/gtest-all.log 2>&1; echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/gtest-all.log
s=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $T --gtest_brief=1 \
  --gtest_filter='MergeMany/Cuda*:MergeMappings/Cuda*' > /tmp/r/memcheck.log 2>&1
echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/memcheck.log
tail -n 3 /tmp/r/gtest-all.log; tail -n 3 /tmp/r/memcheck.log
for v in $VARIANTS; do
  [ -f $B/tests-$v.gz ] || continue
  gunzip -k $B/tests-$v.gz
  $B/tests-$v --gtest_brief=1 --gtest_filter='MergeMany*:MergeMappings*' > /tmp/r/gtest-$v.log 2>&1; echo "exit code $?" >> /tmp/r/gtest-$v.log
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests-$v --gtest_brief=1 --gtest_filter='MergeMany/Cuda*' > /tmp/r/memcheck-$v.log 2>&1
  echo "exit code $?" >> /tmp/r/memcheck-$v.log
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests-$v --gtest_brief=1 --gtest_filter='MergeMany/Cuda*' > /tmp/r/racecheck-$v.log 2>&1
  echo "exit code $?" >> /tmp/r/racecheck-$v.log
  tail -n 2 /tmp/r/gtest-$v.log /tmp/r/memcheck-$v.log /tmp/r/racecheck-$v.log
done
s=$(date +%s)
for r in 1 2 3; do
  for v in main $VARIANTS; do
    $B/bench-$v --grid=full --benchmark_filter='^nway/' --benchmark_out=/tmp/r/nway-$v-$r.json --benchmark_out_format=json > /dev/null 2>&1 || echo "$v $r rc $?" >> /tmp/r/errors.txt
  done
done
echo "ab $(( $(date +%s) - s )) s" >> /tmp/r/gpu.txt
s=$(date +%s)
for r in 1 2; do
  $B/bench-main --sweep --benchmark_filter='^nway-sweep/' --benchmark_out=/tmp/r/nsweep-$r.json --benchmark_out_format=json > /dev/null 2>&1 || echo "sweep $r rc $?" >> /tmp/r/errors.txt
done
echo "sweep $(( $(date +%s) - s )) s" >> /tmp/r/gpu.txt
cd /tmp/r && rm -f $PWD/../r/*.gz; tar czf $OUT/s10b.tgz *.txt *.log *.json && ls -la $OUT && cat gpu.txt errors.txt 2>/dev/null
