#!/bin/bash
# Session 24, call 3 (carry [".gpu-carry"]: bench-main.gz and bench-lite1.gz as in run-s24.sh
# (bench-lite.gz there), bench-lite2.gz = lite1 + the launch path's Views held unmanaged):
#   bash docs/perf/raw-2026-12-05-s24/run-s24c.sh
# The small 2-way entries and the empty launches (run-s24.sh's filter), main, lite1 and lite2
# in rotating order, 3 passes. One archive, packed after each pass.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s24cw; B=/tmp/s24cbin; mkdir -p $W $B
pack() { tar czf $OUT/s24c.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; lscpu > $W/lscpu.txt 2>&1
for v in main lite1 lite2; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/$v && chmod +x $B/$v; done
F='^(merge/(float|half|bf16)/(1|16|64)x(8|32|128)x(64|128|576)/|launch/)'
orders=("main lite1 lite2" "lite1 lite2 main" "lite2 main lite1")
for pass in 1 2 3; do
  for v in ${orders[$((pass - 1))]}; do
    timeout 150 $B/$v --grid=full --sweep --benchmark_filter="$F" \
      --benchmark_out=$W/$v-$pass.json --benchmark_out_format=json > $W/$v-$pass.txt 2>&1
    echo "pass $pass $v rc $? $(date +%T)"
  done
  pack
done
ls -la $OUT
