#!/bin/bash
# Session 26 (carry [".gpu-carry"]: bench-graph.gz, main's bench with each entry under 50 us also
# timing its plan's kernel replayed from a CUDA graph (graph_us, graph_host_us, graph_vs_plain) and
# launch/cuda_graph_2x128, an empty kernel's graph):
#   bash docs/perf/raw-2026-12-06-s26/run-s26c.sh
# Any GPU (the question is the host cost of a graph launch against Kokkos' launch path): three
# passes of session 25's entries and the empty launches. One archive, packed after each pass.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s26cw; B=/tmp/s26cbin; mkdir -p $W $B
pack() { tar czf $OUT/s26c.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
gunzip -c .gpu-carry/bin/bench-graph.gz > $B/merge_attn_bench && chmod +x $B/merge_attn_bench
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  timeout 90 $B/merge_attn_bench --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/graph-$pass.json --benchmark_out_format=json > $W/graph-$pass.txt 2>&1
  echo "pass $pass rc $? $(date +%T)"
  pack
done
grep -h "skipped" $W/graph-*.txt | sort | uniq -c
ls -la $OUT
