// The one place where MergeAttn's test tolerances are defined.
//
// Every tolerance derives from std::numeric_limits of the value type (MergeAttn specialises it for
// half_t and bfloat16_t) and of the type the merge computes in:
//   output element:  |got - ref| <= 2 * round_err<T>(ref) + floor,
//                    round_err<T>(ref) = the largest error of rounding ref to T (half an ulp of T
//                    at |ref|, or half the smallest subnormal), and
//                    floor = 8 * eps(compute) * (|wp * x| + |ws * y|) + denorm_min(T),
//                    the compute type's error on the two weighted terms (a few roundings in exp,
//                    division and the fused multiply-add) plus one subnormal step.
//   output LSE:      |got - ref| <= 2 * round_err<L>(ref) + 8 * eps(L), L the LSE type.
//   merge law:       merging two real partial attention states against the unsplit attention:
//                    4 * eps(T) * (|wp * x| + |ws * y|) + 8 * eps(float) * max|V| * sqrt(keys)
//                    + denorm_min(T): each partial output and the unsplit one are rounded to T,
//                    and the float attention sums over `keys` products with independent roundings.
// ref is the double-precision host reference computed from the very same (rounded) inputs.
#ifndef MERGEATTN_TEST_TOLERANCE_HPP
#define MERGEATTN_TEST_TOLERANCE_HPP

#include <MergeAttn.hpp>
#include <cmath>
#include <limits>

namespace MergeAttnTest {

template <class T>
double epsilon_of() {
  return static_cast<double>(
      MergeAttn::Impl::ValueTraits<T>::to_compute(std::numeric_limits<T>::epsilon()));
}

template <class T>
double denorm_min_of() {
  return static_cast<double>(
      MergeAttn::Impl::ValueTraits<T>::to_compute(std::numeric_limits<T>::denorm_min()));
}

template <class T>
double min_normal_of() {
  return static_cast<double>(
      MergeAttn::Impl::ValueTraits<T>::to_compute(std::numeric_limits<T>::min()));
}

/// The largest error of rounding `ref` to T (to nearest).
template <class T>
double rounding_error_bound(double ref) {
  const double a = std::fabs(ref);
  if (!(a >= min_normal_of<T>())) return 0.5 * denorm_min_of<T>();
  const double ulp = epsilon_of<T>() * std::exp2(std::floor(std::log2(a)));
  return 0.5 * ulp;
}

template <class T>
double output_tolerance(double ref, double magnitude) {
  using compute_type = typename MergeAttn::Impl::ValueTraits<T>::compute_type;
  return 2.0 * rounding_error_bound<T>(ref) + 8.0 * epsilon_of<compute_type>() * magnitude +
         denorm_min_of<T>();
}

template <class L>
double lse_tolerance(double ref) {
  return 2.0 * rounding_error_bound<L>(ref) + 8.0 * epsilon_of<L>();
}

template <class T>
double merge_law_tolerance(double magnitude, double max_abs_v, int keys) {
  return 4.0 * epsilon_of<T>() * magnitude +
         8.0 * epsilon_of<float>() * max_abs_v * std::sqrt(static_cast<double>(keys)) +
         denorm_min_of<T>();
}

}  // namespace MergeAttnTest

#endif  // MERGEATTN_TEST_TOLERANCE_HPP
