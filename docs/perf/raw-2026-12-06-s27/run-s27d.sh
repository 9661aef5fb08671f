#!/bin/bash
# Session 27 (carry [".gpu-carry"]: merge_attn_plan_tests.xz of aa9fec2; tools/libcount_tool.so,
# count_tool.cpp here built with `g++ -O2 -shared -fPIC`):
#   bash docs/perf/raw-2026-12-06-s27/run-s27d.sh
# Branch next-tools-refusal (aa9fec2; merge_attn_plan_tests.xz its TestMain.cpp + TestPlans.cpp):
# every plan test with a Kokkos Tools library loaded (PlanLaunch::cuda_graph refused by name, the
# capture tests Tools-aware), then without it.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s27dw; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
xz -dc .gpu-carry/bin/merge_attn_plan_tests.xz > /tmp/mpt && chmod +x /tmp/mpt
KOKKOS_PROFILE_LIBRARY=$PWD/.gpu-carry/tools/libcount_tool.so /tmp/mpt --gtest_filter='MergePlans*' \
  > $W/with-tool.log 2>&1
echo "with the tool: exit $?" | tee -a $W/with-tool.log
/tmp/mpt > $W/without-tool.log 2>&1
echo "without: exit $?" | tee -a $W/without-tool.log
grep -h "count_tool\|PASSED\|FAILED" $W/*.log
tar czf $OUT/s27d.tgz -C $W .
