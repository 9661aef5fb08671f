#!/bin/bash
# Session 12, run f: ncu of one N-way launch each (6b45f5f's bench, built-in shapes, grid entries):
# bf16 S4 (LanePairs<8, true>, next pack iteration), bf16 S8 (LanePairs<8, true, 2>), bf16 S16
# (LanePairs<8, true>), float S4 (PairsPerThread<1, true>).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
for f in bf16/S4 bf16/S8 bf16/S16 float/S4; do
  n=$(echo $f | tr / -)
  timeout 100 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct \
    $B/bench-new --grid=full --benchmark_filter="^nway/$f/" > /tmp/r/ncu-nway-$n.txt 2>&1
  echo "$f exit $?"
done
cd /tmp/r && tar czf $OUT/s12f.tgz ncu-*.txt
