#!/bin/bash
# Session 20: builds what ../raw-2026-12-05-s19/run-s19e.sh runs, from the checked-out tree, into
# .gpu-carry (ignored; carry it). Ignored files do not survive between sessions, so session 19's
# benches were gone; this rebuilds them in one command (about 10 min on 2 cores once the CUDA Kokkos
# supply exists, 5 more the first time; TESTS=1 adds the k4small test binary, about 30 min more).
#   bash docs/perf/raw-2026-12-05-s20/build-s20.sh            (from the repository root)
#   TESTS=1 bash docs/perf/raw-2026-12-05-s20/build-s20.sh
# Variants (all of the checked-out tree's code; logs in $W/<variant>/*.log):
#   base     as is;
#   k4small  Kokkos' Cuda/Kokkos_Cuda_KernelLaunch.hpp replaced for the bench by
#            ../raw-2026-12-05-s19/variant-patches/kokkos-carveout-small.py's output (-I ahead of
#            Kokkos' -isystem; the build log shows the header's "MERGEATTN VARIANT k4small");
#   cfirst   variant-patches/carveout-intree.diff applied, with carveout-log-every.py's logging;
#   cevery   the same, the carveout set before every launch;
#   TESTS=1: merge_attn_tests built with variant-patches/kokkos-3.4.01-team-carveout.patch.candidate
#            in cmake/patches (its own Kokkos under a new cache key), as
#            .gpu-carry/bin/merge_attn_tests-k4small.xz, for perf/h200_validate.sh (xz since session
#            21: 15 MB against gzip's 21, room under the 64 MiB carry).
set -euo pipefail
root=$(pwd)
V=$root/docs/perf/raw-2026-12-05-s19/variant-patches
W=${W:-/tmp/s20var}
mkdir -p "$W" .gpu-carry/bin .gpu-carry/lib
grep -qx '.gpu-carry/' .git/info/exclude 2>/dev/null || echo '.gpu-carry/' >> .git/info/exclude
# tree NAME: a copy of the tracked files (the working tree's contents) in $W/NAME/src.
tree() {
  rm -rf "$W/$1"; mkdir -p "$W/$1/src"
  git ls-files -z | tar cf - --null -T - | tar xf - -C "$W/$1/src"
}
# build NAME TARGET [CXX flags]: configures the cuda preset there and builds TARGET.
build() {
  local d=$W/$1/src
  (cd "$d" && cmake --preset cuda ${3:+-DCMAKE_CXX_FLAGS="$3"} > ../config.log 2>&1 &&
     cmake --build build/cuda --target "$2" -j2 > ../build-$2.log 2>&1) ||
    { echo "build of $1 ($2) failed: see $W/$1/"; exit 1; }
}
# keep NAME PATH OUTNAME [xz]: strips and gzips (or xz-compresses) a binary into .gpu-carry/bin.
keep() {
  strip -o "$W/$1/stripped" "$2" || return 1
  if [[ ${4:-gz} == xz ]]; then
    rm -f ".gpu-carry/bin/$3.gz"; xz -6 -T2 -c "$W/$1/stripped" > ".gpu-carry/bin/$3.xz"
  else
    gzip -c "$W/$1/stripped" > ".gpu-carry/bin/$3.gz"
  fi
}

tree base && build base merge_attn_bench && keep base "$W/base/src/build/cuda/perf/merge_attn_bench" bench-base
kokkos=$(sed -n 's/^Kokkos_DIR:[A-Z]*=\(.*\)\/lib\/cmake\/Kokkos$/\1/p' "$W/base/src/build/cuda/CMakeCache.txt")
[[ -f $kokkos/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp ]] || { echo "no Kokkos install found ($kokkos)"; exit 1; }
python3 "$V/kokkos-carveout-small.py" "$kokkos/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp" "$W/kkov"
tree k4small && build k4small merge_attn_bench "-I$W/kkov/k4small"
grep -q "MERGEATTN VARIANT k4small" "$W/k4small/build-merge_attn_bench.log" || { echo "k4small header not used"; exit 1; }
keep k4small "$W/k4small/src/build/cuda/perf/merge_attn_bench" bench-k4small
for mode in first every; do
  tree c$mode
  (cd "$W/c$mode/src" && patch -p1 -s < "$V/carveout-intree.diff")
  python3 "$V/carveout-log-every.py" "$W/c$mode/src/include/MergeAttn/impl/MergeAttn_Carveout.hpp" $mode
  build c$mode merge_attn_bench && keep c$mode "$W/c$mode/src/build/cuda/perf/merge_attn_bench" bench-c$mode
done
if [[ ${TESTS:-0} == 1 ]]; then
  tree k4p
  cp "$V/kokkos-3.4.01-team-carveout.patch.candidate" "$W/k4p/src/cmake/patches/kokkos-3.4.01-team-carveout.patch"
  build k4p merge_attn_tests && keep k4p "$W/k4p/src/build/cuda/tests/merge_attn_tests" merge_attn_tests-k4small xz
fi
for lib in libbenchmark.so.1debian libgomp.so.1; do cp -L "/lib/x86_64-linux-gnu/$lib" .gpu-carry/lib/; done
ls -la .gpu-carry/bin; du -sh .gpu-carry
# The run tool carries at most 64 MiB: the tracked files plus .gpu-carry.
total=$(( $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) + $(du -sb .gpu-carry | cut -f1) ))
echo "carry: $((total / 1048576)) MiB of 64"
