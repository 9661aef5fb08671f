#!/bin/bash
# Session 27 (carry [".gpu-carry"]: merge_attn_plan_tests.xz, TestMain.cpp + TestPlans.cpp of
# 89ea84f (the replay keeps the Views) linked alone, stripped; merge_attn_tests.xz, the whole test
# binary of bf8c658 (run2-h100's); bench.gz as in run-s27a.sh):
#   bash docs/perf/raw-2026-12-06-s27/run-s27b.sh
# 1. Any GPU: perf/h200_validate.sh on the plan tests (every test, then memcheck, racecheck and
#    initcheck of the Cuda ones).
# 2. Any GPU, where carried: memcheck of MergeMany and MergeMappings on Cuda with the whole binary of bf8c658 (in
#    run2-h100 the plan test's failure broke the context before they ran; the fix touches only the
#    plans' replay).
# 3. On an H200 only: run-s27a.sh's three passes, then the grid with the time left.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s27bw; mkdir -p $W
t0=$(date +%s)
pack() { tar czf $OUT/s27b.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
MEMCHECK_FILTER='*Cuda*' RACECHECK_FILTER='MergePlans/Cuda*' INITCHECK_FILTER='MergePlans/Cuda*' \
  OUT=$W/plans timeout 200 bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_plan_tests.xz 2>&1 |
  tail -20
echo "plans done $(( $(date +%s) - t0 )) s"
pack
if [ -f .gpu-carry/bin/merge_attn_tests.xz ]; then
xz -dc .gpu-carry/bin/merge_attn_tests.xz > /tmp/mat && chmod +x /tmp/mat
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/mat --gtest_brief=1 \
  --gtest_filter='MergeMany/Cuda*:MergeMappings/Cuda*' > $W/memcheck-many.log 2>&1
echo "exit code $?" >> $W/memcheck-many.log
tail -n 4 $W/memcheck-many.log
echo "memcheck done $(( $(date +%s) - t0 )) s"
pack
fi
grep -q H200 $W/gpu.txt || { echo "not an H200: no timing"; ls -la $OUT; exit 0; }
STEPS="2 3" BUDGET=$(( 585 - ($(date +%s) - t0) )) bash docs/perf/raw-2026-12-06-s27/run-s27a.sh
tar czf $OUT/s27b.tgz -C $W . -C /tmp s27w
ls -la $OUT
