#!/bin/bash
# Session 21: host benches of the checked-out tree and of variants of the host N-state merge
# (MergeAttn_MergeKernel.hpp's constants edited with sed), for alternating passes on this VM.
#   bash docs/perf/raw-2026-12-05-s21/build-host-variants.sh NAME='SED' [NAME='SED' ...]
# (from the repository root; NAME=... with an empty SED is the tree as is). Benches land in
# $W/bin/bench-NAME; build logs in $W/NAME/.
set -euo pipefail
W=${W:-/tmp/s21var}
mkdir -p "$W/bin"
for arg in "$@"; do
  name=${arg%%=*} expr=${arg#*=}
  rm -rf "$W/$name"; mkdir -p "$W/$name/src"
  git ls-files -z | tar cf - --null -T - | tar xf - -C "$W/$name/src"
  k=$W/$name/src/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp
  if [[ -n $expr ]]; then
    cp "$k" "$k.orig"; sed -i -e "$expr" "$k"
    ! cmp -s "$k" "$k.orig" || { echo "$name: the sed expression changed nothing"; exit 1; }
    diff "$k.orig" "$k" > "$W/$name/variant.diff" || true
  fi
  (cd "$W/$name/src" && cmake --preset host > ../config.log 2>&1 &&
     cmake --build build/host --target merge_attn_bench -j2 > ../build.log 2>&1) ||
    { echo "build of $name failed: see $W/$name/"; exit 1; }
  cp "$W/$name/src/build/host/perf/merge_attn_bench" "$W/bin/bench-$name"
  echo "built $W/bin/bench-$name"
done
