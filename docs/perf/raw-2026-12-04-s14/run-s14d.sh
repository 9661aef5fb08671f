#!/bin/bash
# Session 14, run d: validation of the second commit's CUDA build (one pair per team thread with the
# prefetch for 16-bit rows of one pack per lane beyond 16 states): test binary, memcheck, racecheck
# and initcheck of the N-state tests; the N-way sweep's built-in entries and the S64 entries against
# the first commit's bench (bench-c1), 3 alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
gunzip -k -f $B/merge_attn_tests.gz; chmod +x $B/merge_attn_tests; T=$B/merge_attn_tests
s=$(date +%s)
$T --gtest_brief=1 > /tmp/r/gtest-all.log 2>&1; echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/gtest-all.log
s=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $T --gtest_brief=1 \
  --gtest_filter='MergeMany/Cuda*:MergeMappings/Cuda*' > /tmp/r/memcheck.log 2>&1
echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/memcheck.log
s=$(date +%s)
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $T --gtest_brief=1 \
  --gtest_filter='MergeMany/Cuda.NWay*' > /tmp/r/racecheck.log 2>&1
echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/racecheck.log
s=$(date +%s)
timeout 100 compute-sanitizer --tool initcheck --error-exitcode 99 $T --gtest_brief=1 \
  --gtest_filter='MergeMany/Cuda.NWayLanePairs*' > /tmp/r/initcheck.log 2>&1
echo "exit code $? ($(( $(date +%s) - s )) s)" >> /tmp/r/initcheck.log
tail -n 3 /tmp/r/gtest-all.log /tmp/r/memcheck.log /tmp/r/racecheck.log /tmp/r/initcheck.log
(cd /tmp/r && tar czf $OUT/s14d.tgz --exclude=merge_attn_tests *)
F='nway-sweep/[^/]*/S[0-9]*/[^/]*/auto/|nway-sweep/[^/]*/S64/'
for pass in 1 2 3; do
  for v in c1 new; do
    timeout 90 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
cd /tmp/r && tar czf $OUT/s14d.tgz --exclude=merge_attn_tests * && ls -la $OUT
