#!/bin/bash
# Session 17, run c: main's bench (s17base) against pf1 (merge_pack's L2 row prefetch asked once
# per 128-byte line), the N-way sweep's built-in entries, 3 alternating passes; ncu of bf16 S64
# 4096x32x128 (and x256) for both.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/c
F='nway-sweep/.*/auto'
for pass in 1 2 3; do
  for v in s17base pf1; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/c/$v-$pass.json --benchmark_out_format=json > $OUT/c/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
done
for v in s17base pf1; do
  for d in 128 256; do
    timeout 60 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section Occupancy \
      --metrics dram__bytes_read.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum \
      $B/bench-$v --sweep --benchmark_filter="nway-sweep/bf16/S64/4096x32x$d/auto" \
      > $OUT/c/ncu-$v-x$d.txt 2>&1
    echo "ncu $v x$d exit $?"
  done
done
cd $OUT && tar czf s17c.tgz gpu.txt c && rm -rf c && ls -la $OUT
