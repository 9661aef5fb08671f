#!/bin/bash
# Session 23, call 3 (carry [".gpu-carry"]: merge_attn_tests-main.xz, the CUDA test binary of the
# clean-clone CI proof of 216a651, and bench-main.gz as in run-s23.sh):
#   bash docs/perf/raw-2026-12-05-s23/run-s23b.sh
# perf/h200_validate.sh on the test binary (any GPU), then, on an H200 only, a second pass of main's
# whole grid (perf/h200_perf.sh), for the medians of two grids. One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
W=/tmp/s23bw; B=/tmp/s23bbin; mkdir -p $W $B
pack() { tar czf $OUT/s23b.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
OUT=$W/validation bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-main.xz 2>&1 | tail -25
pack
grep -q H200 $W/gpu.txt || { cat $W/gpu.txt; echo "not an H200: no grid"; exit 0; }
gunzip -c .gpu-carry/bin/bench-main.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
OUT=$W/grid2 timeout 300 bash perf/h200_perf.sh $B
echo "grid rc $? $(date +%T)"
pack; ls -la $OUT
