#!/bin/bash
# Session 11, run e: validation of the row-prefetch build (test binary, memcheck, racecheck), the
# whole grid (perf/h200_perf.sh), the N-way sweep's auto / _ps entries against 77378df's bench.
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
tail -n 3 /tmp/r/gtest-all.log /tmp/r/memcheck.log /tmp/r/racecheck.log
mkdir -p /tmp/r/grid /tmp/gb && cp $B/bench-new /tmp/gb/merge_attn_bench
OUT=/tmp/r/grid bash perf/h200_perf.sh /tmp/gb
for pass in 1 2 3; do
  $B/bench-main --sweep --benchmark_filter='nway-sweep/.*/auto' --benchmark_out=/tmp/r/main-$pass.json --benchmark_out_format=json > /dev/null 2>&1
  $B/bench-new --sweep --benchmark_filter='nway-sweep/.*/(auto|team16xvec8_g4_k[18](_ps)?/)' --benchmark_out=/tmp/r/new-$pass.json --benchmark_out_format=json > /dev/null 2>&1
done
# Variants for S4 (forced _ps entries): np = LanePairs also asks for the next pair's rows; pa = a
# pair of one batch asks for the lane's next pack iteration.
for pass in 1 2 3; do
  for v in new np pa; do
    $B/bench-$v --sweep --benchmark_filter='nway-sweep/.*/S[48]/.*/team16xvec8_g4_k[18]_ps/' --benchmark_out=/tmp/r/s4-$v-$pass.json --benchmark_out_format=json > /dev/null 2>&1
  done
done
cd /tmp/r && tar czf $OUT/s11e.tgz --exclude='*.gz' * && ls -la $OUT
