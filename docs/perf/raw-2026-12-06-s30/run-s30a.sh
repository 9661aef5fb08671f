#!/bin/bash
# Session 30, run a (carry [".gpu-carry"]: bin/benchL.xz, the CUDA bench of 9ce59e3 (the library
# of 4e524f9) built with -lineinfo, stripped; lib/):
#   BUDGET=<seconds> bash docs/perf/raw-2026-12-06-s30/run-s30a.sh
# 1. On an H200: the whole grid (perf/h200_perf.sh) into $W/grid.
# 2. ncu of one launch each of the N-way merge kernel (StackedStates) at the shapes in PROFILES
#    (grid entries: the large bf16 misses of #7 and split-KV decode), every section and the
#    source-level counters (stall samples per SASS instruction), exported as CSV.
# 3. In what is left: passes of the varlen sweeps (varlen-pairs/, varlen-ragged/).
# Everything into $OUT/s30a.tgz (the .ncu-rep files into $OUT/rep.tgz when they fit).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-480}
W=/tmp/s30a
rm -rf $W  # a warm machine keeps /tmp between calls: no files of an earlier call
mkdir -p $W/ncu
xz -dc .gpu-carry/bin/benchL.xz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
nproc > $W/nproc.txt
cat $W/gpu.txt
B=$W/merge_attn_bench
pack() { tar czf $OUT/s30a.tgz -C $W --exclude merge_attn_bench --exclude '*.ncu-rep' .; }
if [ "${GRID:-1}" = 1 ] && grep -q H200 $W/gpu.txt; then
  OUT=$W/grid timeout $(( budget / 2 )) bash perf/h200_perf.sh $W
  echo "grid rc $? ($(( $(date +%s) - t0 )) s)"
  pack
fi
PROFILES=${PROFILES:-"bf16/S64/4096x32x128 bf16/S4/16384x32x128 float/S4/16384x32x128 bf16/S64/1x32x128"}
for p in $PROFILES; do
  n=$(echo $p | tr / -)
  left=$(( budget - ($(date +%s) - t0) - 20 ))
  [ $left -gt 30 ] || { echo "no time left for $p"; break; }
  timeout $left ncu --set full --import-source no --clock-control none \
    --kernel-name-base demangled -k 'regex:MergeFunctor.*StackedStates' \
    --launch-skip 3 --launch-count 1 -o $W/ncu/$n -f \
    $B --grid=full --benchmark_filter="^nway/$p/" --benchmark_min_time=0.01 > $W/ncu/$n.log 2>&1
  echo "ncu $p exit $? ($(( $(date +%s) - t0 )) s)"
  if [ -f $W/ncu/$n.ncu-rep ]; then
    ncu -i $W/ncu/$n.ncu-rep --page details > $W/ncu/$n-details.txt 2>&1
    ncu -i $W/ncu/$n.ncu-rep --page source --csv --print-source sass 2> $W/ncu/$n-sass.err |
      gzip > $W/ncu/$n-sass.csv.gz
    ncu -i $W/ncu/$n.ncu-rep --page source --csv --print-source cuda 2> $W/ncu/$n-cuda.err |
      gzip > $W/ncu/$n-cuda.csv.gz
  fi
  pack
done
for pass in 1 2 3; do
  start=$(date +%s)
  [ $(( start - t0 + 60 )) -lt $budget ] || break
  timeout $(( budget - (start - t0) - 10 )) $B --sweep --benchmark_filter='^varlen-' \
    --benchmark_out=$W/varlen-$pass.json --benchmark_out_format=json > $W/varlen-$pass.txt 2>&1
  echo "varlen pass $pass exit $? ($(( $(date +%s) - t0 )) s)"
  pack
done
tar czf $OUT/rep.tgz -C $W/ncu $(cd $W/ncu && ls *.ncu-rep 2>/dev/null) 2>/dev/null
[ $(stat -c %s $OUT/rep.tgz 2>/dev/null || echo 0) -lt 16000000 ] || rm -f $OUT/rep.tgz
ls -la $OUT
