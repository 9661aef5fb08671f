#!/bin/bash
# Session 16, run a: main's bench (bench-main, 89355c3) against the variant lsepf
# (variant-patches/lsepf.py: the N-state prefetching forms with the league capped at
# MA_TEAMS_PER_SM teams per multiprocessor, so that a team thread takes several steps, and with
# MA_LSEPF=1 an L2 prefetch of the next step's LSEs after the current step's weights), 3
# alternating passes over the N-way sweep's built-in entries; main's forced forms at float S15/S16.
# One archive.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
mkdir -p $OUT/ab
F='nway-sweep/[^/]*/S[0-9]*/(16384x32x128|4096x32x128|4096x32x576)/auto/'
run() {  # name binary tps pf pass
  MA_TEAMS_PER_SM=$3 MA_LSEPF=$4 timeout 100 $B/$2 --sweep --benchmark_filter="$F" \
    --benchmark_out=$OUT/ab/$1-$5.json --benchmark_out_format=json > $OUT/ab/$1-$5.log 2>&1
}
for pass in 1 2 3; do
  run main bench-main 0 0 $pass
  run t8 bench-lsepf 8 0 $pass
  run t8pf bench-lsepf 8 1 $pass
  run t16pf bench-lsepf 16 1 $pass
  run t32pf bench-lsepf 32 1 $pass
  echo "pass $pass done $(date +%T)"
done
# float S15 (90 % against 95.7 at S16): every forced form of main's sweep, one pass.
timeout 120 $B/bench-main --sweep --benchmark_filter='nway-sweep/float/S1[56]/' \
  --benchmark_out=$OUT/ab/float-s15-forms.json --benchmark_out_format=json > $OUT/ab/float-s15-forms.log 2>&1
cd $OUT && tar czf s16a.tgz gpu.txt ab && rm -rf ab && ls -la $OUT
