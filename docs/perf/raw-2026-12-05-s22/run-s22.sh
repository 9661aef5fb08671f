#!/bin/bash
# Session 22, one call on the H200 (about 550 s), carry [".gpu-carry"] (build-s22.sh's benches,
# session 20's bench-k4small.gz, the CI proof's test binary merge_attn_tests-k4ns.xz):
#   bash docs/perf/raw-2026-12-05-s22/run-s22.sh
# k4ns (the carveout patch's rule: team kernels without team scratch) against base (Kokkos 3.4's
# shared-memory preference for every team kernel) and k4small (session 19's broader rule):
#   big    2-way grid entries of >= 2^17 pairs, pass 1: base, k4ns, k4small;
#   nway   the N-way sweep, 2 alternating passes of base, k4ns, k4small;
#   big    pass 2: base, k4ns;
#   small  the entries of 1-64 tokens (time / plain CUDA), base and k4ns, 1 pass;
#   ncu    the shared memory configured for float 16384x32x576 (2-way) and N-way float S8
#          4096x32x576, base and k4ns;
# first perf/h200_validate.sh on the test binary merge_attn_tests-$N.xz, where there is one, into
# $OUT/validation-$N (its log's tail printed);
# the results are packed into $OUT/s22.tgz after each step, so a call cut short keeps the steps run.
N=${NEW:-k4ns}  # the variant against base and k4small (NEW=main: a bench of main, next session)
[[ -f .gpu-carry/bin/merge_attn_tests-$N.xz ]] &&
  OUT=$OUT/validation-$N bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-$N.xz 2>&1 | tail -25
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=/tmp/s22bin; mkdir -p $B
for v in base $N k4small; do gunzip -c .gpu-carry/bin/bench-$v.gz > $B/bench-$v; chmod +x $B/bench-$v; done
R=$OUT; W=/tmp/s22w; mkdir -p $W/e
pack() { tar czf $R/s22.tgz -C $W gpu.txt e; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
F2='^merge/[a-z0-9]+/(16384x8|65536x8|4096x32|16384x32|65536x32|1024x128|4096x128|16384x128|65536x128)x'
big() {
  timeout 100 $B/bench-$1 --grid=full --benchmark_filter="$F2" \
    --benchmark_out=$W/e/big-$1-$2.json --benchmark_out_format=json > $W/e/big-$1-$2.log 2>&1
  echo "big $1 pass $2 rc $? $(date +%T)"
}
for v in base $N k4small; do big $v 1; done; pack
for pass in 1 2; do
  for v in base $N k4small; do
    timeout 60 $B/bench-$v --sweep --benchmark_filter='nway-sweep/.*/auto' \
      --benchmark_out=$W/e/nway-$v-$pass.json --benchmark_out_format=json > $W/e/nway-$v-$pass.log 2>&1
    echo "nway $v pass $pass rc $? $(date +%T)"
  done
done; pack
for v in base $N; do big $v 2; done; pack
for v in base $N; do
  timeout 100 $B/bench-$v --grid=full --benchmark_filter='^merge/[a-z0-9]+/(1|16|64)x' \
    --benchmark_out=$W/e/small-$v-1.json --benchmark_out_format=json > $W/e/small-$v-1.log 2>&1
  echo "small $v rc $? $(date +%T)"
done; pack
for v in base $N; do
  timeout 40 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
    --launch-skip 3 --launch-count 1 --section LaunchStats $B/bench-$v --grid=full \
    --benchmark_filter='^merge/float/16384x32x576/' > $W/e/ncu-2way-$v.txt 2>&1
  timeout 40 ncu --clock-control none --kernel-name-base demangled -k regex:MergeFunctor \
    --launch-skip 3 --launch-count 1 --section LaunchStats $B/bench-$v --sweep \
    --benchmark_filter='^nway-sweep/float/S8/4096x32x576/auto' > $W/e/ncu-nway-$v.txt 2>&1
  echo "ncu $v: $(grep -h 'Shared Memory Configuration Size' $W/e/ncu-*-$v.txt | tr -s ' ' | tr '\n' ';')"
done; pack
ls -la $R
