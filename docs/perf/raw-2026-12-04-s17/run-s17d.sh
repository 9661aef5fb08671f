#!/bin/bash
# Session 17, run d: main's bench (s17base) against pad (odd row stride of the one-pair / two-pair
# N-state weight cache) and padl (pad + odd row stride of the LanePairs weight fields), the N-way
# sweep's built-in entries, 3 alternating passes; ncu of bf16 S64 4096x32x128 with pad.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/d
F='nway-sweep/.*/auto'
for pass in 1 2 3; do
  for v in s17base pad padl; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/d/$v-$pass.json --benchmark_out_format=json > $OUT/d/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
done
for v in s17base pad; do
  timeout 60 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
    $B/bench-$v --sweep --benchmark_filter="nway-sweep/bf16/S64/4096x32x128/auto" \
    > $OUT/d/ncu-$v-x128.txt 2>&1
  echo "ncu $v exit $?"
done
cd $OUT && tar czf s17d.tgz gpu.txt d && rm -rf d && ls -la $OUT
