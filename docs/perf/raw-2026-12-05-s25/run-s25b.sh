#!/bin/bash
# Session 25 (carry [".gpu-carry"]: merge_attn_tests-main.xz, the CUDA test binary of the
# clean-clone CI proof of 24690ad (Kokkos with the team-launch patch); bench-plan.gz, the bench of
# branch s25 (MergeAttn::MergePlan; each entry under 50 us also times plan.execute()):
#   bash docs/perf/raw-2026-12-05-s25/run-s25b.sh
# 1. perf/h200_validate.sh on main's test binary (any GPU): the validation session 24 could not run.
# 2. The small and mid 2-way entries (1-1024 tokens, heads 8/32/128, head sizes 64/128/576, 3 types)
#    and the empty launches, 3 passes: the call (median_us, vs_plain) and its plan (plan_us,
#    plan_vs_plain) in the same process, the plain kernel after both.
# One archive, packed after each step.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
W=/tmp/s25w; B=/tmp/s25bin; mkdir -p $W $B
pack() { tar czf $OUT/s25.tgz -C $W .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/gpu.txt
cat $W/gpu.txt; nproc > $W/nproc.txt; lscpu > $W/lscpu.txt 2>&1
gunzip -c .gpu-carry/bin/bench-plan.gz > $B/plan && chmod +x $B/plan
F='^(merge/(float|half|bf16)/(1|16|64|256|1024)x(8|32|128)x(64|128|576)/|launch/)'
for pass in 1 2 3; do
  timeout 150 $B/plan --grid=full --sweep --benchmark_filter="$F" \
    --benchmark_out=$W/plan-$pass.json --benchmark_out_format=json > $W/plan-$pass.txt 2>&1
  echo "pass $pass rc $? $(date +%T)"
  pack
done
OUT=$W/validation timeout 330 bash perf/h200_validate.sh .gpu-carry/bin/merge_attn_tests-main.xz 2>&1 | tail -25
pack; ls -la $OUT
