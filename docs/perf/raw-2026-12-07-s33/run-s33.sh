#!/bin/bash
# Session 33, one call (carry [".gpu-carry"]: lib/ (the Kokkos install's libraries), this script,
# bin/benchL.xz and bin/benchM.xz (two builds of merge_attn_bench), optionally bin/tests.xz (the
# CUDA test binary)):
#   BUDGET=<seconds> PASSES=<n> bash .gpu-carry/run-s33.sh
# 1. Alternating passes (L, M, L, M, ...) of the full grid's N-way entries and (AB_SWEEP=1, the
#    default) the sweep's built-in N-way shapes (summarize-ab.py of raw-2026-12-06-s30 reads
#    $W/ab), at most PASSES (default 4), while the budget lasts.
# 2. Where bin/tests.xz was carried: perf/h200_validate.sh on it into $W/validate.
# 3. Where the GPU is an H200 and GRID=1: the whole grid of benchL (perf/h200_perf.sh) into $W/grid.
# 4. In what is left of BUDGET: passes of benchL's varlen sweeps ($W/varlen; summarize-varlen.py).
# Also the benches' resource usage (cuobjdump) into $W/ab. Everything into $OUT/s33.tgz, packed
# after each step.
here=$PWD
export LD_LIBRARY_PATH=$here/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-480}
W=/tmp/s33
rm -rf $W  # a warm machine keeps /tmp between calls: no files of an earlier call
mkdir -p $W/ab $W/grid $W/validate $W/varlen $W/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
nproc > $W/nproc.txt
cat $W/gpu.txt
pack() { tar czf $OUT/s33.tgz -C $W --exclude bin .; }
elapsed() { echo $(( $(date +%s) - t0 )); }
benches=""
for b in L M; do
  [ -f .gpu-carry/bin/bench$b.xz ] || continue
  xz -dc .gpu-carry/bin/bench$b.xz > $W/bin/bench$b && chmod +x $W/bin/bench$b && benches="$benches $b"
done
for b in $benches; do
  command -v cuobjdump > /dev/null && cuobjdump --dump-resource-usage $W/bin/bench$b 2>&1 |
    gzip > $W/ab/resources-$b.txt.gz
done
for pass in $(seq 1 ${PASSES:-4}); do
  [ -n "$benches" ] || break
  start=$(date +%s)
  for b in $benches; do
    $W/bin/bench$b --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/ab/nway-$b-$pass.json \
      --benchmark_out_format=json > $W/ab/nway-$b-$pass.txt 2>&1
    echo "pass $pass $b nway exit $? ($(elapsed) s)"
    if [ "${AB_SWEEP:-1}" = 1 ]; then  # the sweep's built-in N-way shapes (4096-8192 tokens)
      $W/bin/bench$b --sweep --benchmark_filter='^nway-sweep/.*/auto' \
        --benchmark_out=$W/ab/sweep-$b-$pass.json --benchmark_out_format=json \
        > $W/ab/sweep-$b-$pass.txt 2>&1
      echo "pass $pass $b sweep exit $? ($(elapsed) s)"
    fi
  done
  pack
  per=$(( $(date +%s) - start ))
  [ $(( $(elapsed) + per + ${RESERVE:-200} )) -lt $budget ] || break
done
rc=0
if [ -f .gpu-carry/bin/tests.xz ]; then
  MEMCHECK_FILTER=${MEMCHECK_FILTER:-'*Cuda*'} SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-150} \
    OUT=$W/validate bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
  tail -16 $W/validate/summary.txt
  echo "validation rc $rc ($(elapsed) s)"
  pack
fi
if [ "${GRID:-1}" = 1 ] && grep -q H200 $W/gpu.txt && [ -x $W/bin/benchL ] &&
   [ $(( budget - $(elapsed) )) -gt 150 ]; then
  mkdir -p $W/grid/bin && ln -sf $W/bin/benchL $W/grid/bin/merge_attn_bench
  OUT=$W/grid timeout $(( budget - $(elapsed) - 30 )) bash perf/h200_perf.sh $W/grid/bin
  echo "grid rc $? ($(elapsed) s)"
  rm -rf $W/grid/bin
  pack
fi
for pass in 1 2 3; do
  [ -x $W/bin/benchL ] || break
  start=$(date +%s)
  [ $(( start - t0 + 45 )) -lt $budget ] || break
  timeout $(( budget - (start - t0) - 5 )) $W/bin/benchL --sweep --benchmark_filter='^varlen-' \
    --benchmark_out=$W/varlen/varlen-$pass.json --benchmark_out_format=json \
    > $W/varlen/varlen-$pass.txt 2>&1
  echo "varlen pass $pass exit $? ($(elapsed) s)"
  pack
done
ls -la $OUT
echo "done ($(elapsed) s)"
exit $rc
