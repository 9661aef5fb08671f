#!/bin/bash
# A/B/AB vs base on the small and mid 2-way shapes of the full grid, 3 alternating rounds.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
F='^merge/(float|half|bf16)/(1|16|64|256)x(8|32|128)x(64|128|576)/'
for r in 1 2 3; do
  for v in base A B AB; do
    .gpu-carry/bin/bench-$v --grid=full --benchmark_filter="$F" --benchmark_out=$OUT/$v-$r.json --benchmark_out_format=json > /dev/null 2>/dev/null || echo "$v $r rc $?"
  done
done
# Big-shape check that B/AB leave large launches alone (and A too).
F2='^merge/(float|bf16)/(16384|65536)x32x(128|576)/'
for v in base A B AB; do
  .gpu-carry/bin/bench-$v --grid=full --benchmark_filter="$F2" --benchmark_out=$OUT/big-$v.json --benchmark_out_format=json > /dev/null 2>&1 || echo "big $v rc $?"
done
cd $OUT && tar czf res.tgz *.json && rm -f *.json; ls $OUT
