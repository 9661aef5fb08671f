#!/bin/bash
# Session 28, last call (carry [".gpu-carry"]: bin/bench.gz, the CUDA bench of 7dd831c):
#   bash docs/perf/raw-2026-12-06-s28/run-s28f.sh
# On an H200 only: the whole grid (perf/h200_perf.sh; its N-way entries now include split-KV
# decode's shapes with their plans), into $OUT/s28f-grid.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee /tmp/gpu-name.txt
grep -q H200 /tmp/gpu-name.txt || { echo "not an H200: no grid"; exit 0; }
B=/tmp/s28f-bench
mkdir -p $B /tmp/s28f-grid
gunzip -c .gpu-carry/bin/bench.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
OUT=/tmp/s28f-grid timeout 540 bash perf/h200_perf.sh $B
echo "grid rc $?"
tar czf $OUT/s28f-grid.tgz -C /tmp/s28f-grid .
ls -la $OUT
