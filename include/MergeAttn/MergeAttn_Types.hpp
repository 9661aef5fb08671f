// MergeAttn: 16-bit floating-point storage types that are 16 bits on every build.
//
// Kokkos' own half_t is a 4-byte float on host-only builds (KOKKOS_HALF_T_IS_FLOAT) and Kokkos 3.4
// has no bfloat16 at all. CPU users exchange real 16-bit data with GPUs and inference engines, so
// MergeAttn provides its own storage types: the IEEE-754 binary16 and bfloat16 bit patterns, with
// round-to-nearest-even conversions from float (hardware conversion instructions on NVIDIA GPUs,
// exact bit arithmetic elsewhere) and exact conversions to float. They are storage types: convert
// to float to compute.
#ifndef MERGEATTN_TYPES_HPP
#define MERGEATTN_TYPES_HPP

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace MergeAttn {
namespace Impl {

KOKKOS_FORCEINLINE_FUNCTION std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

KOKKOS_FORCEINLINE_FUNCTION float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// c ? a : b, written as masks so that compilers vectorise it (GCC 12 keeps ternaries as branches).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t select_bits(bool c, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return (a & m) | (b & ~m);
}

// float -> binary16, round to nearest even; NaN stays a (quiet) NaN, overflow gives infinity.
KOKKOS_FORCEINLINE_FUNCTION std::uint16_t float_to_half_bits(float f) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#else
  // Branch-free (all three cases computed, one selected) so that host loops vectorise.
  std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  // |f| >= 65536 (after rounding too large), infinity or NaN (kept quiet, with its top payload):
  const std::uint32_t special =
      select_bits(x > 0x7f800000u, 0x7e00u | ((x >> 13) & 0x3ffu), 0x7c00u);
  // |f| < 2^-14, binary16 subnormal or zero: adding 0.5f aligns the value so that float addition
  // rounds (to nearest even) at 2^-24, the subnormal spacing; a carry gives the smallest normal.
  const std::uint32_t subnormal = float_bits(bits_float(x) + 0.5f) - 0x3f000000u;
  // normal: rebias the exponent (-112 << 23) and round to nearest even; a carry past 65504 gives
  // 0x7c00, infinity, as it should.
  const std::uint32_t normal = (x + 0xc8000fffu + ((x >> 13) & 1u)) >> 13;
  const std::uint32_t h =
      select_bits(x >= 0x47800000u, special, select_bits(x < 0x38800000u, subnormal, normal));
  return static_cast<std::uint16_t>(sign | h);
#endif
}

// binary16 -> float, exact.
KOKKOS_FORCEINLINE_FUNCTION float half_bits_to_float(std::uint16_t h) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  // Branch-free (so that host loops vectorise), and exact without float subnormals (safe under
  // flush-to-zero): rebias the exponent; infinity and NaN get the all-ones exponent; subnormals
  // are renormalised as (2^-14 + m 2^-24) - 2^-14.
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = h & 0x7c00u;
  std::uint32_t o = (static_cast<std::uint32_t>(h & 0x7fffu) << 13) + 0x38000000u;
  const float subnormal = bits_float(o + 0x00800000u) - bits_float(0x38800000u);
  o = select_bits(exp == 0x7c00u, o + 0x38000000u, o);
  o = select_bits(exp == 0, float_bits(subnormal), o);
  return bits_float(o | sign);
#endif
}

// float -> bfloat16, round to nearest even; NaN stays a (quiet) NaN.
KOKKOS_FORCEINLINE_FUNCTION std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
  const std::uint32_t x = float_bits(f);
  const std::uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return static_cast<std::uint16_t>(
      select_bits((x & 0x7fffffffu) > 0x7f800000u, (x >> 16) | 0x0040u, rounded));
#endif
}

// bfloat16 -> float, exact.
KOKKOS_FORCEINLINE_FUNCTION float bfloat16_bits_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace Impl

/// IEEE-754 binary16 ("fp16") storage: 16 bits on every build, layout-compatible with CUDA's
/// __half, PyTorch's float16 and numpy's float16.
struct half_t {
  std::uint16_t bits;

  half_t() = default;
  KOKKOS_INLINE_FUNCTION explicit half_t(float f) : bits(Impl::float_to_half_bits(f)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return Impl::half_bits_to_float(bits); }
  KOKKOS_INLINE_FUNCTION static constexpr half_t from_bits(std::uint16_t b) {
    half_t h{};
    h.bits = b;
    return h;
  }
};

/// bfloat16 storage (the upper 16 bits of a float): 16 bits on every build, layout-compatible with
/// CUDA's __nv_bfloat16 and PyTorch's bfloat16.
struct bfloat16_t {
  std::uint16_t bits;

  bfloat16_t() = default;
  KOKKOS_INLINE_FUNCTION explicit bfloat16_t(float f) : bits(Impl::float_to_bfloat16_bits(f)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const {
    return Impl::bfloat16_bits_to_float(bits);
  }
  KOKKOS_INLINE_FUNCTION static constexpr bfloat16_t from_bits(std::uint16_t b) {
    bfloat16_t v{};
    v.bits = b;
    return v;
  }
};

static_assert(sizeof(half_t) == 2 && alignof(half_t) == 2, "MergeAttn::half_t must be 16 bits");
static_assert(sizeof(bfloat16_t) == 2 && alignof(bfloat16_t) == 2,
              "MergeAttn::bfloat16_t must be 16 bits");

}  // namespace MergeAttn

namespace std {

// numeric_limits for the storage types, so that tolerances and tests derive from arithmetic traits.
template <>
class numeric_limits<MergeAttn::half_t> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr int radix = 2;
  static constexpr MergeAttn::half_t min() noexcept { return MergeAttn::half_t::from_bits(0x0400); }
  static constexpr MergeAttn::half_t max() noexcept { return MergeAttn::half_t::from_bits(0x7bff); }
  static constexpr MergeAttn::half_t lowest() noexcept {
    return MergeAttn::half_t::from_bits(0xfbff);
  }
  static constexpr MergeAttn::half_t epsilon() noexcept {
    return MergeAttn::half_t::from_bits(0x1400);  // 2^-10
  }
  static constexpr MergeAttn::half_t infinity() noexcept {
    return MergeAttn::half_t::from_bits(0x7c00);
  }
  static constexpr MergeAttn::half_t quiet_NaN() noexcept {
    return MergeAttn::half_t::from_bits(0x7e00);
  }
  static constexpr MergeAttn::half_t denorm_min() noexcept {
    return MergeAttn::half_t::from_bits(0x0001);
  }
};

template <>
class numeric_limits<MergeAttn::bfloat16_t> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr int radix = 2;
  static constexpr MergeAttn::bfloat16_t min() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x0080);
  }
  static constexpr MergeAttn::bfloat16_t max() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x7f7f);
  }
  static constexpr MergeAttn::bfloat16_t lowest() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0xff7f);
  }
  static constexpr MergeAttn::bfloat16_t epsilon() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x3c00);  // 2^-7
  }
  static constexpr MergeAttn::bfloat16_t infinity() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x7f80);
  }
  static constexpr MergeAttn::bfloat16_t quiet_NaN() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x7fc0);
  }
  static constexpr MergeAttn::bfloat16_t denorm_min() noexcept {
    return MergeAttn::bfloat16_t::from_bits(0x0001);
  }
};

}  // namespace std

#endif  // MERGEATTN_TYPES_HPP
