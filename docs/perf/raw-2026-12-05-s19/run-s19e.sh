#!/bin/bash
# Session 19, prepared for the next GPU session (not run: the session's device time ran out).
# Which way of setting the 2-way kernels' carveout takes, and what it costs small launches:
#   base    - 515f315 (Kokkos 3.4's cudaFuncCachePreferShared for every team kernel);
#   k4small - Kokkos' launch header patched (variant-patches/kokkos-carveout-small.py), the
#             candidate supply patch: team kernels using no more shared memory than the driver
#             reserves per block get the carveout for full occupancy (the 2-way kernels);
#   cfirst  - MergeAttn sets it itself (variant-patches/carveout-intree.diff, with the logging of
#             carveout-log-every.py): before a launch whenever it differs from the last one set,
#             so before Kokkos' cache preference of the kernel's first launch;
#   cevery  - the same, set before every launch.
# Run b's k4 (every kernel) and run c's s19 (set once, after the first launch: no effect) are
# the references. Part 1: the 2-way grid entries of >= 2^17 pairs, 2 alternating passes, and ncu's
# shared-memory configuration of float 16384x32x576; part 2 (PART=2): the entries of 1-64 tokens
# (time / plain CUDA), 2 alternating passes, and the N-way sweep for base and k4small.
#   bash docs/perf/raw-2026-12-05-s19/run-s19e.sh          (about 330 s)
#   PART=2 bash docs/perf/raw-2026-12-05-s19/run-s19e.sh   (about 250 s)
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=/tmp/s19bin; mkdir -p $B
V="base k4small cfirst cevery"
for v in $V; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/bench-$v; chmod +x $B/bench-$v; done
R=$OUT; OUT=/tmp/s19w; mkdir -p $OUT/e
pack() { tar czf $R/s19e${PART:-1}.tgz -C $OUT gpu.txt e; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
if [[ ${PART:-1} == 1 ]]; then
  F2='^merge/[a-z0-9]+/(16384x8|65536x8|4096x32|16384x32|65536x32|1024x128|4096x128|16384x128|65536x128)x'
  for pass in 1 2; do
    for v in $V; do
      MA_CO_LOG=1 timeout 100 $B/bench-$v --grid=full --benchmark_filter="$F2" \
        --benchmark_out=$OUT/e/big-$v-$pass.json --benchmark_out_format=json > $OUT/e/big-$v-$pass.log 2>&1
      echo "big $v pass $pass rc $? $(date +%T)"
    done
    pack
  done
  for v in $V; do
    timeout 40 ncu --clock-control none -k regex:MergeFunctor --launch-skip 3 --launch-count 1 \
      --section LaunchStats $B/bench-$v --grid=full --benchmark_filter='^merge/float/16384x32x576/' \
      > $OUT/e/ncu-$v.txt 2>&1
    echo "ncu $v $(grep 'Shared Memory Configuration' $OUT/e/ncu-$v.txt)"
  done
else
  F3='^merge/[a-z0-9]+/(1|16|64)x'
  for pass in 1 2; do
    for v in $V; do
      timeout 100 $B/bench-$v --grid=full --benchmark_filter="$F3" \
        --benchmark_out=$OUT/e/small-$v-$pass.json --benchmark_out_format=json > $OUT/e/small-$v-$pass.log 2>&1
      echo "small $v pass $pass rc $? $(date +%T)"
    done
    pack
  done
  for pass in 1 2; do
    for v in base k4small; do
      timeout 60 $B/bench-$v --sweep --benchmark_filter='nway-sweep/.*/auto' \
        --benchmark_out=$OUT/e/$v-$pass.json --benchmark_out_format=json > $OUT/e/$v-$pass.log 2>&1
      echo "nway $v pass $pass rc $? $(date +%T)"
    done
  done
fi
pack; ls -la $R
