#!/bin/bash
# Session 32, one call (carry [".gpu-carry"]: lib/ (the Kokkos install's libraries), this script,
# bin/tests.xz and bin/large.xz (merge_attn_tests and merge_attn_large_tests of the CUDA build,
# stripped, xz), bin/benchL.xz and bin/benchM.xz (two builds of merge_attn_bench)):
#   BUDGET=<seconds> bash .gpu-carry/run-s32.sh
# 1. perf/h200_validate.sh on the whole test binary (memcheck: every Cuda test; racecheck and
#    initcheck: its default N-way filters), then the large-index tests; logs into $W/validate.
# 2. Alternating passes (L, M, L, M, ...) of the full grid's N-way entries and the varlen sweeps'
#    built-in shapes (summarize-ab.py reads $W/ab), at most 3.
# 3. Passes of benchL's varlen sweep (built-in and forced shapes; summarize-varlen.py reads
#    $W/varlen), at most 3, in what is left of BUDGET.
# Also the benches' resource usage (cuobjdump) into $W/ab. Everything into $OUT/s32.tgz, packed
# after each step.
here=$PWD
export LD_LIBRARY_PATH=$here/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-420}
W=/tmp/s32
rm -rf $W  # a warm machine keeps /tmp between calls: no files of an earlier call
mkdir -p $W/validate $W/ab $W/varlen $W/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
pack() { tar czf $OUT/s32.tgz -C $W --exclude bin .; }
rc=0
if [ -f .gpu-carry/bin/tests.xz ]; then
  MEMCHECK_FILTER='*Cuda*' SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-200} OUT=$W/validate \
    bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
  tail -16 $W/validate/summary.txt
fi
if [ -f .gpu-carry/bin/large.xz ]; then
  xz -dc .gpu-carry/bin/large.xz > $W/bin/large && chmod +x $W/bin/large
  s=$(date +%s)
  $W/bin/large --gtest_brief=1 > $W/validate/large.log 2>&1
  lrc=$?
  echo "exit code $lrc ($(( $(date +%s) - s )) s)" >> $W/validate/large.log
  [ $lrc -eq 0 ] || rc=1
  tail -3 $W/validate/large.log
fi
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
pack
benches=""
for b in L M; do
  [ -f .gpu-carry/bin/bench$b.xz ] || continue
  xz -dc .gpu-carry/bin/bench$b.xz > $W/bin/bench$b && chmod +x $W/bin/bench$b && benches="$benches $b"
done
# The kernels' registers, stack and spills (cuobjdump, where the machine has it).
for b in $benches; do
  command -v cuobjdump > /dev/null && cuobjdump --dump-resource-usage $W/bin/bench$b 2>&1 |
    gzip > $W/ab/resources-$b.txt.gz
done
for pass in 1 2 3; do
  [ -n "$benches" ] || break
  start=$(date +%s)
  for b in $benches; do
    $W/bin/bench$b --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/ab/nway-$b-$pass.json \
      --benchmark_out_format=json > $W/ab/nway-$b-$pass.txt 2>&1
    echo "pass $pass $b nway exit $? ($(( $(date +%s) - t0 )) s)"
    $W/bin/bench$b --sweep --benchmark_filter='^varlen-.*/auto' \
      --benchmark_out=$W/ab/varlen-$b-$pass.json --benchmark_out_format=json \
      > $W/ab/varlen-$b-$pass.txt 2>&1
    echo "pass $pass $b varlen exit $? ($(( $(date +%s) - t0 )) s)"
  done
  pack
  per=$(( $(date +%s) - start ))
  [ $(( $(date +%s) - t0 + per + 60 )) -lt $budget ] || break
done
for pass in 1 2 3; do
  [ -x $W/bin/benchL ] || break
  start=$(date +%s)
  [ $(( start - t0 + 45 )) -lt $budget ] || break
  timeout $(( budget - (start - t0) - 5 )) $W/bin/benchL --sweep --benchmark_filter='^varlen-' \
    --benchmark_out=$W/varlen/varlen-$pass.json --benchmark_out_format=json \
    > $W/varlen/varlen-$pass.txt 2>&1
  echo "varlen pass $pass exit $? ($(( $(date +%s) - t0 )) s)"
  pack
done
ls -la $OUT
echo "done ($(( $(date +%s) - t0 )) s)"
exit $rc
