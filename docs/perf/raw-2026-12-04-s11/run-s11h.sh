#!/bin/bash
# Session 11, run h: ncu of the N-way head size 64 launches (d83bdb7's bench, built-in shapes):
# bf16 S16 (LanePairs<8, true>), bf16 S64 (two pairs per thread), float S16 (PairsPerThread<1, true>).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
for f in bf16/S16 bf16/S64 float/S16; do
  n=$(echo $f | tr / -)
  timeout 130 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_thread_inst_executed_op_integer_pred_on.sum,lts__t_sector_hit_rate.pct \
    $B/bench-hd --sweep --benchmark_filter="^nway-sweep/$f/4096x32x64/auto" > /tmp/r/ncu-x64-$n.txt 2>&1
  echo "$f exit $?"
done
cd /tmp/r && tar czf $OUT/s11h.tgz ncu-*.txt
