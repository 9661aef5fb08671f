#!/bin/bash
# Session 24, call 2 (carry [".gpu-carry"]: harness-main.gz, harness-lite.gz from build-harness.sh):
#   bash docs/perf/raw-2026-12-05-s24/run-s24b.sh
# The host-time harness, main and lite alternating, 3 passes each.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s24bw; B=/tmp/s24bbin; mkdir -p $W $B
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/gpu.txt; cat $W/gpu.txt
for v in main lite; do gunzip -c .gpu-carry/bin/harness-$v.gz > $B/$v && chmod +x $B/$v; done
for pass in 1 2 3; do
  for v in main lite; do timeout 100 $B/$v > $W/$v-$pass.txt 2>&1; echo "pass $pass $v rc $?"; done
done
tar czf $OUT/s24b.tgz -C $W .
paste $W/main-1.txt $W/lite-1.txt $W/main-2.txt $W/lite-2.txt $W/main-3.txt $W/lite-3.txt | awk '{print $1, $2, $4, $6, $8, $10, $12}' | column -t
