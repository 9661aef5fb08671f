#!/bin/bash
# Session 15, run b: validation of the review commit's CUDA build (perf/h200_validate.sh: test
# binary, memcheck, racecheck, initcheck); main's bench (bench-new, 1e037a5) against this build's
# (bench-s15), 3 alternating passes over the N-way sweep's built-in entries at head size 128 and
# 576 and the prefetching LanePairs forms at S15;
# the whole grid of this build's bench (perf/h200_perf.sh). Everything in one archive ($OUT holds
# only a few files that come back).
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
OUT_ALL=$OUT
OUT=$OUT_ALL/validation bash perf/h200_validate.sh $B/merge_attn_tests.gz
echo "validate exit $?"
mkdir -p $OUT_ALL/ab
F='nway-sweep/[^/]*/S[0-9]*/(16384x32x128|4096x32x128|4096x32x576)/auto/|nway-sweep/bf16/S15/16384x32x128/team16xvec8_g4_k8_ps'
for pass in 1 2 3; do
  for v in new s15; do
    timeout 100 $B/bench-$v --sweep --benchmark_filter="$F" --benchmark_out=$OUT_ALL/ab/$v-$pass.json --benchmark_out_format=json > $OUT_ALL/ab/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
done
mkdir -p /tmp/gb && cp $B/bench-s15 /tmp/gb/merge_attn_bench
OUT=$OUT_ALL/grid bash perf/h200_perf.sh /tmp/gb
cd $OUT_ALL && tar czf s15b.tgz validation ab grid && rm -rf validation ab grid && ls -la $OUT_ALL
