#!/bin/bash
# Session 21: alternating passes of host benches (build-host-variants.sh) on this VM.
#   PASSES=3 FILTER=nway GRID=full OUTDIR=... bash run-host-passes.sh NAME [NAME ...]
# Writes $OUTDIR/NAME-PASS.json; summarise with ../raw-2026-12-04-s18/host/hcmp.py OUTDIR NAME...
set -euo pipefail
W=${W:-/tmp/s21var}
out=${OUTDIR:?OUTDIR}
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads
for p in $(seq 1 "${PASSES:-3}"); do
  for name in "$@"; do
    "$W/bin/bench-$name" --grid="${GRID:-full}" --benchmark_filter="${FILTER:-nway}" \
      --benchmark_out="$out/$name-$p.json" --benchmark_out_format=json > "$out/$name-$p.txt" 2>&1
  done
done
