#!/bin/bash
# Session 24, call 4 (carry [".gpu-carry"]: harness-main2.gz = host-launch-harness.cpp with the
# kernel-argument entries against main's Kokkos; harness-landed.gz = the same against the Kokkos of
# the team-launch patch; both with the label built once):
#   bash docs/perf/raw-2026-12-05-s24/run-s24d.sh
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s24dw; B=/tmp/s24dbin; mkdir -p $W $B
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
for v in main2 landed; do gunzip -c .gpu-carry/bin/harness-$v.gz > $B/$v && chmod +x $B/$v; done
for pass in 1 2 3; do
  for v in main2 landed; do timeout 100 $B/$v > $W/$v-$pass.txt 2>&1; echo "pass $pass $v rc $?"; done
done
tar czf $OUT/s24d.tgz -C $W .
