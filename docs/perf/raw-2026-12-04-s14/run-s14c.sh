#!/bin/bash
# Session 14, run c: validation of the commit's CUDA build (test binary; memcheck, racecheck and
# initcheck of the N-state tests); the N-way sweep's built-in and prefetching entries against main's
# bench (bench-prod, 036684a), 3 alternating passes, with two bench-only variants on their entries
# (s10: 10 ring slots in batches of 2, bf16 S4; x64k1: one pair per team thread with the prefetch
# where the rule had two, head size 64 S64); the whole grid; ncu of the bf16 N-way grid launches.
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
(cd /tmp/r && tar czf $OUT/s14c.tgz --exclude=merge_attn_tests *)
F='nway-sweep/[^/]*/S[0-9]*/[^/]*/(auto|[^/]*_ps[^/]*)/'
for pass in 1 2 3; do
  timeout 90 $B/bench-prod --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/prod-$pass.json --benchmark_out_format=json > /tmp/r/prod-$pass.log 2>&1
  timeout 90 $B/bench-new --sweep --benchmark_filter="$F" --benchmark_out=/tmp/r/new-$pass.json --benchmark_out_format=json > /tmp/r/new-$pass.log 2>&1
  timeout 30 $B/bench-s10 --sweep --benchmark_filter='nway-sweep/bf16/S4/' --benchmark_out=/tmp/r/s10-$pass.json --benchmark_out_format=json > /tmp/r/s10-$pass.log 2>&1
  timeout 30 $B/bench-x64k1 --sweep --benchmark_filter='nway-sweep/[^/]*/S64/4096x32x64/' --benchmark_out=/tmp/r/x64k1-$pass.json --benchmark_out_format=json > /tmp/r/x64k1-$pass.log 2>&1
  echo "pass $pass done $(date +%T)"
done
(cd /tmp/r && tar czf $OUT/s14c.tgz --exclude=merge_attn_tests *)
mkdir -p /tmp/r/grid /tmp/gb && cp $B/bench-new /tmp/gb/merge_attn_bench
s=$(date +%s)
OUT=/tmp/r/grid timeout 300 bash perf/h200_perf.sh /tmp/gb
echo "grid $(( $(date +%s) - s )) s"
(cd /tmp/r && tar czf $OUT/s14c.tgz --exclude=merge_attn_tests *)
for f in bf16/S4 bf16/S8 bf16/S16 bf16/S64; do
  n=$(echo $f | tr / -)
  timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct \
    $B/bench-new --grid=full --benchmark_filter="^nway/$f/" > /tmp/r/ncu-nway-$n.txt 2>&1
  echo "ncu $f exit $?"
done
cd /tmp/r && tar czf $OUT/s14c.tgz --exclude=merge_attn_tests * && ls -la $OUT
