#!/bin/bash
# Session 30, the validation calls (carry [".gpu-carry"]: bin/mat-<commit>-<part>.xz, the CUDA
# test binary in parts: the CI proof's objects linked with TestMain.cpp.o, stripped, xz;
# A = TestMergeMany, B = the other files with TestPlans, C = TestTypes; optionally bin/benchL.xz):
#   BUDGET=<seconds> GRID=0|1 bash docs/perf/raw-2026-12-06-s30/run-s30b.sh
# 1. perf/h200_validate.sh on each carried part: every test, then compute-sanitizer memcheck (part
#    A: the default filter, the N-way, mapping and plan tests; other parts: every Cuda test),
#    racecheck and initcheck (default filters: the N-way tests of part A); logs into $OUT/s30b.tgz.
# 2. Where benchL.xz is carried: run-s30a.sh in what is left of BUDGET (GRID: the H200 grid first).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-300}
W=/tmp/s30b
rm -rf $W  # a warm machine keeps /tmp between calls: no files of an earlier call
mkdir -p $W
rc=0
for f in .gpu-carry/bin/mat-*.xz; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .xz)
  filter='*Cuda*'
  [[ $name == *-A ]] && filter='MergeMany/Cuda*:MergeMappings/Cuda*:MergePlans/Cuda*:MergePlansCuda*'
  MEMCHECK_FILTER=$filter OUT=$W/$name bash perf/h200_validate.sh "$f" > $W/$name.txt 2>&1 || rc=1
  tail -14 $W/$name.txt
done
tar czf $OUT/s30b.tgz -C $W .
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
if [ -f .gpu-carry/bin/benchL.xz ]; then
  BUDGET=$(( budget - ($(date +%s) - t0) )) bash docs/perf/raw-2026-12-06-s30/run-s30a.sh
fi
exit $rc
