#!/bin/bash
# Session 38, third call (carry [".gpu-carry"]: lib/; bin/tests.xz = TestMain + TestMergeMany +
# TestPlans + TestBadInput of the tail-batch build, stripped; bin/bench{L,M}.xz = the bench before
# and after the tail batch; bin/benchV{L,M}.xz = the same with the float varlen sweep's counts 9, 10,
# 11 instead of 4-64):
#   BUDGET=<seconds> [PASSES=n] bash .gpu-carry/run-s38.sh
# 1. perf/h200_validate.sh on bin/tests.xz ($W/validate).
# 2. PASSES (default 2) alternating passes L, M, each while the budget lasts: benchV's forced and
#    built-in shapes at 9-11 states from 2048 tokens ($W/abv), then the full grid's N-way entries,
#    then the varlen sweeps' built-in shapes ($W/ab).
# Everything into $OUT/s38.tgz, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s); budget=${BUDGET:-300}; W=/tmp/s38; rm -rf $W; mkdir -p $W/validate $W/ab $W/abv $W/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt; cat $W/gpu.txt
pack() { tar czf $OUT/s38.tgz -C $W --exclude bin .; }
elapsed() { echo $(( $(date +%s) - t0 )); }
rc=0
if [ -f .gpu-carry/bin/tests.xz ]; then
  OUT=$W/validate bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
  tail -16 $W/validate/summary.txt; echo "validation rc $rc ($(elapsed) s)"; pack
fi
for b in L M VL VM; do
  xz -dc .gpu-carry/bin/bench$b.xz > $W/bin/bench$b && chmod +x $W/bin/bench$b
done
# run <bench> <out stem> <args...>: one bench run while at least 20 s of the budget are left.
run() {
  local b=$1 stem=$2 left; shift 2
  left=$(( budget - $(elapsed) - 5 )); [ $left -gt 20 ] || return 1
  timeout $left $W/bin/bench$b "$@" --benchmark_out=$stem.json --benchmark_out_format=json > $stem.txt 2>&1
  echo "$stem exit $? ($(elapsed) s)"
}
for pass in $(seq 1 ${PASSES:-2}); do
  for b in L M; do
    run V$b $W/abv/varlen-$b-$pass --sweep \
      --benchmark_filter='^varlen-(pairs|ragged)/float/S(9|10|11)/(2048|8192|16384)x' || break 2
  done
  pack
  for b in L M; do
    run $b $W/ab/nway-$b-$pass --grid=full --benchmark_filter='^nway/' || break 2
  done
  pack
  for b in L M; do
    run $b $W/ab/varlen-$b-$pass --sweep --benchmark_filter='^varlen-.*/auto' || break 2
  done
  pack
done
pack; echo "done ($(elapsed) s)"; ls -la $OUT; exit $rc
