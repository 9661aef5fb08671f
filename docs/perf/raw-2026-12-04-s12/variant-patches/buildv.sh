#!/bin/bash
# buildv.sh NAME patch1.py [...]: bench variant (+ ptxas -v log) -> .gpu-carry/bin/bench-NAME, /tmp/var/ptxas-NAME.log
set -e
cd /work/main
name=$1; shift
cp include/MergeAttn/impl/MergeAttn_MergeKernel.hpp /tmp/var/kernel.orig
for p in "$@"; do python3 $p; done
restore() { cp /tmp/var/kernel.orig include/MergeAttn/impl/MergeAttn_MergeKernel.hpp; }
cd build/cuda/perf
if ! /root/.cache/mergeattn/kokkos-3.4.01-cuda-eec26ca93edc/bin/nvcc_wrapper_sm90 -DKOKKOS_DEPENDENCE -I/work/main/include -isystem /root/.cache/mergeattn/kokkos-3.4.01-cuda-eec26ca93edc/include -O2 -g -DNDEBUG -Wall -Wextra -expt-extended-lambda -Wext-lambda-captures-this -expt-relaxed-constexpr -arch=sm_90 -Xcompiler -fopenmp -std=c++17 -Xptxas=-v -o CMakeFiles/merge_attn_bench.dir/MergeAttnBench.cpp.o -c /work/main/perf/MergeAttnBench.cpp > /tmp/var/ptxas-$name.log 2>&1; then restore; tail -30 /tmp/var/ptxas-$name.log; exit 1; fi
cd /work/main
touch build/cuda/perf/CMakeFiles/merge_attn_bench.dir/MergeAttnBench.cpp.o
cmake --build build/cuda --target merge_attn_bench -j2 > /tmp/var/build-$name.log 2>&1 || { restore; tail -30 /tmp/var/build-$name.log; exit 1; }
cp build/cuda/perf/merge_attn_bench .gpu-carry/bin/bench-$name && strip .gpu-carry/bin/bench-$name
restore
echo built $name
