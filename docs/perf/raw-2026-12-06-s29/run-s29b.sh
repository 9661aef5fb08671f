#!/bin/bash
# Session 29, the validation calls (carry [".gpu-carry"]: bin/mat-<commit>-A.xz or -B.xz, the CUDA
# test binary in parts as in ../raw-2026-12-06-s28/run-s28d.sh; with part B also bin/benchF.xz, the
# CUDA bench of e4d87df, the library code of the test binary):
#   bash docs/perf/raw-2026-12-06-s29/run-s29b.sh
# 1. ../raw-2026-12-06-s28/run-s28d.sh on the carried part (its logs into $OUT/s28d.tgz);
# 2. where benchF.xz is carried and the GPU is an H200: run-s29c.sh (the grid, then N-way and
#    varlen passes) in what is left of BUDGET seconds (into $OUT/s29c.tgz).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-330}
bash docs/perf/raw-2026-12-06-s28/run-s28d.sh 2>&1 | tail -22
rc=${PIPESTATUS[0]}
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
if [ -f .gpu-carry/bin/benchF.xz ] && nvidia-smi --query-gpu=name --format=csv | grep -q H200; then
  BUDGET=$(( budget - ($(date +%s) - t0) )) bash docs/perf/raw-2026-12-06-s29/run-s29c.sh
fi
exit $rc
