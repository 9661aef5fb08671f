#!/bin/bash
# Session 28, the last calls (carry [".gpu-carry"]: bin/mat-<commit>-A.xz or -B.xz as in
# run-s28d.sh; with part A also bin/bench.gz, the CUDA bench of 7dd831c, whose library code is the
# test binary's):
#   bash docs/perf/raw-2026-12-06-s28/run-s28e.sh
# 1. run-s28d.sh on the carried part (validation; its logs into $OUT/s28d.tgz);
# 2. where bench.gz is carried: one pass of the nway-pairs sweep at head sizes 64 and 256 (1-256
#    tokens x 32, S 4/16/64: the small N-state rule, measured at 128, on other rows), into
#    $OUT/s28e-pairs.tgz;
# 3. then, on an H200 with 240 s left: the whole grid (perf/h200_perf.sh), into $OUT/s28e-grid.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
bash docs/perf/raw-2026-12-06-s28/run-s28d.sh 2>&1 | tail -22
rc=${PIPESTATUS[0]}
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
[ -f .gpu-carry/bin/bench.gz ] || exit $rc
B=/tmp/s28e-bench
mkdir -p $B /tmp/s28e-grid /tmp/s28e-pairs
gunzip -c .gpu-carry/bin/bench.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/s28e-pairs/gpu.txt
$B/merge_attn_bench --sweep --benchmark_filter='^nway-pairs/.*/(1|16|64|256)x32x(64|256)/' \
  --benchmark_out=/tmp/s28e-pairs/decode-1.json --benchmark_out_format=json \
  > /tmp/s28e-pairs/decode-1.txt 2>&1
echo "pairs sweep exit $? ($(( $(date +%s) - t0 )) s)"
tar czf $OUT/s28e-pairs.tgz -C /tmp/s28e-pairs .
if grep -q H200 /tmp/s28e-pairs/gpu.txt; then
  left=$(( ${BUDGET:-580} - ($(date +%s) - t0) ))
  if [ $left -gt 240 ]; then
    OUT=/tmp/s28e-grid timeout $(( left - 10 )) bash perf/h200_perf.sh $B
    echo "grid rc $? ($(( $(date +%s) - t0 )) s)"
    tar czf $OUT/s28e-grid.tgz -C /tmp/s28e-grid .
  else
    echo "grid skipped: $left s left"
  fi
else
  echo "not an H200: no grid"
fi
ls -la $OUT
exit $rc
