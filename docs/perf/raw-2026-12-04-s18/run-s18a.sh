#!/bin/bash
# Session 18, run a (run in session 19): validation of 253c5c3's CUDA test binary (the clean-clone
# CI build, stripped; its GPU code is 515f315's) through perf/h200_validate.sh; main's bench
# (s18base) against co (the kernel's preferred shared-memory carveout set to what its resident
# teams need, the rest of the SM's 256 KB left to L1) and l1co (co + every row prefetch asked of L1
# instead of L2; MA_CARVEOUT=-1: the L1 prefetch with Kokkos' carveout, "l1"), the N-way sweep's
# built-in entries and the large 2-way grid entries, 3 alternating passes; ncu of bf16 S64
# 4096x32x128 for s18base / co / l1co.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=/tmp/s18bin
mkdir -p $B && python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" .gpu-carry/bin/merge_attn_tests.xz $B/merge_attn_tests && chmod +x $B/merge_attn_tests
for f in .gpu-carry/bin/bench-*.gz; do b=$(basename $f .gz); gunzip -c $f > $B/$b && chmod +x $B/$b; done
R=$OUT; OUT=/tmp/s18w  # results gathered here, packed into $R/s18a.tgz after each step
pack() { tar czf $R/s18a.tgz -C $OUT gpu.txt a; }
mkdir -p $OUT/a/validation
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
OUT=$OUT/a/validation bash perf/h200_validate.sh $B/merge_attn_tests
echo "validation exit $?"
pack
F='nway-sweep/.*/auto'
F2='^merge/(float|bf16)/(16384|65536)x32x(64|128|576)/'
run() {  # run <label> <binary> <carveout env or empty>
  local lab=$1 bin=$2 co=$3
  env ${co:+MA_CARVEOUT=$co} timeout 100 $B/bench-$bin --sweep --benchmark_filter="$F" \
    --benchmark_out=$OUT/a/$lab-$pass.json --benchmark_out_format=json > $OUT/a/$lab-$pass.log 2>&1
  echo "$lab pass $pass rc $? $(date +%T)"
  env ${co:+MA_CARVEOUT=$co} timeout 100 $B/bench-$bin --grid=full --benchmark_filter="$F2" \
    --benchmark_out=$OUT/a/big-$lab-$pass.json --benchmark_out_format=json > $OUT/a/big-$lab-$pass.log 2>&1
  echo "big $lab pass $pass rc $? $(date +%T)"
}
for pass in 1 2 3; do
  run s18base s18base ""
  run co co ""
  run l1co l1co ""
  run l1 l1co -1
  pack
done
for v in s18base co l1co; do
  timeout 60 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section Occupancy \
    --metrics dram__bytes_read.sum,lts__t_requests.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,l1tex__t_sector_hit_rate.pct \
    $B/bench-$v --sweep --benchmark_filter="nway-sweep/bf16/S64/4096x32x128/auto" \
    > $OUT/a/ncu-$v-x128.txt 2>&1
  echo "ncu $v exit $?"
done
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump); ($CO -sass $B/bench-l1co | grep -o -E "CCTL[.A-Z0-9_]*" | sort | uniq -c | head; $CO -sass $B/bench-s18base | grep -o -E "CCTL[.A-Z0-9_]*" | sort | uniq -c | head) > $OUT/a/sass-l1.txt 2>&1
pack; ls -la $R
