// MergeAttn::merge_attn_states and its variants: merge partial attention states (outputs over
// disjoint key sets and their log-sum-exp values) into the attention state over the union of the
// key sets. Two states (optionally masked, in place), N stacked states, or a variable number of
// packed states per token.
#ifndef MERGEATTN_MERGESTATES_HPP
#define MERGEATTN_MERGESTATES_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_Options.hpp>
#include <MergeAttn/MergeAttn_Types.hpp>
#include <MergeAttn/impl/MergeAttn_Checks.hpp>
#include <MergeAttn/impl/MergeAttn_MergeKernel.hpp>
#include <MergeAttn/impl/MergeAttn_ValueTraits.hpp>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace MergeAttn {
namespace Impl {

template <class ExecSpace, class View>
constexpr bool is_accessible_from_v =
    Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;

template <class View>
constexpr int view_rank_v = static_cast<int>(View::rank);

template <class T>
constexpr bool is_view_v = Kokkos::is_view<T>::value;

// The compile-time contract of one View argument, each assert naming the function and argument.
#define MERGEATTN_IMPL_ASSERT_VIEW(FN, VIEW, NAME, RANK, SHAPE)                       \
  static_assert(is_view_v<VIEW>, FN ": '" NAME "' must be a Kokkos::View");           \
  static_assert(view_rank_v<VIEW> == RANK,                                            \
                FN ": '" NAME "' must be a rank-" #RANK " View " SHAPE);              \
  static_assert(is_accessible_from_v<ExecutionSpace, VIEW>,                           \
                FN ": '" NAME                                                         \
                   "' is not accessible from the execution space 'exec' (its memory " \
                   "space)")

#define MERGEATTN_IMPL_ASSERT_OUTPUT(FN, VIEW, RANK_SHAPE_RANK, SHAPE)               \
  MERGEATTN_IMPL_ASSERT_VIEW(FN, VIEW, "output", RANK_SHAPE_RANK, SHAPE);            \
  static_assert(!std::is_const<typename VIEW::value_type>::value,                    \
                FN ": 'output' must be a View of non-const values");                 \
  static_assert(is_supported_value_type_v<typename VIEW::value_type>, FN             \
                ": 'output' value type must be float, double, MergeAttn::half_t or " \
                "MergeAttn::bfloat16_t (or Kokkos' 16-bit half_t/bhalf_t)")

#define MERGEATTN_IMPL_ASSERT_SAME_VALUE(FN, VIEW, NAME, OUT)                \
  static_assert(std::is_same<std::remove_const_t<typename VIEW::value_type>, \
                             typename OUT::value_type>::value,               \
                FN ": '" NAME "' must have the value type of 'output' (const allowed)")

#define MERGEATTN_IMPL_ASSERT_LSE(FN, VIEW, NAME)               \
  static_assert(is_lse_value_type_v<typename VIEW::value_type>, \
                FN ": '" NAME "' value type must be float or double")

#define MERGEATTN_IMPL_ASSERT_OUTPUT_LSE(FN, VIEW)                                    \
  if constexpr (!std::is_same<VIEW, NoOutputLse>::value) {                            \
    MERGEATTN_IMPL_ASSERT_VIEW(FN, VIEW, "output_lse", 2, "[num_heads][num_tokens]"); \
    static_assert(!std::is_const<typename VIEW::value_type>::value &&                 \
                      is_lse_value_type_v<typename VIEW::value_type>,                 \
                  FN ": 'output_lse' value type must be non-const float or double");  \
  }

inline LseConvention convention_of(const MergeOptions& options) {
  return {options.lse_layout == LseLayout::tokens_heads, options.lse_base == LseBase::base2};
}

template <class OutputLseView>
const ViewDesc* describe_output_lse(const OutputLseView& output_lse, ViewDesc& storage) {
  if constexpr (std::is_same<OutputLseView, NoOutputLse>::value) {
    (void)output_lse;
    (void)storage;
    return nullptr;
  } else {
    storage = describe_view("output_lse", output_lse);
    return &storage;
  }
}

// The fast path (16-byte packs) when every row involved allows it; one launch either way.
template <class ExecutionSpace, class OutputView, class OutputLseView, class States>
void launch(const ExecutionSpace& exec, const OutputView& output, const OutputLseView& output_lse,
            const States& states, const LseConvention& conv, const bool packs,
            const LaunchShape* shape_override) {
  if (output.extent(0) == 0 || output.extent(1) == 0) return;  // nothing to merge
  if (packs)
    launch_merge<true>(exec, output, output_lse, states, conv, shape_override);
  else
    launch_merge<false>(exec, output, output_lse, states, conv, shape_override);
}

/// The 2-way merge (masked when MaskView is a View); `shape_override` forces a launch shape
/// (tests, tuning).
template <class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
          class SuffixOutputView, class SuffixLseView, class OutputLseView, class MaskView = NoMask>
void merge_attn_states_impl(const ExecutionSpace& exec, const OutputView& output,
                            const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                            const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse,
                            const OutputLseView& output_lse, const MergeOptions& options = {},
                            const LaunchShape* shape_override = nullptr,
                            const MaskView& mask = MaskView{}) {
#define MERGEATTN_IMPL_FN "MergeAttn::merge_attn_states"
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                MERGEATTN_IMPL_FN ": 'exec' must be a Kokkos execution space instance");
  MERGEATTN_IMPL_ASSERT_OUTPUT(MERGEATTN_IMPL_FN, OutputView, 3,
                               "[num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, PrefixOutputView, "prefix_output", 3,
                             "[num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, SuffixOutputView, "suffix_output", 3,
                             "[num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, PrefixLseView, "prefix_lse", 2,
                             "[num_heads][num_tokens]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, SuffixLseView, "suffix_lse", 2,
                             "[num_heads][num_tokens]");
  MERGEATTN_IMPL_ASSERT_SAME_VALUE(MERGEATTN_IMPL_FN, PrefixOutputView, "prefix_output",
                                   OutputView);
  MERGEATTN_IMPL_ASSERT_SAME_VALUE(MERGEATTN_IMPL_FN, SuffixOutputView, "suffix_output",
                                   OutputView);
  MERGEATTN_IMPL_ASSERT_LSE(MERGEATTN_IMPL_FN, PrefixLseView, "prefix_lse");
  MERGEATTN_IMPL_ASSERT_LSE(MERGEATTN_IMPL_FN, SuffixLseView, "suffix_lse");
  MERGEATTN_IMPL_ASSERT_OUTPUT_LSE(MERGEATTN_IMPL_FN, OutputLseView)
#undef MERGEATTN_IMPL_FN

  constexpr bool masked = !std::is_same<MaskView, NoMask>::value;
  if constexpr (masked) {
    static_assert(is_view_v<MaskView>,
                  "MergeAttn::merge_attn_states_masked: 'mask' must be a Kokkos::View");
    static_assert(
        view_rank_v<MaskView> == 1 &&
            std::is_same<std::remove_const_t<typename MaskView::value_type>, std::uint8_t>::value,
        "MergeAttn::merge_attn_states_masked: 'mask' must be a rank-1 View of uint8_t "
        "[num_tokens]");
    static_assert(is_accessible_from_v<ExecutionSpace, MaskView>,
                  "MergeAttn::merge_attn_states_masked: 'mask' is not accessible from the "
                  "execution space 'exec' (its memory space)");
  }
  const char* fn = masked ? "MergeAttn::merge_attn_states_masked" : "MergeAttn::merge_attn_states";
  const ViewDesc d_out = describe_view("output", output);
  const ViewDesc d_pre = describe_view("prefix_output", prefix_output);
  const ViewDesc d_suf = describe_view("suffix_output", suffix_output);
  ViewDesc d_olse_storage;
  check_merge_arguments(fn, d_out, d_pre, describe_view("prefix_lse", prefix_lse), d_suf,
                        describe_view("suffix_lse", suffix_lse),
                        describe_output_lse(output_lse, d_olse_storage),
                        options.lse_layout == LseLayout::tokens_heads);
  if constexpr (masked)
    check_masked_arguments(fn, describe_view("mask", mask), d_out, d_pre, d_suf);

  using States =
      TwoStates<PrefixOutputView, PrefixLseView, SuffixOutputView, SuffixLseView, MaskView>;
  const States states{prefix_output, prefix_lse, suffix_output, suffix_lse, mask};
  launch(exec, output, output_lse, states, convention_of(options),
         can_use_packs(pack_bytes, d_out, d_pre, d_suf), shape_override);
}

/// The N-way merge.
template <class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
          class OutputLseView>
void merge_attn_states_nway_impl(const ExecutionSpace& exec, const OutputView& output,
                                 const StatesOutputView& states_output,
                                 const StatesLseView& states_lse, const OutputLseView& output_lse,
                                 const MergeOptions& options,
                                 const LaunchShape* shape_override = nullptr) {
#define MERGEATTN_IMPL_FN "MergeAttn::merge_attn_states (N states)"
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                MERGEATTN_IMPL_FN ": 'exec' must be a Kokkos execution space instance");
  MERGEATTN_IMPL_ASSERT_OUTPUT(MERGEATTN_IMPL_FN, OutputView, 3,
                               "[num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, StatesOutputView, "states_output", 4,
                             "[num_states][num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, StatesLseView, "states_lse", 3,
                             "[num_states][num_heads][num_tokens]");
  MERGEATTN_IMPL_ASSERT_SAME_VALUE(MERGEATTN_IMPL_FN, StatesOutputView, "states_output",
                                   OutputView);
  MERGEATTN_IMPL_ASSERT_LSE(MERGEATTN_IMPL_FN, StatesLseView, "states_lse");
  MERGEATTN_IMPL_ASSERT_OUTPUT_LSE(MERGEATTN_IMPL_FN, OutputLseView)
#undef MERGEATTN_IMPL_FN

  const char* fn = "MergeAttn::merge_attn_states";
  const ViewDesc d_out = describe_view("output", output);
  const ViewDesc d_states = describe_view("states_output", states_output);
  ViewDesc d_olse_storage;
  check_nway_arguments(fn, d_out, d_states, describe_view("states_lse", states_lse),
                       describe_output_lse(output_lse, d_olse_storage),
                       options.lse_layout == LseLayout::tokens_heads);
  const ViewDesc* pack_views[] = {&d_out, &d_states};
  const bool packs = can_use_packs(pack_bytes, pack_views, 2);
  if (states_output.extent(0) == 2) {
    // Two states: the 2-way kernel (its tuned fixed-count path; the same bits, see above).
    const auto all = Kokkos::ALL;
    const auto x0 = Kokkos::subview(states_output, 0, all, all, all);
    const auto x1 = Kokkos::subview(states_output, 1, all, all, all);
    const auto l0 = Kokkos::subview(states_lse, 0, all, all);
    const auto l1 = Kokkos::subview(states_lse, 1, all, all);
    using States = TwoStates<decltype(x0), decltype(l0), decltype(x1), decltype(l1)>;
    launch(exec, output, output_lse, States{x0, l0, x1, l1, NoMask{}}, convention_of(options),
           packs, shape_override);
    return;
  }
  using States = StackedStates<StatesOutputView, StatesLseView>;
  launch(exec, output, output_lse, States{states_output, states_lse}, convention_of(options), packs,
         shape_override);
}

/// The variable-length merge.
template <class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
          class IndptrView, class OutputLseView>
void merge_attn_states_varlen_impl(const ExecutionSpace& exec, const OutputView& output,
                                   const StatesOutputView& states_output,
                                   const StatesLseView& states_lse, const IndptrView& indptr,
                                   const OutputLseView& output_lse, const MergeOptions& options,
                                   const LaunchShape* shape_override = nullptr) {
#define MERGEATTN_IMPL_FN "MergeAttn::merge_attn_states_varlen"
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                MERGEATTN_IMPL_FN ": 'exec' must be a Kokkos execution space instance");
  MERGEATTN_IMPL_ASSERT_OUTPUT(MERGEATTN_IMPL_FN, OutputView, 3,
                               "[num_tokens][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, StatesOutputView, "states_output", 3,
                             "[total_states][num_heads][head_size]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, StatesLseView, "states_lse", 2,
                             "[num_heads][total_states]");
  MERGEATTN_IMPL_ASSERT_VIEW(MERGEATTN_IMPL_FN, IndptrView, "indptr", 1, "[num_tokens + 1]");
  static_assert(std::is_integral<typename IndptrView::value_type>::value,
                MERGEATTN_IMPL_FN ": 'indptr' must be a View of an integer type");
  MERGEATTN_IMPL_ASSERT_SAME_VALUE(MERGEATTN_IMPL_FN, StatesOutputView, "states_output",
                                   OutputView);
  MERGEATTN_IMPL_ASSERT_LSE(MERGEATTN_IMPL_FN, StatesLseView, "states_lse");
  MERGEATTN_IMPL_ASSERT_OUTPUT_LSE(MERGEATTN_IMPL_FN, OutputLseView)

  const ViewDesc d_out = describe_view("output", output);
  const ViewDesc d_states = describe_view("states_output", states_output);
  ViewDesc d_olse_storage;
  check_varlen_arguments(MERGEATTN_IMPL_FN, d_out, d_states,
                         describe_view("states_lse", states_lse), describe_view("indptr", indptr),
                         describe_output_lse(output_lse, d_olse_storage),
                         options.lse_layout == LseLayout::tokens_heads);
  if (options.check_indptr) {
    // The offsets' values: a host copy (this is the one fence of the API; see MergeOptions).
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indptr);
    std::vector<std::int64_t> values(host.extent(0));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int64_t>(host(i));
    check_indptr_values(MERGEATTN_IMPL_FN, values.data(), static_cast<std::int64_t>(values.size()),
                        static_cast<std::int64_t>(states_output.extent(0)));
  }
#undef MERGEATTN_IMPL_FN
  using States = VarlenStates<StatesOutputView, StatesLseView, IndptrView>;
  const States states{states_output, states_lse, indptr};
  const ViewDesc* pack_views[] = {&d_out, &d_states};
  launch(exec, output, output_lse, states, convention_of(options),
         can_use_packs(pack_bytes, pack_views, 2), shape_override);
}

#undef MERGEATTN_IMPL_ASSERT_VIEW
#undef MERGEATTN_IMPL_ASSERT_OUTPUT
#undef MERGEATTN_IMPL_ASSERT_SAME_VALUE
#undef MERGEATTN_IMPL_ASSERT_LSE
#undef MERGEATTN_IMPL_ASSERT_OUTPUT_LSE

template <class T>
constexpr bool is_exec_v = Kokkos::is_execution_space<T>::value;

}  // namespace Impl

// -------------------------------------------------------------------------------------------------
// Two states.

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
/// - prefix_lse, suffix_lse, output_lse: rank-2 Views [num_heads][num_tokens] of float or double
///   ([num_tokens][num_heads] with options.lse_layout = LseLayout::tokens_heads; base 2 with
///   options.lse_base = LseBase::base2).
/// - In place: output may be the very same View as prefix_output or suffix_output, output_lse as
///   prefix_lse or suffix_lse; any other overlap with an output is rejected.
/// Throws std::invalid_argument (naming the argument and extents) before any launch on bad
/// extents or overlap.
template <
    class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
    class SuffixOutputView, class SuffixLseView, class OutputLseView,
    std::enable_if_t<Impl::is_exec_v<ExecutionSpace> && Impl::is_view_v<OutputLseView>, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                       const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse,
                       const OutputLseView& output_lse, const MergeOptions& options = {}) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               output_lse, options);
}

/// As above, without output_lse.
template <
    class ExecutionSpace, class OutputView, class PrefixOutputView, class PrefixLseView,
    class SuffixOutputView, class SuffixLseView,
    std::enable_if_t<Impl::is_exec_v<ExecutionSpace> && Impl::is_view_v<SuffixLseView>, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const PrefixOutputView& prefix_output, const PrefixLseView& prefix_lse,
                       const SuffixOutputView& suffix_output, const SuffixLseView& suffix_lse,
                       const MergeOptions& options = {}) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               Impl::NoOutputLse{}, options);
}

/// As above, on a default instance of OutputView::execution_space.
template <class OutputView, class PrefixOutputView, class PrefixLseView, class SuffixOutputView,
          class SuffixLseView, class OutputLseView,
          std::enable_if_t<Impl::is_view_v<OutputView>, int> = 0>
void merge_attn_states(const OutputView& output, const PrefixOutputView& prefix_output,
                       const PrefixLseView& prefix_lse, const SuffixOutputView& suffix_output,
                       const SuffixLseView& suffix_lse, const OutputLseView& output_lse) {
  Impl::merge_attn_states_impl(typename OutputView::execution_space(), output, prefix_output,
                               prefix_lse, suffix_output, suffix_lse, output_lse);
}

/// As above, on a default instance of OutputView::execution_space, without output_lse.
template <class OutputView, class PrefixOutputView, class PrefixLseView, class SuffixOutputView,
          class SuffixLseView, std::enable_if_t<Impl::is_view_v<OutputView>, int> = 0>
void merge_attn_states(const OutputView& output, const PrefixOutputView& prefix_output,
                       const PrefixLseView& prefix_lse, const SuffixOutputView& suffix_output,
                       const SuffixLseView& suffix_lse) {
  Impl::merge_attn_states_impl(typename OutputView::execution_space(), output, prefix_output,
                               prefix_lse, suffix_output, suffix_lse, Impl::NoOutputLse{});
}

/// The 2-way merge in place, for the tokens whose `mask` (a View of uint8_t [num_tokens]) is not
/// 0; the other tokens' output rows and output_lse entries are not touched (fixed shapes, e.g. a
/// launch captured in a CUDA graph). `output` must be the very same View as `prefix_output` or
/// `suffix_output`; otherwise as merge_attn_states.
template <class ExecutionSpace, class MaskView, class OutputView, class PrefixOutputView,
          class PrefixLseView, class SuffixOutputView, class SuffixLseView, class OutputLseView,
          std::enable_if_t<Impl::is_view_v<OutputLseView>, int> = 0>
void merge_attn_states_masked(const ExecutionSpace& exec, const MaskView& mask,
                              const OutputView& output, const PrefixOutputView& prefix_output,
                              const PrefixLseView& prefix_lse,
                              const SuffixOutputView& suffix_output,
                              const SuffixLseView& suffix_lse, const OutputLseView& output_lse,
                              const MergeOptions& options = {}) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               output_lse, options, nullptr, mask);
}

/// As above, without output_lse.
template <class ExecutionSpace, class MaskView, class OutputView, class PrefixOutputView,
          class PrefixLseView, class SuffixOutputView, class SuffixLseView,
          std::enable_if_t<Impl::is_view_v<SuffixLseView>, int> = 0>
void merge_attn_states_masked(const ExecutionSpace& exec, const MaskView& mask,
                              const OutputView& output, const PrefixOutputView& prefix_output,
                              const PrefixLseView& prefix_lse,
                              const SuffixOutputView& suffix_output,
                              const SuffixLseView& suffix_lse, const MergeOptions& options = {}) {
  Impl::merge_attn_states_impl(exec, output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                               Impl::NoOutputLse{}, options, nullptr, mask);
}

// -------------------------------------------------------------------------------------------------
// N states.

/// Merges num_states partial attention states in one pass over the data: states_output
/// [num_states][num_tokens][num_heads][head_size], states_lse [num_states][num_heads][num_tokens]
/// ([num_states][num_tokens][num_heads] with LseLayout::tokens_heads), into output
/// [num_tokens][num_heads][head_size] and optionally output_lse. Per (token, head): m = the largest
/// LSE, weights e^(lse_i - m) / sum_j e^(lse_j - m), output_lse = m + log(sum_j e^(lse_j - m)).
/// Empty states (LSE +inf or -inf) are ignored and not read; exactly one non-empty state is copied
/// bit for bit; none gives 0 and -inf (also for num_states == 0); a NaN LSE gives NaN. With two
/// states the result is bit for bit that of the 2-way merge (it runs the 2-way kernel). No output
/// may overlap an input. Value types, layouts, exceptions as merge_attn_states.
template <
    class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
    class OutputLseView,
    std::enable_if_t<Impl::is_exec_v<ExecutionSpace> && Impl::is_view_v<OutputLseView>, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const StatesOutputView& states_output, const StatesLseView& states_lse,
                       const OutputLseView& output_lse, const MergeOptions& options = {}) {
  Impl::merge_attn_states_nway_impl(exec, output, states_output, states_lse, output_lse, options);
}

/// As above, without output_lse.
template <
    class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
    std::enable_if_t<Impl::is_exec_v<ExecutionSpace> && Impl::is_view_v<StatesLseView>, int> = 0>
void merge_attn_states(const ExecutionSpace& exec, const OutputView& output,
                       const StatesOutputView& states_output, const StatesLseView& states_lse,
                       const MergeOptions& options = {}) {
  Impl::merge_attn_states_nway_impl(exec, output, states_output, states_lse, Impl::NoOutputLse{},
                                    options);
}

/// Merges a variable number of states per token (the layout chunked prefill produces): token t's
/// states are rows indptr(t) .. indptr(t + 1) - 1 of states_output [total_states][num_heads]
/// [head_size], their LSEs states_lse [num_heads][total_states] ([total_states][num_heads] with
/// LseLayout::tokens_heads); indptr is a View of an integer type [num_tokens + 1]. A token with no
/// states gets 0 and -inf. Semantics otherwise as the N-way merge. By default indptr is copied to
/// the host and validated before the launch (std::invalid_argument on decreasing or out-of-range
/// offsets), which fences exec; MergeOptions::check_indptr = false skips that (malformed offsets
/// then give NaN for the affected tokens).
template <class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
          class IndptrView, class OutputLseView,
          std::enable_if_t<Impl::is_view_v<OutputLseView>, int> = 0>
void merge_attn_states_varlen(const ExecutionSpace& exec, const OutputView& output,
                              const StatesOutputView& states_output,
                              const StatesLseView& states_lse, const IndptrView& indptr,
                              const OutputLseView& output_lse, const MergeOptions& options = {}) {
  Impl::merge_attn_states_varlen_impl(exec, output, states_output, states_lse, indptr, output_lse,
                                      options);
}

/// As above, without output_lse.
template <class ExecutionSpace, class OutputView, class StatesOutputView, class StatesLseView,
          class IndptrView, std::enable_if_t<Impl::is_view_v<IndptrView>, int> = 0>
void merge_attn_states_varlen(const ExecutionSpace& exec, const OutputView& output,
                              const StatesOutputView& states_output,
                              const StatesLseView& states_lse, const IndptrView& indptr,
                              const MergeOptions& options = {}) {
  Impl::merge_attn_states_varlen_impl(exec, output, states_output, states_lse, indptr,
                                      Impl::NoOutputLse{}, options);
}

}  // namespace MergeAttn

#endif  // MERGEATTN_MERGESTATES_HPP
