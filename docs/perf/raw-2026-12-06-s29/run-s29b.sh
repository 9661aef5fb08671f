#!/bin/bash
# Session 29, the validation calls (carry [".gpu-carry"]: bin/mat-<commit>-A.xz or -B.xz, the CUDA
# test binary in parts as in ../raw-2026-12-06-s28/run-s28d.sh; with part B also bin/benchF.xz, the
# CUDA bench of e4d87df, the library code of the test binary):
#   bash docs/perf/raw-2026-12-06-s29/run-s29b.sh
# 1. ../raw-2026-12-06-s28/run-s28d.sh on the carried part (its logs into $OUT/s28d.tgz);
# 2. where benchF.xz is carried, passes (as many as fit in BUDGET seconds) of the full grid's N-way
#    entries and the varlen-pairs sweep (the built-in shape against forced 8 / 16 / 32 lanes), into
#    $OUT/s29b.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-500}
bash docs/perf/raw-2026-12-06-s28/run-s28d.sh 2>&1 | tail -22
rc=${PIPESTATUS[0]}
echo "validation rc $rc ($(( $(date +%s) - t0 )) s)"
[ -f .gpu-carry/bin/benchF.xz ] || exit $rc
W=/tmp/s29b
mkdir -p $W
xz -dc .gpu-carry/bin/benchF.xz > $W/merge_attn_bench && chmod +x $W/merge_attn_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
B=$W/merge_attn_bench
for pass in 1 2 3; do
  start=$(date +%s)
  $B --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/nway-$pass.json \
    --benchmark_out_format=json > $W/nway-$pass.txt 2>&1
  echo "pass $pass nway exit $? ($(( $(date +%s) - start )) s)"
  $B --sweep --benchmark_filter='^varlen-pairs/' --benchmark_out=$W/varlen-$pass.json \
    --benchmark_out_format=json > $W/varlen-$pass.txt 2>&1
  echo "pass $pass varlen exit $? ($(( $(date +%s) - start )) s)"
  tar czf $OUT/s29b.tgz -C $W --exclude merge_attn_bench .
  used=$(( $(date +%s) - t0 ))
  per=$(( $(date +%s) - start ))
  [ $(( used + per + 10 )) -lt $budget ] || break
done
ls -la $OUT
exit $rc
