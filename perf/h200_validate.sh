#!/usr/bin/env bash
# Validate the CUDA build's test binary on an NVIDIA GPU; logs into $OUT (or ./validate-out).
#   perf/h200_validate.sh <merge_attn_tests binary, or the same compressed: .gz or .xz>
# Runs the whole test binary, then compute-sanitizer memcheck (N-way, mapping and plan tests),
# racecheck (N-way) and initcheck (the N-state LanePairs shapes, the state ring among them). Each
# log ends with "exit code N (S s)"; the script prints every log's tail and exits non-zero when any
# step failed (a test, a sanitizer report, a time-out).
# Env: MEMCHECK_FILTER, RACECHECK_FILTER, INITCHECK_FILTER (gtest filters; defaults below),
# SANITIZER_TIMEOUT (seconds per sanitizer run, default 200).
set -uo pipefail
bin=${1:?merge_attn_tests binary (or .gz / .xz)}
out=${OUT:-./validate-out}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:$here/.gpu-carry/lib
# A compressed binary is unpacked into a temporary folder (xz: about a quarter smaller than gzip for
# the test binary, which matters under the run tool's 64 MiB carry; python3's lzma where the machine
# has no xz).
if [[ $bin == *.gz || $bin == *.xz ]]; then
  tmp=$(mktemp -d)
  if [[ $bin == *.gz ]]; then
    gunzip -c "$bin" > "$tmp/merge_attn_tests"
  elif command -v xz > /dev/null; then
    xz -dc "$bin" > "$tmp/merge_attn_tests"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' \
      "$bin" > "$tmp/merge_attn_tests"
  fi || { echo "could not unpack $bin"; exit 2; }
  chmod +x "$tmp/merge_attn_tests"
  bin=$tmp/merge_attn_tests
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt"
failed=0
# step <log name> <time-out in s, 0: none> <command...>: runs it into $out/<log>.log.
step() {
  local log=$out/$1.log limit=$2
  shift 2
  local start rc
  start=$(date +%s)
  if [[ $limit -gt 0 ]]; then
    timeout "$limit" "$@" > "$log" 2>&1
  else
    "$@" > "$log" 2>&1
  fi
  rc=$?
  echo "exit code $rc ($(($(date +%s) - start)) s)" >> "$log"
  [[ $rc -eq 0 ]] || failed=1
}
limit=${SANITIZER_TIMEOUT:-200}
step gtest-all 0 "$bin" --gtest_brief=1
step memcheck "$limit" compute-sanitizer --tool memcheck --error-exitcode 99 "$bin" --gtest_brief=1 \
  --gtest_filter="${MEMCHECK_FILTER:-MergeMany/Cuda*:MergeMappings/Cuda*:MergePlans/Cuda*:MergePlansCuda*}"
step racecheck "$limit" compute-sanitizer --tool racecheck --error-exitcode 99 "$bin" \
  --gtest_brief=1 --gtest_filter="${RACECHECK_FILTER:-MergeMany/Cuda.NWay*}"
step initcheck "$limit" compute-sanitizer --tool initcheck --error-exitcode 99 "$bin" \
  --gtest_brief=1 --gtest_filter="${INITCHECK_FILTER:-MergeMany/Cuda.NWayLanePairs*}"
tail -n 3 "$out"/gtest-all.log "$out"/memcheck.log "$out"/racecheck.log "$out"/initcheck.log
echo "validation $([[ $failed -eq 0 ]] && echo passed || echo FAILED)"
exit $failed
