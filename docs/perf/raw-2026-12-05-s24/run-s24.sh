#!/bin/bash
# Session 24, call 1 (carry [".gpu-carry"]: bench-main.gz = s24's bench (host_us counters) on main's
# code and Kokkos; bench-lite.gz = the same with the team-launch host patch in Kokkos and the kernel
# label built once):
#   bash docs/perf/raw-2026-12-05-s24/run-s24.sh
# 1. The small 2-way entries (1-64 tokens, heads 8/32/128, head sizes 64/128/576, 3 types) and the
#    empty launches, main and lite alternating, 3 passes (order swapped each pass).
# 2. ncu, caches not flushed (the bench's conditions): kernel durations of the merge, the plain
#    kernel, an empty raw kernel and an empty Kokkos team kernel at 1x32x128 bf16 (main).
# One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s24w; B=/tmp/s24bin; mkdir -p $W $B
pack() { tar czf $OUT/s24.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
for v in main lite; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/$v && chmod +x $B/$v; done
F='^(merge/(float|half|bf16)/(1|16|64)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  order="main lite"; [[ $pass == 2 ]] && order="lite main"
  for v in $order; do
    timeout 150 $B/$v --grid=full --sweep --benchmark_filter="$F" \
      --benchmark_out=$W/$v-$pass.json --benchmark_out_format=json > $W/$v-$pass.txt 2>&1
    echo "pass $pass $v rc $? $(date +%T)"
  done
  pack
done
n=0
for k in MergeFunctor plain_merge_kernel empty_kernel EmptyTeam; do
  n=$((n + 1))
  timeout 90 ncu --cache-control none --clock-control none --kernel-name-base demangled \
    --kernel-name "regex:$k" --launch-skip 20 --launch-count 5 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic \
    $B/main --grid=full --sweep --benchmark_filter='^(merge/bf16/1x32x128/|launch/(cuda_raw|kokkos_team))' \
    --benchmark_min_time=0.01 > $W/ncu-$n-$k.txt 2>&1
  echo "ncu $k rc $? $(date +%T)"
done
pack; ls -la $OUT
