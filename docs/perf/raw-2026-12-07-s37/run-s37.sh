#!/bin/bash
# Session 37, one call (carry [".gpu-carry"]: lib/; bin/benchL.xz = the CUDA bench of 82ca646 on
# the supplied Kokkos without the 64-bit extents patch, bin/benchM.xz = the same bench on the
# supply with kokkos-3.4.01-view-size-64bit.patch; optionally bin/tests.xz = the patched build's
# whole CUDA test binary, stripped):
#   BUDGET=<seconds> [GRID=1] [PASSES=n] bash .gpu-carry/run-s37.sh
# 1. Where bin/tests.xz was carried: perf/h200_validate.sh on it ($W/validate).
# 2. PASSES (default 4) alternating passes L, M of the default grid's 2-way entries, the full
#    grid's N-way entries and the varlen sweeps' built-in shapes ($W/ab), while the budget lasts.
# 3. Where the GPU is an H200, GRID=1 and 230 s are left: the whole grid with benchM
#    (perf/h200_perf.sh, $W/grid).
# Everything into $OUT/s37.tgz, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s); budget=${BUDGET:-400}; W=/tmp/s37; rm -rf $W; mkdir -p $W/validate $W/ab $W/grid $W/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt; cat $W/gpu.txt
pack() { tar czf $OUT/s37.tgz -C $W --exclude bin .; }
elapsed() { echo $(( $(date +%s) - t0 )); }
rc=0
if [ -f .gpu-carry/bin/tests.xz ]; then
  SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-90} OUT=$W/validate \
    bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
  tail -16 $W/validate/summary.txt; echo "validation rc $rc ($(elapsed) s)"; pack
fi
reserve=0  # kept for the grid
if [ "${GRID:-1}" = 1 ] && grep -q H200 $W/gpu.txt; then reserve=240; fi
benches=""
for b in L M; do
  [ -f .gpu-carry/bin/bench$b.xz ] || continue
  xz -dc .gpu-carry/bin/bench$b.xz > $W/bin/bench$b && chmod +x $W/bin/bench$b && benches="$benches $b"
done
for pass in $(seq 1 ${PASSES:-4}); do
  start=$(date +%s)
  for b in $benches; do
    left=$(( budget - reserve - $(elapsed) - 5 )); [ $left -gt 20 ] || break 2
    timeout $left $W/bin/bench$b --grid=default --benchmark_filter='^merge/' \
      --benchmark_out=$W/ab/merge-$b-$pass.json --benchmark_out_format=json > $W/ab/merge-$b-$pass.txt 2>&1
    echo "pass $pass $b merge exit $? ($(elapsed) s)"
    left=$(( budget - reserve - $(elapsed) - 5 )); [ $left -gt 20 ] || break 2
    timeout $left $W/bin/bench$b --grid=full --benchmark_filter='^nway/' \
      --benchmark_out=$W/ab/nway-$b-$pass.json --benchmark_out_format=json > $W/ab/nway-$b-$pass.txt 2>&1
    echo "pass $pass $b nway exit $? ($(elapsed) s)"
    left=$(( budget - reserve - $(elapsed) - 5 )); [ $left -gt 20 ] || break 2
    timeout $left $W/bin/bench$b --sweep --benchmark_filter='^varlen-.*/auto' \
      --benchmark_out=$W/ab/varlen-$b-$pass.json --benchmark_out_format=json > $W/ab/varlen-$b-$pass.txt 2>&1
    echo "pass $pass $b varlen exit $? ($(elapsed) s)"
  done
  pack
  per=$(( $(date +%s) - start ))
  [ $(( $(elapsed) + per + 10 + reserve )) -lt $budget ] || break
done
if [ "${GRID:-1}" = 1 ] && grep -q H200 $W/gpu.txt && [ -x $W/bin/benchM ] && [ $(( budget - $(elapsed) )) -gt 200 ]; then
  mkdir -p $W/grid/bin && ln -sf $W/bin/benchM $W/grid/bin/merge_attn_bench
  OUT=$W/grid timeout $(( budget - $(elapsed) - 10 )) bash perf/h200_perf.sh $W/grid/bin
  echo "grid rc $? ($(elapsed) s)"; rm -rf $W/grid/bin; pack
fi
echo "done ($(elapsed) s)"; ls -la $OUT; exit $rc
