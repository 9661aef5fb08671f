#!/bin/bash
# Session 24, call 5 (carry [".gpu-carry"]: merge_attn_tests-main.xz and bench-final.gz, the CUDA
# test binary and bench of the clean-clone CI proof of 24690ad: Kokkos with the team-launch patch):
#   bash docs/perf/raw-2026-12-05-s24/run-s24e.sh
# perf/h200_validate.sh on the test binary (any GPU), then, on an H200 only, main's whole grid
# (perf/h200_perf.sh). One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
W=/tmp/s24ew; B=/tmp/s24ebin; mkdir -p $W $B
pack() { tar czf $OUT/s24e.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
OUT=$W/validation bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-main.xz 2>&1 | tail -25
pack
grep -q H200 $W/gpu.txt || { cat $W/gpu.txt; echo "not an H200: no grid"; exit 0; }
gunzip -c .gpu-carry/bin/bench-final.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
OUT=$W/grid timeout 330 bash perf/h200_perf.sh $B
echo "grid rc $? $(date +%T)"
pack; ls -la $OUT
