#!/bin/bash
# Session 16, run g: validation of the commit's CUDA build (perf/h200_validate.sh: test binary,
# memcheck, racecheck, initcheck); main's bench (bench-wmain: main's kernels) against this build's
# (bench-s16), 3 alternating passes over the N-way sweep's built-in entries; the whole grid of this
# build's bench (perf/h200_perf.sh). One archive.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
OUT_ALL=$OUT
OUT=$OUT_ALL/validation bash perf/h200_validate.sh $B/merge_attn_tests.gz
echo "validate exit $?"
mkdir -p $OUT_ALL/ab
F='nway-sweep/[^/]*/S[0-9]*/[^/]*/auto/'
for pass in 1 2 3; do
  for v in wmain s16; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=$OUT_ALL/ab/$v-$pass.json --benchmark_out_format=json > $OUT_ALL/ab/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
mkdir -p /tmp/gb && cp $B/bench-s16 /tmp/gb/merge_attn_bench
OUT=$OUT_ALL/grid bash perf/h200_perf.sh /tmp/gb
cd $OUT_ALL && tar czf s16g.tgz validation ab grid && rm -rf validation ab grid && ls -la $OUT_ALL
