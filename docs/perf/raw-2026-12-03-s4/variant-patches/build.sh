#!/bin/bash
# build.sh NAME [patch.py]: bench binary with include/ copied and patched
set -e
N=$1; P=$2
K=/root/.cache/mergeattn/kokkos-3.4.01-cuda-eec26ca93edc
D=/tmp/var/$N; rm -rf $D; mkdir -p $D; cp -r /work/main/include $D/include
if [ -n "$P" ]; then python3 $P $D/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp; fi
cd /work/main/build/cuda/perf
$K/bin/nvcc_wrapper_sm90 -DKOKKOS_DEPENDENCE -I$D/include -isystem $K/include -O2 -DNDEBUG -expt-extended-lambda -expt-relaxed-constexpr -arch=sm_90 -Xcompiler -fopenmp -std=c++17 -o $D/b.o -c /work/main/perf/MergeAttnBench.cpp
$K/bin/nvcc_wrapper_sm90 -O2 -DNDEBUG -fopenmp -arch=sm_90 $D/b.o -o $D/bench ../src/libmerge_attn.a /usr/lib/x86_64-linux-gnu/libbenchmark.so.1.7.1 $K/lib/libkokkoscontainers.a $K/lib/libkokkoscore.a /usr/local/cuda/lib/stubs/libcuda.so /usr/local/cuda/lib/libcudart.so /usr/lib/x86_64-linux-gnu/libdl.a
strip --strip-debug $D/bench; ls -la $D/bench
