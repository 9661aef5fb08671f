#!/bin/bash
# Session 19, run c: the carveout as landed (MergeAttn_Carveout.hpp: the 2-way CUDA kernels set
# the carveout their blocks need through Kokkos 3.4's kernel pointer, from their second launch on)
# against base (main, 515f315) and run b's k4 (Kokkos' header patched, every kernel): the 2-way
# grid entries of >= 2^17 pairs and of 1-64 tokens (launch-bound: time / plain CUDA), 2 alternating
# passes; the N-way sweep, 1 pass (base, s19); ncu of float 16384x32x576 (s19).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=/tmp/s19bin; mkdir -p $B
for v in base k4 s19; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/bench-$v; done
chmod +x $B/*
R=$OUT; OUT=/tmp/s19w; mkdir -p $OUT/c
pack() { tar czf $R/s19c.tgz -C $OUT gpu.txt c; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
F2='^merge/[a-z0-9]+/(16384x8|65536x8|4096x32|16384x32|65536x32|1024x128|4096x128|16384x128|65536x128)x'
F3='^merge/[a-z0-9]+/(1|16|64)x'
for pass in 1 2; do
  for v in base s19 k4; do
    timeout 100 $B/bench-$v --grid=full --benchmark_filter="$F2" \
      --benchmark_out=$OUT/c/big-$v-$pass.json --benchmark_out_format=json > $OUT/c/big-$v-$pass.log 2>&1
    echo "big $v pass $pass rc $? $(date +%T)"
  done
  pack
  for v in base s19; do
    timeout 100 $B/bench-$v --grid=full --benchmark_filter="$F3" \
      --benchmark_out=$OUT/c/small-$v-$pass.json --benchmark_out_format=json > $OUT/c/small-$v-$pass.log 2>&1
    echo "small $v pass $pass rc $? $(date +%T)"
  done
  pack
done
for v in base s19; do
  timeout 60 $B/bench-$v --sweep --benchmark_filter='nway-sweep/.*/auto' \
    --benchmark_out=$OUT/c/$v-1.json --benchmark_out_format=json > $OUT/c/$v-1.log 2>&1
  echo "nway $v rc $? $(date +%T)"
done
pack
timeout 60 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
  --launch-skip 3 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  --metrics l1tex__t_sector_hit_rate.pct $B/bench-s19 --grid=full \
  --benchmark_filter='^merge/float/16384x32x576/' > $OUT/c/ncu-s19-f576.txt 2>&1
echo "ncu exit $?"
pack; ls -la $R
