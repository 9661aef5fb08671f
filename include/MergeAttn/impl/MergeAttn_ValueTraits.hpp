// MergeAttn::Impl value traits: which value types the merge accepts, the type it computes in, and
// the conversions between them. Also the few math functions the kernel needs, mapped onto the
// Kokkos API of the version in use (Kokkos 3.4 keeps them in Kokkos::Experimental, 3.7+ and 4.x in
// Kokkos).
#ifndef MERGEATTN_IMPL_VALUETRAITS_HPP
#define MERGEATTN_IMPL_VALUETRAITS_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_Types.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace MergeAttn {
namespace Impl {

template <class T>
struct ValueTraits {
  static constexpr bool is_supported = false;
};

template <>
struct ValueTraits<float> {
  static constexpr bool is_supported = true;
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float to_compute(float v) { return v; }
  KOKKOS_INLINE_FUNCTION static float from_compute(float v) { return v; }
  KOKKOS_FORCEINLINE_FUNCTION static float load(const float& v) { return v; }
  KOKKOS_FORCEINLINE_FUNCTION static void store(float& dst, float v) { dst = v; }
};

template <>
struct ValueTraits<double> {
  static constexpr bool is_supported = true;
  using compute_type = double;
  KOKKOS_INLINE_FUNCTION static double to_compute(double v) { return v; }
  KOKKOS_INLINE_FUNCTION static double from_compute(double v) { return v; }
  KOKKOS_FORCEINLINE_FUNCTION static double load(const double& v) { return v; }
  KOKKOS_FORCEINLINE_FUNCTION static void store(double& dst, double v) { dst = v; }
};

template <>
struct ValueTraits<MergeAttn::half_t> {
  static constexpr bool is_supported = true;
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float to_compute(MergeAttn::half_t v) {
    return static_cast<float>(v);
  }
  KOKKOS_INLINE_FUNCTION static MergeAttn::half_t from_compute(float v) {
    return MergeAttn::half_t(v);
  }
  // load/store touch the bits directly: no temporary object, so host loops vectorise.
  KOKKOS_FORCEINLINE_FUNCTION static float load(const MergeAttn::half_t& v) {
    return half_bits_to_float(v.bits);
  }
  KOKKOS_FORCEINLINE_FUNCTION static void store(MergeAttn::half_t& dst, float v) {
    dst.bits = float_to_half_bits(v);
  }
};

template <>
struct ValueTraits<MergeAttn::bfloat16_t> {
  static constexpr bool is_supported = true;
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float to_compute(MergeAttn::bfloat16_t v) {
    return static_cast<float>(v);
  }
  KOKKOS_INLINE_FUNCTION static MergeAttn::bfloat16_t from_compute(float v) {
    return MergeAttn::bfloat16_t(v);
  }
  KOKKOS_FORCEINLINE_FUNCTION static float load(const MergeAttn::bfloat16_t& v) {
    return bfloat16_bits_to_float(v.bits);
  }
  KOKKOS_FORCEINLINE_FUNCTION static void store(MergeAttn::bfloat16_t& dst, float v) {
    dst.bits = float_to_bfloat16_bits(v);
  }
};

// Kokkos' own 16-bit types, accepted where they really are 16-bit class types (not the float they
// are on host-only builds, which the float traits above already cover).
template <class T>
struct KokkosHalfTraits {
  static constexpr bool is_supported = true;
  using compute_type = float;
  KOKKOS_INLINE_FUNCTION static float to_compute(T v) { return static_cast<float>(v); }
  KOKKOS_INLINE_FUNCTION static T from_compute(float v) { return static_cast<T>(v); }
  KOKKOS_FORCEINLINE_FUNCTION static float load(const T& v) { return static_cast<float>(v); }
  KOKKOS_FORCEINLINE_FUNCTION static void store(T& dst, float v) { dst = static_cast<T>(v); }
};

template <class T>
using is_kokkos_16bit_class =
    std::integral_constant<bool, std::is_class<T>::value && sizeof(T) == 2>;

template <>
struct ValueTraits<std::conditional_t<is_kokkos_16bit_class<Kokkos::Experimental::half_t>::value,
                                      Kokkos::Experimental::half_t, struct NoKokkosHalf>>
    : KokkosHalfTraits<Kokkos::Experimental::half_t> {};

#if KOKKOS_VERSION >= 40000
template <>
struct ValueTraits<std::conditional_t<is_kokkos_16bit_class<Kokkos::Experimental::bhalf_t>::value,
                                      Kokkos::Experimental::bhalf_t, struct NoKokkosBhalf>>
    : KokkosHalfTraits<Kokkos::Experimental::bhalf_t> {};
#endif

template <class T>
constexpr bool is_supported_value_type_v = ValueTraits<std::remove_cv_t<T>>::is_supported;

template <class T>
constexpr bool is_lse_value_type_v = std::is_same<std::remove_cv_t<T>, float>::value ||
                                     std::is_same<std::remove_cv_t<T>, double>::value;

// ---------------------------------------------------------------------------------------------
// Math, portable across Kokkos 3.4 ... 4.x.
#if KOKKOS_VERSION >= 30700
#define MERGEATTN_IMPL_KOKKOS_MATH Kokkos
#else
#define MERGEATTN_IMPL_KOKKOS_MATH Kokkos::Experimental
#endif

template <class T>
KOKKOS_INLINE_FUNCTION T exp(T x) {
  return MERGEATTN_IMPL_KOKKOS_MATH::exp(x);
}

template <class T>
KOKKOS_INLINE_FUNCTION T exp2(T x) {
  return MERGEATTN_IMPL_KOKKOS_MATH::exp2(x);
}

template <class T>
KOKKOS_INLINE_FUNCTION T log(T x) {
  return MERGEATTN_IMPL_KOKKOS_MATH::log(x);
}

template <class T>
KOKKOS_INLINE_FUNCTION T log1p(T x) {
  return MERGEATTN_IMPL_KOKKOS_MATH::log1p(x);
}

template <class T>
KOKKOS_INLINE_FUNCTION bool isnan(T x) {
  return x != x;
}

template <class T>
KOKKOS_INLINE_FUNCTION T infinity() {
  return static_cast<T>(HUGE_VAL);
}

template <class T>
KOKKOS_INLINE_FUNCTION T quiet_nan() {
  // 0x7fc00000 / 0x7ff8000000000000: the canonical quiet NaN, built from its bits because no NaN
  // constant is usable in device code on every Kokkos version.
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t bits = 0x7fc00000u;
    T v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  } else {
    const std::uint64_t bits = 0x7ff8000000000000ull;
    T v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
}

#undef MERGEATTN_IMPL_KOKKOS_MATH

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_VALUETRAITS_HPP
