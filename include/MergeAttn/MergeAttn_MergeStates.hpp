// MergeAttn::merge_attn_states: merge two partial attention states (outputs over disjoint key sets
// and their log-sum-exp values) into the attention state over the union of the key sets.
#ifndef MERGEATTN_MERGESTATES_HPP
#define MERGEATTN_MERGESTATES_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_Types.hpp>
#include <MergeAttn/impl/MergeAttn_Checks.hpp>
#include <MergeAttn/impl/MergeAttn_MergeKernel.hpp>
#include <MergeAttn/impl/MergeAttn_ValueTraits.hpp>
#include <cstdint>
#include <type_traits>

namespace MergeAttn {
namespace Impl {

template <class ExecSpace, class View>
constexpr bool is_accessible_from_v =
    Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;

template <class View>
constexpr int view_rank_v = static_cast<int>(View::rank);

template <class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
          class SuffixOutputView, class SuffixLseView, class OutputLseView>
void merge_attn_states_impl(const ExecutionSpace& exec, const OutputView& output,
                            const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                            const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse,
                            const OutputLseView& output_lse,
                            const LaunchShape* shape_override = nullptr) {
  constexpr bool has_output_lse = !std::is_same<OutputLseView, NoOutputLse>::value;
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "MergeAttn::merge_attn_states: 'exec' must be a Kokkos execution space instance");
  static_assert(Kokkos::is_view<OutputView>::value,
                "MergeAttn::merge_attn_states: 'output' must be a Kokkos::View");
  static_assert(Kokkos::is_view<PrefixOutputView>::value,
                "MergeAttn::merge_attn_states: 'prefix_output' must be a Kokkos::View");
  static_assert(Kokkos::is_view<PrefixLseView>::value,
                "MergeAttn::merge_attn_states: 'prefix_lse' must be a Kokkos::View");
  static_assert(Kokkos::is_view<SuffixOutputView>::value,
                "MergeAttn::merge_attn_states: 'suffix_output' must be a Kokkos::View");
  static_assert(Kokkos::is_view<SuffixLseView>::value,
                "MergeAttn::merge_attn_states: 'suffix_lse' must be a Kokkos::View");
  static_assert(view_rank_v<OutputView> == 3,
                "MergeAttn::merge_attn_states: 'output' must be a rank-3 View "
                "[num_tokens][num_heads][head_size]");
  static_assert(view_rank_v<PrefixOutputView> == 3,
                "MergeAttn::merge_attn_states: 'prefix_output' must be a rank-3 View "
                "[num_tokens][num_heads][head_size]");
  static_assert(view_rank_v<SuffixOutputView> == 3,
                "MergeAttn::merge_attn_states: 'suffix_output' must be a rank-3 View "
                "[num_tokens][num_heads][head_size]");
  static_assert(view_rank_v<PrefixLseView> == 2,
                "MergeAttn::merge_attn_states: 'prefix_lse' must be a rank-2 View "
                "[num_heads][num_tokens]");
  static_assert(view_rank_v<SuffixLseView> == 2,
                "MergeAttn::merge_attn_states: 'suffix_lse' must be a rank-2 View "
                "[num_heads][num_tokens]");
  static_assert(is_accessible_from_v<ExecutionSpace, OutputView>,
                "MergeAttn::merge_attn_states: 'output' is not accessible from the execution "
                "space 'exec' (its memory space)");
  static_assert(is_accessible_from_v<ExecutionSpace, PrefixOutputView>,
                "MergeAttn::merge_attn_states: 'prefix_output' is not accessible from the "
                "execution space 'exec' (its memory space)");
  static_assert(is_accessible_from_v<ExecutionSpace, PrefixLseView>,
                "MergeAttn::merge_attn_states: 'prefix_lse' is not accessible from the execution "
                "space 'exec' (its memory space)");
  static_assert(is_accessible_from_v<ExecutionSpace, SuffixOutputView>,
                "MergeAttn::merge_attn_states: 'suffix_output' is not accessible from the "
                "execution space 'exec' (its memory space)");
  static_assert(is_accessible_from_v<ExecutionSpace, SuffixLseView>,
                "MergeAttn::merge_attn_states: 'suffix_lse' is not accessible from the execution "
                "space 'exec' (its memory space)");
  using value_type = typename OutputView::value_type;
  static_assert(!std::is_const<value_type>::value,
                "MergeAttn::merge_attn_states: 'output' must be a View of non-const values");
  static_assert(is_supported_value_type_v<value_type>,
                "MergeAttn::merge_attn_states: 'output' value type must be float, double, "
                "MergeAttn::half_t or MergeAttn::bfloat16_t (or Kokkos' 16-bit half_t/bhalf_t)");
  static_assert(
      std::is_same<std::remove_const_t<typename PrefixOutputView::value_type>, value_type>::value,
      "MergeAttn::merge_attn_states: 'prefix_output' must have the value type of "
      "'output' (const allowed)");
  static_assert(
      std::is_same<std::remove_const_t<typename SuffixOutputView::value_type>, value_type>::value,
      "MergeAttn::merge_attn_states: 'suffix_output' must have the value type of "
      "'output' (const allowed)");
  static_assert(is_lse_value_type_v<typename PrefixLseView::value_type>,
                "MergeAttn::merge_attn_states: 'prefix_lse' value type must be float or double");
  static_assert(is_lse_value_type_v<typename SuffixLseView::value_type>,
                "MergeAttn::merge_attn_states: 'suffix_lse' value type must be float or double");

  ViewDesc d_out = describe_view("output", output);
  ViewDesc d_pre = describe_view("prefix_output", prefix_output);
  ViewDesc d_suf = describe_view("suffix_output", suffix_output);
  ViewDesc d_plse = describe_view("prefix_lse", prefix_lse);
  ViewDesc d_slse = describe_view("suffix_lse", suffix_lse);
  if constexpr (has_output_lse) {
    static_assert(Kokkos::is_view<OutputLseView>::value,
                  "MergeAttn::merge_attn_states: 'output_lse' must be a Kokkos::View");
    static_assert(view_rank_v<OutputLseView> == 2,
                  "MergeAttn::merge_attn_states: 'output_lse' must be a rank-2 View "
                  "[num_heads][num_tokens]");
    static_assert(is_accessible_from_v<ExecutionSpace, OutputLseView>,
                  "MergeAttn::merge_attn_states: 'output_lse' is not accessible from the "
                  "execution space 'exec' (its memory space)");
    static_assert(!std::is_const<typename OutputLseView::value_type>::value &&
                      is_lse_value_type_v<typename OutputLseView::value_type>,
                  "MergeAttn::merge_attn_states: 'output_lse' value type must be non-const float "
                  "or double");
    const ViewDesc d_olse = describe_view("output_lse", output_lse);
    check_merge_arguments("MergeAttn::merge_attn_states", d_out, d_pre, d_plse, d_suf, d_slse,
                          &d_olse);
  } else {
    check_merge_arguments("MergeAttn::merge_attn_states", d_out, d_pre, d_plse, d_suf, d_slse,
                          nullptr);
  }

  if (output.extent(0) == 0 || output.extent(1) == 0) return;  // nothing to merge

  if (can_use_packs(pack_bytes, d_out, d_pre, d_suf)) {
    launch_merge<true>(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                       output_lse, shape_override);
  } else {
    launch_merge<false>(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                        output_lse, shape_override);
  }
}

}  // namespace Impl

/// Merges two partial attention states over disjoint key sets into the state over their union.
///
/// Per token t and head h, with p = prefix_lse(h, t), s = suffix_lse(h, t) (an LSE of +inf reads as
/// -inf, "empty"), m = max(p, s):
///   output(t, h, :)  = wp * prefix_output(t, h, :) + ws * suffix_output(t, h, :),
///   wp = e^(p-m) / (e^(p-m) + e^(s-m)),  ws = e^(s-m) / (e^(p-m) + e^(s-m)),
///   output_lse(h, t) = log(e^(p-m) + e^(s-m)) + m.
/// One side empty: the other side is copied bit for bit (the empty side is not read) and its LSE
/// passed through. Both empty: output 0, output_lse -inf. A NaN LSE: NaN output and LSE for that
/// (t, h) only. Computes in float (double for double outputs).
///
/// - exec: the execution space instance the work is ordered on; nothing is fenced.
/// - output, prefix_output, suffix_output: rank-3 Views [num_tokens][num_heads][head_size] of
///   float, double, MergeAttn::half_t or MergeAttn::bfloat16_t (inputs may be const), any layout.
/// - prefix_lse, suffix_lse, output_lse: rank-2 Views [num_heads][num_tokens] of float or double.
/// - In place: output may be the very same View as prefix_output or suffix_output, output_lse as
///   prefix_lse or suffix_lse; any other overlap with an output is rejected.
/// Throws std::invalid_argument (naming the argument and extents) before any launch on bad
/// extents or overlap.
template <class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
          class SuffixOutputView, class SuffixLseView, class OutputLseView,
          std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                       const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse,
                       const OutputLseView& output_lse) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               output_lse);
}

/// As above, without output_lse.
template <class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
          class SuffixOutputView, class SuffixLseView,
          std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                       const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               Impl::NoOutputLse{});
}

/// As above, on a default instance of OutputView::execution_space.
template <class OutputView, class PrefixOutputView, class PrefixLseView, class SuffixOutputView,
          class SuffixLseView, class OutputLseView,
          std::enable_if_t<Kokkos::is_view<OutputView>::value, int> = 0>
void merge_attn_states(const OutputView& output, const PrefixOutputView& prefix_output,
                       const PrefixLseView& prefix_lse, const SuffixOutputView& suffix_output,
                       const SuffixLseView& suffix_lse, const OutputLseView& output_lse) {
  Impl::merge_attn_states_impl(typename OutputView::execution_space(), output, prefix_output,
                               prefix_lse, suffix_output, suffix_lse, output_lse);
}

/// As above, on a default instance of OutputView::execution_space, without output_lse.
template <class OutputView, class PrefixOutputView, class PrefixLseView, class SuffixOutputView,
          class SuffixLseView, std::enable_if_t<Kokkos::is_view<OutputView>::value, int> = 0>
void merge_attn_states(const OutputView& output, const PrefixOutputView& prefix_output,
                       const PrefixLseView& prefix_lse, const SuffixOutputView& suffix_output,
                       const SuffixLseView& suffix_lse) {
  Impl::merge_attn_states_impl(typename OutputView::execution_space(), output, prefix_output,
                               prefix_lse, suffix_output, suffix_lse, Impl::NoOutputLse{});
}

}  // namespace MergeAttn

#endif  // MERGEATTN_MERGESTATES_HPP
