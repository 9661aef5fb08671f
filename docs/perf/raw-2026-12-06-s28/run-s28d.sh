#!/bin/bash
# Session 28: the CUDA test binary validated in parts (the whole binary, stripped and compressed,
# does not fit the run tool's 64 MiB beside the working tree). Each part is the CI proof's objects
# linked by tests' link.txt with TestMain.cpp.o and a subset of the test files, stripped, xz:
#   mat-<commit>-A.xz: TestMergeMany + TestPlans; mat-<commit>-B.xz: the other test files.
# Carry [".gpu-carry"] with the parts of this call in bin/ (one part per call):
#   bash docs/perf/raw-2026-12-06-s28/run-s28d.sh
# perf/h200_validate.sh on each: every test, then memcheck (part A: the default filter, the N-way,
# mapping and plan tests; part B: every Cuda test), racecheck and initcheck (default filters).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s28d
mkdir -p $W
rc=0
for f in .gpu-carry/bin/mat-*.xz; do
  name=$(basename "$f" .xz)
  if [[ $name == *-B ]]; then
    MEMCHECK_FILTER='*Cuda*' OUT=$W/$name bash perf/h200_validate.sh "$f" || rc=1
  else
    OUT=$W/$name bash perf/h200_validate.sh "$f" || rc=1
  fi
done
tar czf $OUT/s28d.tgz -C $W .
ls -la $OUT
exit $rc
