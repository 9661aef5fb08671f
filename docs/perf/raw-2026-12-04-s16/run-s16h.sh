#!/bin/bash
# Session 16, run h: the CUDA test binary of the clean-clone CI build of 50da97e through
# perf/h200_validate.sh; the bench of 0460948 (the sweep's new built-in N-way entries: 4352-8192
# tokens x 64/128, head sizes 32 and 512), one pass. One archive.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
OUT_ALL=$OUT
OUT=$OUT_ALL/validation bash perf/h200_validate.sh $B/merge_attn_tests.gz
echo "validate exit $?"
mkdir -p $OUT_ALL/sweep
timeout 200 $B/bench-s16h --sweep --benchmark_filter='nway-sweep/bf16/S(4|8|16)/(4352|5120|7168|8192)x32x|nway-sweep/[^/]*/S[0-9]*/4096x32x(32|512)/auto/' \
  --benchmark_out=$OUT_ALL/sweep/new-entries.json --benchmark_out_format=json > $OUT_ALL/sweep/new-entries.log 2>&1
echo "sweep exit $?"
cd $OUT_ALL && tar czf s16h.tgz validation sweep && rm -rf validation sweep && ls -la $OUT_ALL
