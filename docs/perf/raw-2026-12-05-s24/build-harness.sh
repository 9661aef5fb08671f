#!/bin/bash
# Session 24: builds host-launch-harness.cpp for a tree and its CUDA Kokkos prefix, into .gpu-carry.
#   bash docs/perf/raw-2026-12-05-s24/build-harness.sh NAME TREE KOKKOS_PREFIX
# TREE: a checkout whose build/cuda holds libmerge_attn.a (its include/ and perf/ are used).
set -euo pipefail
name=$1; tree=$2; kokkos=$3
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/harness-$name; rm -rf "$W"; mkdir -p "$W"
cat > "$W/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(harness CXX)
find_package(Kokkos REQUIRED)
add_executable(host_launch_harness "$here/host-launch-harness.cpp")
target_include_directories(host_launch_harness PRIVATE "$tree/include" "$tree/perf")
target_compile_features(host_launch_harness PRIVATE cxx_std_17)
target_link_libraries(host_launch_harness PRIVATE "$tree/build/cuda/src/libmerge_attn.a" Kokkos::kokkos)
CM
cmake -S "$W" -B "$W/b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKokkos_ROOT="$kokkos" \
  -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper_sm90" > "$W/config.log" 2>&1
cmake --build "$W/b" -j2 > "$W/build.log" 2>&1
mkdir -p .gpu-carry/bin
strip -o "$W/stripped" "$W/b/host_launch_harness"
gzip -c "$W/stripped" > ".gpu-carry/bin/harness-$name.gz"
ls -la ".gpu-carry/bin/harness-$name.gz"
