#!/bin/bash
# Session 22: the two benches run-s22.sh compares, built from one commit's tree (REF, default main:
# the Kokkos supply without the carveout patch) into .gpu-carry/bin (ignored; carry it):
#   base  as is;
#   k4ns  Kokkos' Cuda/Kokkos_Cuda_KernelLaunch.hpp replaced for the bench by
#         variant-patches/kokkos-carveout-noscratch.py's output (-I ahead of Kokkos' -isystem; the
#         build log shows "MERGEATTN VARIANT k4ns"): the carveout for full occupancy for team
#         kernels launched without team scratch, which is what cmake/patches/
#         kokkos-3.4.01-team-carveout.patch does.
# The test binary for perf/h200_validate.sh is the CUDA build of the clean-clone CI proof of the
# commit that adds the patch (TESTBIN=<its build/cuda/tests/merge_attn_tests>: stripped, xz).
#   [REF=main] [MERGEATTN_DEPS_CACHE=<cache with that tree's Kokkos>] [TESTBIN=...] \
#     bash docs/perf/raw-2026-12-05-s22/build-s22.sh
set -euo pipefail
root=$(pwd)
here=$root/docs/perf/raw-2026-12-05-s22
W=${W:-/tmp/s22var}
REF=${REF:-main}
mkdir -p "$W" .gpu-carry/bin .gpu-carry/lib
tree() {
  rm -rf "$W/$1"; mkdir -p "$W/$1/src"
  git archive "$REF" | tar xf - -C "$W/$1/src"
}
build() {
  local d=$W/$1/src
  (cd "$d" && cmake --preset cuda ${2:+-DCMAKE_CXX_FLAGS="$2"} > ../config.log 2>&1 &&
     cmake --build build/cuda --target merge_attn_bench -j2 > ../build.log 2>&1) ||
    { echo "build of $1 failed: see $W/$1/"; exit 1; }
  strip -o "$W/$1/stripped" "$d/build/cuda/perf/merge_attn_bench"
  gzip -c "$W/$1/stripped" > ".gpu-carry/bin/bench-$1.gz"
}
tree base && build base
kokkos=$(sed -n 's/^Kokkos_DIR:[A-Z]*=\(.*\)\/lib\/cmake\/Kokkos$/\1/p' "$W/base/src/build/cuda/CMakeCache.txt")
[[ -f $kokkos/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp ]] || { echo "no Kokkos install found ($kokkos)"; exit 1; }
python3 "$here/variant-patches/kokkos-carveout-noscratch.py" "$kokkos/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp" "$W/kkov"
tree k4ns && build k4ns "-I$W/kkov/k4ns"
grep -q "MERGEATTN VARIANT k4ns" "$W/k4ns/build.log" || { echo "k4ns header not used"; exit 1; }
if [[ -n ${TESTBIN:-} ]]; then
  strip -o "$W/tests-stripped" "$TESTBIN"
  xz -6 -T2 -c "$W/tests-stripped" > .gpu-carry/bin/merge_attn_tests-k4ns.xz
fi
for lib in libbenchmark.so.1debian libgomp.so.1; do cp -L "/lib/x86_64-linux-gnu/$lib" .gpu-carry/lib/; done
ls -la .gpu-carry/bin
total=$(( $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) + $(du -sb .gpu-carry | cut -f1) ))
echo "carry: $((total / 1048576)) MiB of 64"
