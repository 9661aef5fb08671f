#!/bin/bash
# Session 28, the last calls (carry [".gpu-carry"]: bin/mat-<commit>-A.xz or -B.xz as in
# run-s28d.sh; with part A also bin/bench.gz, the CUDA bench of 067dee5, whose bench and library
# code are the commit's):
#   bash docs/perf/raw-2026-12-06-s28/run-s28e.sh
# 1. run-s28d.sh on the carried part (validation; its logs into $OUT/s28d.tgz);
# 2. where bench.gz is carried, on an H200 only: the whole grid (perf/h200_perf.sh; the N-way
#    entries now include split-KV decode's shapes), into $OUT/s28e-grid.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
bash docs/perf/raw-2026-12-06-s28/run-s28d.sh 2>&1 | tail -22
rc=${PIPESTATUS[0]}
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
[ -f .gpu-carry/bin/bench.gz ] || exit $rc
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: no grid"; exit $rc; }
B=/tmp/s28e-bench
mkdir -p $B /tmp/s28e-grid
gunzip -c .gpu-carry/bin/bench.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
left=$(( ${BUDGET:-580} - ($(date +%s) - t0) ))
if [ $left -gt 240 ]; then
  OUT=/tmp/s28e-grid timeout $(( left - 10 )) bash perf/h200_perf.sh $B
  echo "grid rc $? ($(( $(date +%s) - t0 )) s)"
else
  echo "grid skipped: $left s left"
fi
tar czf $OUT/s28e-grid.tgz -C /tmp/s28e-grid .
ls -la $OUT
exit $rc
