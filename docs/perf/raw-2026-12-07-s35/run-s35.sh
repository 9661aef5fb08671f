#!/bin/bash
# Session 35, one call (carry [".gpu-carry"]: lib/, bin/benchV.xz = main's bench with the wider
# float varlen sweep; optionally bin/tests.xz):
#   BUDGET=<seconds> bash .gpu-carry/run-s35.sh
# 1. Where bin/tests.xz was carried: perf/h200_validate.sh on it ($W/validate).
# 2. Where the GPU is an H200 and GRID=1: the whole grid (perf/h200_perf.sh) into $W/grid.
# 3. While the budget lasts: passes of the float varlen sweeps given by FILTER ($W/varlen).
# Everything into $OUT/s35.tgz, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s); budget=${BUDGET:-400}; W=/tmp/s35; rm -rf $W; mkdir -p $W/validate $W/varlen $W/grid $W/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt; cat $W/gpu.txt
pack() { tar czf $OUT/s35.tgz -C $W --exclude bin .; }
elapsed() { echo $(( $(date +%s) - t0 )); }
rc=0
if [ -f .gpu-carry/bin/tests.xz ]; then
  MEMCHECK_FILTER=${MEMCHECK_FILTER:-'*Cuda*Varlen*'} SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-60} \
    OUT=$W/validate bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
  tail -14 $W/validate/summary.txt; echo "validation rc $rc ($(elapsed) s)"; pack
fi
xz -dc .gpu-carry/bin/benchV.xz > $W/bin/bench && chmod +x $W/bin/bench
if [ "${GRID:-1}" = 1 ] && grep -q H200 $W/gpu.txt && [ $(( budget - $(elapsed) )) -gt 200 ]; then
  mkdir -p $W/grid/bin && ln -sf $W/bin/bench $W/grid/bin/merge_attn_bench
  OUT=$W/grid timeout $(( budget - $(elapsed) - 60 )) bash perf/h200_perf.sh $W/grid/bin
  echo "grid rc $? ($(elapsed) s)"; rm -rf $W/grid/bin; pack
fi
for pass in 1 2 3 4 5; do
  start=$(date +%s); left=$(( budget - (start - t0) ))
  [ $left -gt 40 ] || break
  timeout $(( left - 5 )) $W/bin/bench --sweep \
    --benchmark_filter="${FILTER:-^varlen-(pairs|ragged)/float/(S12/|S[0-9]+/(2048|4096|8192|16384)x)}" \
    --benchmark_out=$W/varlen/varlen-$pass.json --benchmark_out_format=json > $W/varlen/varlen-$pass.txt 2>&1
  echo "varlen pass $pass exit $? ($(elapsed) s)"; pack
  [ $(( $(date +%s) - t0 + $(date +%s) - start )) -lt $budget ] || break
done
echo "done ($(elapsed) s)"; exit $rc
