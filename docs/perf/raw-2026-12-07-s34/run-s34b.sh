#!/bin/bash
# Session 34, last call (carry [".gpu-carry"]: lib/, bin/tests.xz = TestMain + TestMergeMany of the
# widened varlen rule (CUDA build, cuda preset flags, stripped), bin/benchV.xz = its bench):
# 1. perf/h200_validate.sh on the tests (sanitizers on the MergeMany Cuda tests given by the
#    filters), 2. passes of the bench's float varlen sweeps while BUDGET seconds last; $OUT/s34b.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s); budget=${BUDGET:-240}; W=/tmp/s34b; rm -rf $W; mkdir -p $W/validate $W/varlen
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt; cat $W/gpu.txt
pack() { tar czf $OUT/s34b.tgz -C $W --exclude bench .; }
rc=0
OUT=$W/validate bash perf/h200_validate.sh .gpu-carry/bin/tests.xz > $W/validate/summary.txt 2>&1 || rc=1
tail -14 $W/validate/summary.txt; echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"; pack
xz -dc .gpu-carry/bin/benchV.xz > $W/bench && chmod +x $W/bench
for pass in 1 2 3; do
  start=$(date +%s); left=$(( budget - (start - t0) ))
  [ $left -gt 50 ] || break
  timeout $(( left - 5 )) $W/bench --sweep --benchmark_filter="${FILTER:-^varlen-(pairs|ragged)/float/}" \
    --benchmark_out=$W/varlen/varlen-$pass.json --benchmark_out_format=json > $W/varlen/varlen-$pass.txt 2>&1
  echo "varlen pass $pass exit $? ($(( $(date +%s) - t0 )) s)"; pack
done
exit $rc
