#!/bin/bash
# Session 10, run d: ncu of one N-way launch each (77378df's bench): float S4, bf16 S8, bf16 S64.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r
for f in float/S4 bf16/S8 bf16/S64; do
  n=$(echo $f | tr / -)
  timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_thread_inst_executed_op_integer_pred_on.sum \
    $B/bench-main --grid=full --benchmark_filter="^nway/$f/" > /tmp/r/ncu-nway-$n.txt 2>&1
  echo "$f exit $?"
done
cd /tmp/r && tar czf $OUT/s10d.tgz ncu-*.txt
