// MergeAttn::Impl: the row loops of the merge on host execution spaces. A portable version (loops
// the compiler vectorises for its target) for every value type and, on x86-64 with GCC or Clang,
// AVX2 + F16C versions for the 16-bit types and AVX-512 (with BF16) ones for bfloat16_t, the best
// the CPU runs chosen at run time (a binary built for the default x86-64 target has only SSE2,
// where the 16-bit conversions are emulated with integer code and ran at 5-20 % of the host copy
// bandwidth). All versions do the same float operations in the same order (no FMA contraction:
// the AVX2 target does not include FMA, the AVX-512 code multiplies and adds with instructions
// the compiler does not fuse) and the same round-to-nearest-even conversions, so their results
// are identical bit for bit (tested).
#ifndef MERGEATTN_IMPL_HOSTROWS_HPP
#define MERGEATTN_IMPL_HOSTROWS_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_Types.hpp>
#include <MergeAttn/impl/MergeAttn_ValueTraits.hpp>
#include <cmath>
#include <cstdint>
#include <type_traits>

// MERGEATTN_DISABLE_X86_ROWS (defined by the user) keeps the portable loops only.
#if !defined(MERGEATTN_DISABLE_X86_ROWS) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDA_ARCH__) && !defined(__NVCOMPILER)
#define MERGEATTN_IMPL_X86_ROWS 1
#include <immintrin.h>
#define MERGEATTN_IMPL_X86_TARGET __attribute__((target("avx2,f16c")))
#define MERGEATTN_IMPL_X86_512_TARGET \
  __attribute__((target("avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))
#else
#define MERGEATTN_IMPL_X86_ROWS 0
#endif

namespace MergeAttn {
namespace Impl {

/// Which row code the host spaces run.
enum class HostRowIsa : int {
  portable = 0,   // compiler-vectorised loops for the build's target
  x86_avx2 = 1,   // x86-64 AVX2 + F16C loops for half_t and bfloat16_t
  x86_avx512 = 2  // x86-64 AVX-512 F, BW, VL, DQ and BF16 (AMD Zen 4, Intel Sapphire Rapids and
                  // later): loops for bfloat16_t; half_t takes the AVX2 + F16C loops
};

/// Whether this CPU runs the row code `isa` (and this build has it).
inline bool host_row_isa_supported(const HostRowIsa isa) {
#if MERGEATTN_IMPL_X86_ROWS
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  if (isa == HostRowIsa::x86_avx2) return avx2;
  if (isa == HostRowIsa::x86_avx512)
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bf16");
#endif
  return isa == HostRowIsa::portable;
}

/// The best row code this CPU runs (detected once per process).
inline HostRowIsa host_row_isa() {
  static const HostRowIsa isa =
      host_row_isa_supported(HostRowIsa::x86_avx512) ? HostRowIsa::x86_avx512
      : host_row_isa_supported(HostRowIsa::x86_avx2) ? HostRowIsa::x86_avx2
                                                     : HostRowIsa::portable;
  return isa;
}

template <class T>
constexpr bool has_x86_rows_v =
    std::is_same<T, MergeAttn::half_t>::value || std::is_same<T, MergeAttn::bfloat16_t>::value;
// AVX-512 rows for bfloat16_t only: its float -> bfloat16 rounding is one instruction there
// (VCVTNE2PS2BF16) instead of ten; half_t keeps the AVX2 + F16C rows, which AVX-512 did not make
// faster (measured, docs/perf/README.md).
template <class T>
constexpr bool has_x512_rows_v = std::is_same<T, MergeAttn::bfloat16_t>::value;

// The row codes, as the first argument of the overloads of weighted_row, accumulate_row and
// store_row (dispatch_row picks one).
struct PortableRows {};
struct X86Rows {};   // AVX2 + F16C, 16-bit types
struct X512Rows {};  // AVX-512 (F, BW, VL, DQ, BF16), bfloat16_t

#if MERGEATTN_IMPL_X86_ROWS
// Eight values at a time, as floats. half_t: the F16C instructions (round to nearest even, NaN
// kept quiet with its top payload bits: what float_to_half_bits does); bfloat16_t: the bit
// arithmetic of float_to_bfloat16_bits on eight lanes.
MERGEATTN_IMPL_X86_TARGET inline __m256 x86_load8(const MergeAttn::half_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
MERGEATTN_IMPL_X86_TARGET inline __m256 x86_load8(const MergeAttn::bfloat16_t* p) {
  const __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(u, 16));
}
MERGEATTN_IMPL_X86_TARGET inline void x86_store8(MergeAttn::half_t* p, const __m256 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
// float bits -> bfloat16 bits in the low 16 bits of each lane: round to nearest even, NaN quiet.
MERGEATTN_IMPL_X86_TARGET inline __m256i x86_bfloat16_round(const __m256 v) {
  const __m256i x = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, quiet, nan);  // every lane <= 0xffff
}
MERGEATTN_IMPL_X86_TARGET inline void x86_store8(MergeAttn::bfloat16_t* p, const __m256 v) {
  const __m256i r = x86_bfloat16_round(v);
  // Narrow to 16 bits: packus works per 128-bit half, the permute puts the two halves together.
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}

// Sixteen bfloat16 at a time without cross-lane moves: interleaving 16-bit words with zeros
// (unpacklo / unpackhi per 128-bit half) widens elements {0-3, 8-11} and {4-7, 12-15}, and
// packus of the two results restores the order.
MERGEATTN_IMPL_X86_TARGET inline void x86_load16(const MergeAttn::bfloat16_t* p, __m256& lo,
                                                 __m256& hi) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), v));
  hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), v));
}
MERGEATTN_IMPL_X86_TARGET inline void x86_store16(MergeAttn::bfloat16_t* p, const __m256 lo,
                                                  const __m256 hi) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                      _mm256_packus_epi32(x86_bfloat16_round(lo), x86_bfloat16_round(hi)));
}
MERGEATTN_IMPL_X86_TARGET inline void x86_load16(const MergeAttn::half_t* p, __m256& lo,
                                                 __m256& hi) {
  lo = x86_load8(p);
  hi = x86_load8(p + 8);
}
MERGEATTN_IMPL_X86_TARGET inline void x86_store16(MergeAttn::half_t* p, const __m256 lo,
                                                  const __m256 hi) {
  x86_store8(p, lo);
  x86_store8(p + 8, hi);
}

template <class T>
MERGEATTN_IMPL_X86_TARGET void weighted_row(X86Rows, T* out, const T* x0, const T* x1,
                                            const float w0, const float w1, const int n) {
  using traits = ValueTraits<T>;
  const __m256 a = _mm256_set1_ps(w0);
  const __m256 b = _mm256_set1_ps(w1);
  int d = 0;
  for (; d + 16 <= n; d += 16) {  // both inputs loaded before the store: out may be x0 or x1
    __m256 p0, p1, q0, q1;
    x86_load16(x0 + d, p0, p1);
    x86_load16(x1 + d, q0, q1);
    x86_store16(out + d, _mm256_add_ps(_mm256_mul_ps(a, p0), _mm256_mul_ps(b, q0)),
                _mm256_add_ps(_mm256_mul_ps(a, p1), _mm256_mul_ps(b, q1)));
  }
  for (; d + 8 <= n; d += 8) {
    const __m256 p = x86_load8(x0 + d);
    const __m256 q = x86_load8(x1 + d);
    x86_store8(out + d, _mm256_add_ps(_mm256_mul_ps(a, p), _mm256_mul_ps(b, q)));
  }
  for (; d < n; ++d) traits::store(out[d], w0 * traits::load(x0[d]) + w1 * traits::load(x1[d]));
}

template <class T>
MERGEATTN_IMPL_X86_TARGET void accumulate_row(X86Rows, float* acc, const float w, const T* x,
                                              const int n) {
  using traits = ValueTraits<T>;
  const __m256 a = _mm256_set1_ps(w);
  int d = 0;
  for (; d + 8 <= n; d += 8)
    _mm256_storeu_ps(acc + d,
                     _mm256_add_ps(_mm256_loadu_ps(acc + d), _mm256_mul_ps(a, x86_load8(x + d))));
  for (; d < n; ++d) acc[d] += w * traits::load(x[d]);
}

template <class T>
MERGEATTN_IMPL_X86_TARGET void store_row(X86Rows, T* out, const float* acc, const int n) {
  using traits = ValueTraits<T>;
  int d = 0;
  for (; d + 8 <= n; d += 8) x86_store8(out + d, _mm256_loadu_ps(acc + d));
  for (; d < n; ++d) traits::store(out[d], acc[d]);
}

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() (a self-initialised variable) as the
// unused merge operand, which -Wmaybe-uninitialized reports in every caller (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// AVX-512: sixteen values at a time as floats, thirty-two stored at a time; row tails (fewer than
// 32 or 16 values) go to the AVX2 code above. The products and sums go through the _round
// intrinsics with the current rounding mode (plain vmulps / vaddps): compilers fuse a*b + c of the
// plain intrinsics into an FMA where the target has one, and AVX-512 has.
MERGEATTN_IMPL_X86_512_TARGET inline __m512 x512_mul(const __m512 a, const __m512 b) {
  return _mm512_mul_round_ps(a, b, _MM_FROUND_CUR_DIRECTION);
}
MERGEATTN_IMPL_X86_512_TARGET inline __m512 x512_add(const __m512 a, const __m512 b) {
  return _mm512_add_round_ps(a, b, _MM_FROUND_CUR_DIRECTION);
}
MERGEATTN_IMPL_X86_512_TARGET inline __m512 x512_load16(const MergeAttn::bfloat16_t* p) {
  const __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(u, 16));
}
// VCVTNE2PS2BF16 rounds to nearest even and quiets NaNs as x86_bfloat16_round does, but reads a
// subnormal float as zero: a register with one goes through x86_bfloat16_round instead.
MERGEATTN_IMPL_X86_512_TARGET inline void x512_store32(MergeAttn::bfloat16_t* p, const __m512 lo,
                                                       const __m512 hi) {
  constexpr int subnormal = 0x20;  // VFPCLASSPS category: denormal
  if ((_mm512_fpclass_ps_mask(lo, subnormal) | _mm512_fpclass_ps_mask(hi, subnormal)) == 0) {
    _mm512_storeu_si512(reinterpret_cast<void*>(p), (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
  } else {
    x86_store8(p, _mm512_castps512_ps256(lo));
    x86_store8(p + 8, _mm512_extractf32x8_ps(lo, 1));
    x86_store8(p + 16, _mm512_castps512_ps256(hi));
    x86_store8(p + 24, _mm512_extractf32x8_ps(hi, 1));
  }
}

MERGEATTN_IMPL_X86_512_TARGET inline void weighted_row(X512Rows, MergeAttn::bfloat16_t* out,
                                                       const MergeAttn::bfloat16_t* x0,
                                                       const MergeAttn::bfloat16_t* x1,
                                                       const float w0, const float w1,
                                                       const int n) {
  const __m512 a = _mm512_set1_ps(w0);
  const __m512 b = _mm512_set1_ps(w1);
  int d = 0;
  for (; d + 32 <= n; d += 32) {  // both inputs loaded before the store: out may be x0 or x1
    const __m512 p0 = x512_load16(x0 + d), p1 = x512_load16(x0 + d + 16);
    const __m512 q0 = x512_load16(x1 + d), q1 = x512_load16(x1 + d + 16);
    x512_store32(out + d, x512_add(x512_mul(a, p0), x512_mul(b, q0)),
                 x512_add(x512_mul(a, p1), x512_mul(b, q1)));
  }
  if (d < n) weighted_row(X86Rows{}, out + d, x0 + d, x1 + d, w0, w1, n - d);
}

MERGEATTN_IMPL_X86_512_TARGET inline void accumulate_row(X512Rows, float* acc, const float w,
                                                         const MergeAttn::bfloat16_t* x,
                                                         const int n) {
  const __m512 a = _mm512_set1_ps(w);
  int d = 0;
  for (; d + 16 <= n; d += 16)
    _mm512_storeu_ps(acc + d, x512_add(_mm512_loadu_ps(acc + d), x512_mul(a, x512_load16(x + d))));
  if (d < n) accumulate_row(X86Rows{}, acc + d, w, x + d, n - d);
}

MERGEATTN_IMPL_X86_512_TARGET inline void store_row(X512Rows, MergeAttn::bfloat16_t* out,
                                                    const float* acc, const int n) {
  int d = 0;
  for (; d + 32 <= n; d += 32)
    x512_store32(out + d, _mm512_loadu_ps(acc + d), _mm512_loadu_ps(acc + d + 16));
  if (d < n) store_row(X86Rows{}, out + d, acc + d, n - d);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// The portable loops (the compiler vectorises them for its target).
template <class T, class C>
inline void weighted_row(PortableRows, T* out, const T* x0, const T* x1, const C w0, const C w1,
                         const int n) {
  using traits = ValueTraits<T>;
#if defined(_OPENMP)
#pragma omp simd
#endif
  for (int d = 0; d < n; ++d)
    traits::store(out[d], w0 * traits::load(x0[d]) + w1 * traits::load(x1[d]));
}
template <class T, class C>
inline void accumulate_row(PortableRows, C* acc, const C w, const T* x, const int n) {
  using traits = ValueTraits<T>;
#if defined(_OPENMP)
#pragma omp simd
#endif
  for (int d = 0; d < n; ++d) acc[d] += w * traits::load(x[d]);
}
template <class T, class C>
inline void store_row(PortableRows, T* out, const C* acc, const int n) {
  using traits = ValueTraits<T>;
#if defined(_OPENMP)
#pragma omp simd
#endif
  for (int d = 0; d < n; ++d) traits::store(out[d], acc[d]);
}

/// Calls rows(code) with the row code for values of type T that `isa` allows, the one place where
/// the codes are ranked: AVX-512 (bfloat16_t), AVX2 + F16C (16-bit types), the portable loops.
template <class T, class Rows>
inline void dispatch_row(const HostRowIsa isa, const Rows& rows) {
#if MERGEATTN_IMPL_X86_ROWS
  if constexpr (has_x512_rows_v<T>) {
    if (isa == HostRowIsa::x86_avx512) return rows(X512Rows{});
  }
  if constexpr (has_x86_rows_v<T>) {
    if (isa != HostRowIsa::portable) return rows(X86Rows{});
  }
#endif
  (void)isa;
  rows(PortableRows{});
}

/// out[d] = w0 x0[d] + w1 x1[d], d < n, in the compute type; out may be x0 or x1 (in place).
template <class T, class C>
inline void host_weighted_row(const HostRowIsa isa, T* out, const T* x0, const T* x1, const C w0,
                              const C w1, const int n) {
  dispatch_row<T>(isa, [&](const auto code) { weighted_row(code, out, x0, x1, w0, w1, n); });
}

/// acc[d] += w x[d], d < n.
template <class T, class C>
inline void host_accumulate_row(const HostRowIsa isa, C* acc, const C w, const T* x, const int n) {
  dispatch_row<T>(isa, [&](const auto code) { accumulate_row(code, acc, w, x, n); });
}

/// out[d] = acc[d] rounded to T, d < n.
template <class T, class C>
inline void host_store_row(const HostRowIsa isa, T* out, const C* acc, const int n) {
  dispatch_row<T>(isa, [&](const auto code) { store_row(code, out, acc, n); });
}

// ---------------------------------------------------------------------------------------------
// The 2-way weights' exponential and logarithm on host spaces, in float: the C library's calls
// (about 10 ns per pair with the call) cost more than moving a 16-bit row of 128 values. Branch-
// free, inlined, about 1 ulp: Cody-Waite reduction and the minimax polynomials of the classic
// Cephes single-precision exp and log (measured: relative error below 0.7 eps (exp) and 1.1 eps
// (log1p) over their whole domains, tests/TestHostRows.cpp).

/// e^x (base2: 2^x) for x <= 0; anything below the underflow threshold, -inf and NaN give 0 (the
/// callers use the value only for two finite LSEs).
KOKKOS_FORCEINLINE_FUNCTION float host_exp_nonpositive(float x, const bool base2) {
  if (!(x >= (base2 ? -150.0f : -104.0f))) x = base2 ? -150.0f : -104.0f;
  // k = nearest integer to x / ln 2 (to x in base 2): adding 1.5 * 2^23 rounds to an integer.
  const float shifter = 12582912.0f;
  const float k = ((base2 ? x : x * 1.44269504088896341f) + shifter) - shifter;
  // r = x - k ln 2, in [-ln2 / 2, ln2 / 2]: ln 2 in two parts, k * hi exact.
  const float r =
      base2 ? (x - k) * 0.693147180559945309f : (x - k * 0.693359375f) - k * -2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * z + r + 1.0f;
  // 2^k, k in [-150, 0], as two normal factors: a result in the subnormal range is rounded once.
  const int ki = static_cast<int>(k);
  const int k1 = ki / 2;
  const float s1 = bits_float(static_cast<std::uint32_t>(k1 + 127) << 23);
  const float s2 = bits_float(static_cast<std::uint32_t>(ki - k1 + 127) << 23);
  return er * s1 * s2;
}

/// log(1 + e) (base2: log2(1 + e)) for e in [0, 1].
KOKKOS_FORCEINLINE_FUNCTION float host_log1p_unit(const float e, const bool base2) {
  const float u = 1.0f + e;                     // [1, 2]
  const float c = (e - (u - 1.0f)) / u;         // what the rounding of 1 + e lost, relative to u
  const bool big = u > 1.41421356f;             // reduce to [sqrt(1/2), sqrt(2)]: u / 2 and k = 1
  const float f = (big ? u * 0.5f : u) - 1.0f;  // exact
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = f * z * p;
  if (big) y += -2.12194440e-4f;
  y += -0.5f * z;
  y = f + y + c;
  if (big) y += 0.693359375f;
  return base2 ? y * 1.44269504088896341f : y;
}

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_HOSTROWS_HPP
