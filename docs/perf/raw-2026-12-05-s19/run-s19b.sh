#!/bin/bash
# Session 19, run b: the shared-memory carveout. Kokkos 3.4 asks cudaFuncCachePreferShared for every
# kernel (the largest shared memory, the smallest L1); Kokkos >= 4 leaves the driver's default
# unless the policy asks for a DesiredOccupancy, and then sets the carveout its blocks need. Three
# benches of main's tree (GPU code as 515f315), the same but for Kokkos' header
# Cuda/Kokkos_Cuda_KernelLaunch.hpp (variant-patches/kokkos-carveout.py):
#   base  - Kokkos 3.4 as supplied;
#   nocfg - no cache-config call (the driver's default), as Kokkos >= 4 by default;
#   k4    - carveout = what full occupancy needs, rounded up to 8 KB (as Kokkos >= 4 with
#           DesiredOccupancy 100), set when it changes.
# N-way sweep built-in entries, 3 alternating passes; the 2-way grid entries of >= 2^17 pairs,
# 2 alternating passes; ncu of float 2-way 16384x32x576 (base, k4).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=/tmp/s19bin; mkdir -p $B
gunzip -c .gpu-carry/bin/bench-base.gz > $B/bench-base
for v in nocfg k4; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/bench-$v; done
chmod +x $B/*
R=$OUT; OUT=/tmp/s19w; mkdir -p $OUT/b
pack() { tar czf $R/s19b.tgz -C $OUT gpu.txt b; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
MA_K4_LOG=1 timeout 60 $B/bench-k4 --grid=full --benchmark_filter='^merge/float/16384x32x(128|576)/|^nway/' \
  --benchmark_min_time=0.01 > $OUT/b/k4-carveouts.log 2>&1
F='nway-sweep/.*/auto'
F2='^merge/[a-z0-9]+/(16384x8|65536x8|4096x32|16384x32|65536x32|1024x128|4096x128|16384x128|65536x128)x'
for pass in 1 2 3; do
  for v in base nocfg k4; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$F" \
      --benchmark_out=$OUT/b/$v-$pass.json --benchmark_out_format=json > $OUT/b/$v-$pass.log 2>&1
    echo "$v pass $pass rc $? $(date +%T)"
  done
  pack
done
for pass in 1 2; do
  for v in base nocfg k4; do
    timeout 100 $B/bench-$v --grid=full --benchmark_filter="$F2" \
      --benchmark_out=$OUT/b/big-$v-$pass.json --benchmark_out_format=json > $OUT/b/big-$v-$pass.log 2>&1
    echo "big $v pass $pass rc $? $(date +%T)"
  done
  pack
done
for v in base k4; do
  timeout 60 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy \
    --metrics l1tex__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum,dram__bytes_read.sum \
    $B/bench-$v --grid=full --benchmark_filter='^merge/float/16384x32x576/' > $OUT/b/ncu-$v-f576.txt 2>&1
  echo "ncu $v exit $?"
done
pack; ls -la $R
