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
//   many states:     as the output element and LSE above, with the compute type's term grown from 8
//                    to 8 + n eps for n non-empty states (n - 1 additions in the sum over states,
//                    and in the sum of exponentials behind the LSE).
//   LSE conversion:  base-2 LSEs made from natural ones (l2 = l * log2(e), rounded to float, |l2|
//                    below 16) move every weight by up to 2 * 16 * eps(float) relatively: outputs
//                    (|x| <= 2) within twice the output tolerance plus 64 * eps(float), LSEs within
//                    twice the LSE tolerance plus 32 * eps(float).
// ref is the double-precision host reference computed from the very same (rounded) inputs.
#ifndef MERGEATTN_TEST_TOLERANCE_HPP
#define MERGEATTN_TEST_TOLERANCE_HPP

#include <MergeAttn.hpp>
#include <cmath>
#include <cstdint>
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
double many_output_tolerance(double ref, double magnitude, std::int64_t live_states) {
  using compute_type = typename MergeAttn::Impl::ValueTraits<T>::compute_type;
  return 2.0 * rounding_error_bound<T>(ref) +
         (8.0 + static_cast<double>(live_states)) * epsilon_of<compute_type>() * magnitude +
         denorm_min_of<T>();
}

template <class L>
double many_lse_tolerance(double ref, std::int64_t live_states) {
  return 2.0 * rounding_error_bound<L>(ref) +
         (8.0 + static_cast<double>(live_states)) * epsilon_of<L>();
}

/// For an output element (is_lse false, magnitude <= 2) or a base-2 LSE (is_lse true).
template <class T>
double lse_conversion_tolerance(double want, bool is_lse) {
  if (is_lse) return 2.0 * lse_tolerance<float>(want) + 32.0 * epsilon_of<float>();
  return 2.0 * output_tolerance<T>(want, 2.0) + 64.0 * epsilon_of<float>();
}

template <class T>
double merge_law_tolerance(double magnitude, double max_abs_v, int keys) {
  return 4.0 * epsilon_of<T>() * magnitude +
         8.0 * epsilon_of<float>() * max_abs_v * std::sqrt(static_cast<double>(keys)) +
         denorm_min_of<T>();
}

}  // namespace MergeAttnTest

#endif  // MERGEATTN_TEST_TOLERANCE_HPP
