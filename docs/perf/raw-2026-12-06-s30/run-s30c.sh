#!/bin/bash
# Session 30, run c: the N-way weights' first pass by the vector lanes (a reduction) against main,
# in one call (carry [".gpu-carry"]: bin/benchL.xz = main's bench (4e524f9's library, 9ce59e3's
# bench, -lineinfo), bin/benchM.xz = the same with the change; lib/):
#   BUDGET=<seconds> bash docs/perf/raw-2026-12-06-s30/run-s30c.sh
# Alternating passes (L, M, L, M, ...) of the full grid's N-way entries (large launches and split-KV
# decode) and of the varlen sweeps' built-in shapes, as many as fit in BUDGET (the benches carried:
# one of them alone also runs). Into $OUT/s30c.tgz.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
t0=$(date +%s)
budget=${BUDGET:-300}
W=/tmp/s30c
rm -rf $W  # a warm machine keeps /tmp between calls: no files of an earlier call
mkdir -p $W
benches=""
for b in L M; do
  [ -f .gpu-carry/bin/bench$b.xz ] || continue
  xz -dc .gpu-carry/bin/bench$b.xz > $W/bench$b && chmod +x $W/bench$b && benches="$benches $b"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt
pack() { tar czf $OUT/s30c.tgz -C $W --exclude benchL --exclude benchM .; }
for pass in 1 2 3 4; do
  start=$(date +%s)
  for b in $benches; do
    $W/bench$b --grid=full --benchmark_filter='^nway/' --benchmark_out=$W/nway-$b-$pass.json \
      --benchmark_out_format=json > $W/nway-$b-$pass.txt 2>&1
    echo "pass $pass $b nway exit $? ($(( $(date +%s) - t0 )) s)"
    $W/bench$b --sweep --benchmark_filter='^varlen-.*/auto' --benchmark_out=$W/varlen-$b-$pass.json \
      --benchmark_out_format=json > $W/varlen-$b-$pass.txt 2>&1
    echo "pass $pass $b varlen exit $? ($(( $(date +%s) - t0 )) s)"
  done
  pack
  per=$(( $(date +%s) - start ))
  [ $(( $(date +%s) - t0 + per + 10 )) -lt $budget ] || break
done
ls -la $OUT
