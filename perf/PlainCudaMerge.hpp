// The plain-CUDA reference the benchmark compares against: the well-known baseline design for this
// operation, written for this project. One thread per 16-byte pack of a (token, head) row, 128
// threads per block, every thread reading both LSEs and computing the weights itself; the thread of
// the first pack writes output_lse. Contiguous LayoutRight data, head_size a multiple of the pack.
// Only built for CUDA.
#ifndef MERGEATTN_PERF_PLAINCUDAMERGE_HPP
#define MERGEATTN_PERF_PLAINCUDAMERGE_HPP

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace MergeAttnPerf {

template <class T, class Tr>
__global__ void plain_merge_kernel(T* __restrict__ out, float* __restrict__ out_lse,
                                   const T* __restrict__ pre, const float* __restrict__ pre_lse,
                                   const T* __restrict__ suf, const float* __restrict__ suf_lse,
                                   std::int64_t tokens, std::int64_t heads, int head_size) {
  constexpr int pack = 16 / sizeof(T);
  struct alignas(16) Pack {
    T v[pack];
  };
  const int packs_per_row = head_size / pack;
  const std::int64_t gid = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t total = tokens * heads * packs_per_row;
  if (gid >= total) return;
  const std::int64_t row = gid / packs_per_row;
  const int k = int(gid - row * packs_per_row);
  const std::int64_t t = row / heads, h = row - t * heads;
  float p = pre_lse[h * tokens + t], s = suf_lse[h * tokens + t];
  p = isinf(p) && p > 0 ? -INFINITY : p;
  s = isinf(s) && s > 0 ? -INFINITY : s;
  const float m = fmaxf(p, s);
  float wp, ws, lse;
  if (m == -INFINITY) {
    wp = ws = 0.f;
    lse = -INFINITY;
  } else {
    const float ep = __expf(p - m), es = __expf(s - m), sum = ep + es;
    wp = ep / sum;
    ws = es / sum;
    lse = __logf(sum) + m;
  }
  const Pack x = reinterpret_cast<const Pack*>(pre + row * head_size)[k];
  const Pack y = reinterpret_cast<const Pack*>(suf + row * head_size)[k];
  Pack o;
#pragma unroll
  for (int i = 0; i < pack; ++i)
    o.v[i] = Tr::from_compute(wp * Tr::to_compute(x.v[i]) + ws * Tr::to_compute(y.v[i]));
  reinterpret_cast<Pack*>(out + row * head_size)[k] = o;
  if (k == 0 && out_lse != nullptr) out_lse[h * tokens + t] = lse;
}

/// Launches the plain kernel on `stream` (asynchronous).
template <class T, class Tr>
void plain_merge(cudaStream_t stream, T* out, float* out_lse, const T* pre, const float* pre_lse,
                 const T* suf, const float* suf_lse, std::int64_t tokens, std::int64_t heads,
                 int head_size) {
  constexpr int pack = 16 / sizeof(T);
  if (head_size % pack != 0)
    throw std::invalid_argument("plain_merge: head_size must be a multiple of " +
                                std::to_string(pack));
  const std::int64_t total = tokens * heads * (head_size / pack);
  const int threads = 128;
  const std::int64_t blocks = (total + threads - 1) / threads;
  if (blocks == 0) return;
  plain_merge_kernel<T, Tr><<<unsigned(blocks), threads, 0, stream>>>(
      out, out_lse, pre, pre_lse, suf, suf_lse, tokens, heads, head_size);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("plain_merge launch: ") + cudaGetErrorString(err));
}

template <int = 0>
__global__ void empty_kernel() {}

/// An empty 2 x 128 launch on `stream`: the raw launch cost the merges are compared with.
inline void empty_launch(cudaStream_t stream) { empty_kernel<><<<2, 128, 0, stream>>>(); }

}  // namespace MergeAttnPerf

#endif  // KOKKOS_ENABLE_CUDA
#endif  // MERGEATTN_PERF_PLAINCUDAMERGE_HPP
