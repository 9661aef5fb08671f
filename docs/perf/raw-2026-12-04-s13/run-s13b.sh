#!/bin/bash
# Session 13, run b: cp.async ring (lane-minor slots) with the LanePairs weight cache sized by the
# state count (c): 8 slots (ring8c: narrow form kept; ring8cn: the rule without it), 12 and 16
# slots (no narrow form), ring4 (run a), against main (bench-new); alternating passes.
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib:$LD_LIBRARY_PATH
B=.gpu-carry/bin; mkdir -p /tmp/r; rm -rf /tmp/r/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > /tmp/r/gpu.txt
F='nway-sweep/(bf16/S[0-9]+/[^/]*/(auto|team16xvec8_g4_k8_ps2?)|float/S[0-9]+/[0-9]+x32x128/auto)/'
# ring8c keeps the narrow form, whose 8 teams do not fit with 16 states (S16 at 4096 tokens)
F8='nway-sweep/(bf16/S(4|8|64)/[^/]*/(auto|team16xvec8_g4_k8_ps2?)|bf16/S16/16384x32x128/(auto|team16xvec8_g4_k8_ps2?)|float/S[0-9]+/[0-9]+x32x128/auto)/'
for pass in 1 2 3; do
  for v in new ring8c ring8cn ring12c ring16c; do
    f=$F; [ $v = ring8c ] && f=$F8
    timeout 60 $B/bench-$v --sweep --benchmark_filter="$f" --benchmark_out=/tmp/r/$v-$pass.json --benchmark_out_format=json > /tmp/r/$v-$pass.log 2>&1
  done
  echo "pass $pass done $(date +%T)"
  (cd /tmp/r && tar czf $OUT/s13b.tgz *)
done
