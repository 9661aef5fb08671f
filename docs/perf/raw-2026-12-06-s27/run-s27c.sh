#!/bin/bash
# Session 27 (carry [".gpu-carry"]: merge_attn_plan_tests.xz as in run-s27b.sh; tools/libcount_tool.so,
# count_tool.cpp here built with `g++ -O2 -shared -fPIC`):
#   bash docs/perf/raw-2026-12-06-s27/run-s27c.sh
# The plan tests with a Kokkos Tools library loaded (KOKKOS_PROFILE_LIBRARY, Kokkos 3.4): the tests
# then expect PlanLaunch::automatic to keep Kokkos' launch on Cuda (expected_mode), and the forced
# PlanLaunch::cuda_graph still to replay a graph (MergePlans/*; MergePlansCuda.CaptureFailures
# assumes no Tools library and is left out there). Then every plan test without the library.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s27cw; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
xz -dc .gpu-carry/bin/merge_attn_plan_tests.xz > /tmp/mpt && chmod +x /tmp/mpt
KOKKOS_PROFILE_LIBRARY=$PWD/.gpu-carry/tools/libcount_tool.so /tmp/mpt --gtest_filter='MergePlans/*' \
  > $W/with-tool.log 2>&1
echo "with the tool: exit $?" | tee -a $W/with-tool.log
/tmp/mpt > $W/without-tool.log 2>&1
echo "without: exit $?" | tee -a $W/without-tool.log
grep -h "count_tool\|PASSED\|FAILED" $W/*.log
tar czf $OUT/s27c.tgz -C $W .
