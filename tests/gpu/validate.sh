#!/usr/bin/env bash
# Runs the CUDA build's suite, compute-sanitizer and a benchmark on a machine with an NVIDIA GPU,
# writing logs into $OUT (default ./gpu-validation). The build tree is the `cuda` preset's, built
# on any machine with CUDA 13 (a GPU is not needed to build). Usage:
#   tests/gpu/validate.sh [build dir (build/cuda)] [absolute path the build dir was made at]
# When the build tree was made at another absolute path (ctest files hold absolute paths), pass
# that path as the second argument: it is made a symbolic link to the build dir given first.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build/cuda}
orig=${2:-}
out=${OUT:-$here/gpu-validation}
mkdir -p "$out"
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:$here/.gpu-carry/lib
export OMP_PROC_BIND=false
cd "$here" && cd "$build" || exit 2
if [ -n "$orig" ] && [ "$orig" != "$PWD" ]; then
  mkdir -p "$(dirname "$orig")"
  [ -e "$orig" ] || ln -s "$PWD" "$orig"
fi
T=tests/merge_attn_tests
log() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

{
  log "machine"
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvidia-smi | head -15
  nvcc --version 2>/dev/null | tail -2
  compute-sanitizer --version 2>/dev/null | head -2
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# Consumer tests configure and build projects against this build's Kokkos install, which lives on
# the machine the build was made on: they run there (CI), not here.
log "ctest (whole suite, every backend; consumer builds and compile-fail cases excluded)"
ctest --output-on-failure -LE 'consumer|compile_fail' 2>&1 | tee "$out/ctest.log" | tail -25

for tool in memcheck initcheck synccheck racecheck; do
  case $tool in
    memcheck) filter='*/Cuda.*:MergeStatesCrossBackend.*' ;;
    initcheck) filter='*/Cuda.*' ;;
    synccheck) filter='*/Cuda.*' ;;
    racecheck) filter='MergeEdgeCases/Cuda.*:MergeLaw/Cuda.*:MergeMappings/Cuda.*:MergeMany/Cuda.*' ;;
  esac
  log "compute-sanitizer --tool $tool ($filter)"
  timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$T" --gtest_filter="$filter" \
      > "$out/sanitizer-$tool.log" 2>&1
  echo "exit code $?" >> "$out/sanitizer-$tool.log"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|exit code" "$out/sanitizer-$tool.log" | tail -6
done

if [ -x perf/merge_attn_bench ]; then
  log "benchmark (${BENCH_GRID:-default} grid)"
  perf/merge_attn_bench --grid="${BENCH_GRID:-default}" ${BENCH_ARGS:-} --benchmark_counters_tabular=true \
      --benchmark_out="$out/bench.json" --benchmark_out_format=json 2>&1 | tee "$out/bench.txt" | tail -40
fi
