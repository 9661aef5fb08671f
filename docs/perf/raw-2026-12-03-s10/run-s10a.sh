#!/bin/bash
# Session 10, run a: N-way A/B of weight-cache sizes (32/64/128) and state-pointer stepping (rp),
# 8-state batches for 16-bit (u8); resource usage; ncu of bf16 4096x32x64 2-way (merge, plain).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
mkdir -p /tmp/r
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
for v in c32 c64 c32rp c64rp c64rpu8; do
  echo "== $v" >> /tmp/r/res.txt
  cuobjdump -res-usage $B/bench-$v 2>/dev/null | grep -A1 'StackedStates' | grep -o 'REG:[0-9]*.*' | sort | uniq -c >> /tmp/r/res.txt
done
s=$(date +%s)
for r in 1 2 3; do
  for v in c32 c64 c128 c32rp c64rp c64rpu8; do
    $B/bench-$v --grid=full --benchmark_filter='^nway/' --benchmark_out=/tmp/r/nway-$v-$r.json --benchmark_out_format=json > /dev/null 2>&1 || echo "$v $r rc $?" >> /tmp/r/errors.txt
  done
done
echo "ab $(( $(date +%s) - s )) s" >> /tmp/r/gpu.txt
s=$(date +%s)
F='^merge/bf16/4096x32x64/'
timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor --launch-skip 3 --launch-count 1 --set full \
  $B/bench-c32 --grid=full --benchmark_filter="$F" > /tmp/r/ncu-merge-bf16-4096x32x64.txt 2>&1
timeout 120 ncu --clock-control none -k regex:plain_merge --launch-skip 3 --launch-count 1 --set full \
  $B/bench-c32 --grid=full --benchmark_filter="$F" > /tmp/r/ncu-plain-bf16-4096x32x64.txt 2>&1
echo "ncu $(( $(date +%s) - s )) s" >> /tmp/r/gpu.txt
cd /tmp/r && tar czf $OUT/s10a.tgz * && ls -la $OUT && cat gpu.txt errors.txt 2>/dev/null
