#!/bin/bash
# Session 30, run d (carry [".gpu-carry"]: bin/mat-<commit>-A.xz, the CUDA test binary's TestMergeMany
# part of the CI build of <commit>; bin/benchM.xz, the bench of the same library; lib/):
#   BUDGET=<seconds> bash docs/perf/raw-2026-12-06-s30/run-s30d.sh
# 1. run-s30b.sh's validation of the carried part (every test, memcheck, racecheck, initcheck);
# 2. run-s30c.sh with the carried bench in what is left of BUDGET.
t0=$(date +%s)
budget=${BUDGET:-300}
BUDGET=0 bash docs/perf/raw-2026-12-06-s30/run-s30b.sh
rc=$?
BUDGET=$(( budget - ($(date +%s) - t0) )) bash docs/perf/raw-2026-12-06-s30/run-s30c.sh
exit $rc
