#!/bin/bash
# Session 34: passes of the float varlen sweeps (varlen-pairs/, varlen-ragged/) of one bench
# (carry [".gpu-carry"]: lib/, bin/benchV.xz), while BUDGET seconds last; into $OUT/varlen.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s); budget=${BUDGET:-300}; W=/tmp/s34v; rm -rf $W; mkdir -p $W/varlen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt; cat $W/gpu.txt
xz -dc .gpu-carry/bin/benchV.xz > $W/bench && chmod +x $W/bench
for pass in 1 2 3 4; do
  start=$(date +%s); left=$(( budget - (start - t0) ))
  [ $left -gt 40 ] || break
  timeout $(( left - 5 )) $W/bench --sweep --benchmark_filter="${FILTER:-^varlen-(pairs|ragged)/float/}" \
    --benchmark_out=$W/varlen/varlen-$pass.json --benchmark_out_format=json > $W/varlen/varlen-$pass.txt 2>&1
  echo "pass $pass exit $? ($(( $(date +%s) - t0 )) s)"
  tar czf $OUT/varlen.tgz -C $W --exclude bench .
  [ $(( $(date +%s) - t0 + $(date +%s) - start )) -lt $budget ] || break
done
