// MergeAttn::MergePlan: a merge prepared once (argument checks, launch shape, kernel arguments,
// Kokkos policy) and launched many times, for callers that repeat the same merge on the same Views
// (a decode step per layer, a fixed-shape loop): each launch then costs only Kokkos' own launch.
#ifndef MERGEATTN_PLAN_HPP
#define MERGEATTN_PLAN_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_MergeStates.hpp>
#include <MergeAttn/impl/MergeAttn_MergeKernel.hpp>
#include <functional>

namespace MergeAttn {

namespace Impl {
struct PlanMaker;
}  // namespace Impl

/// One merge with its arguments bound: made by plan_merge_attn_states,
/// plan_merge_attn_states_masked or plan_merge_attn_states_varlen, which check the arguments and
/// choose the launch as the merge function of the same name would, without launching.
///
/// - The plan holds copies of the Views and of the execution space instance it was made with:
///   their allocations live as long as the plan. The Views' extents and aliasing are fixed, so the
///   checks made at planning hold for every launch.
/// - Each execute() reads the Views' contents as they are when its kernel runs (outputs, LSEs, the
///   mask); a varlen plan's offsets too, but their values are validated only when the plan is made
///   (MergeOptions::check_indptr): offsets changed afterwards run unchecked, as with
///   check_indptr = false.
/// - A default-constructed plan, or one of no tokens or no heads, launches nothing.
template <class ExecutionSpace>
class MergePlan {
 public:
  using execution_space = ExecutionSpace;

  MergePlan() = default;

  /// Launches the planned merge on the plan's execution space instance, after the work already
  /// submitted to it; nothing is fenced. The same kernel, launch shape and results as the merge
  /// function call the plan was made from.
  void execute() const {
    if (m_launch) m_launch();
  }

  /// Whether execute() launches a kernel.
  bool launches() const noexcept { return static_cast<bool>(m_launch); }

 private:
  friend struct Impl::PlanMaker;
  std::function<void()> m_launch;
};

namespace Impl {

struct PlanMaker {
  /// Runs `call` (one merge function call) with its launch stored in the plan instead of run.
  template <class ExecutionSpace, class Call>
  static MergePlan<ExecutionSpace> make(const Call& call) {
    MergePlan<ExecutionSpace> plan;
    {
      const CaptureLaunch capture(plan.m_launch);
      call();
    }
    return plan;
  }
};

}  // namespace Impl

/// Plans `merge_attn_states(exec, args...)` (two or N states, with or without output_lse and
/// options): the same compile-time and run-time checks, with the same exceptions, now; the
/// returned plan's execute() launches what that call would have launched.
template <class ExecutionSpace, class... Args>
MergePlan<ExecutionSpace> plan_merge_attn_states(const ExecutionSpace& exec, const Args&... args) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "MergeAttn::plan_merge_attn_states: 'exec' must be a Kokkos execution space "
                "instance");
  return Impl::PlanMaker::make<ExecutionSpace>([&] { merge_attn_states(exec, args...); });
}

/// Plans `merge_attn_states_masked(exec, mask, args...)`; as plan_merge_attn_states. The mask's
/// values are read at each execute(): a caller may change which tokens merge between launches.
template <class ExecutionSpace, class MaskView, class... Args>
MergePlan<ExecutionSpace> plan_merge_attn_states_masked(const ExecutionSpace& exec,
                                                        const MaskView& mask, const Args&... args) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "MergeAttn::plan_merge_attn_states_masked: 'exec' must be a Kokkos execution "
                "space instance");
  return Impl::PlanMaker::make<ExecutionSpace>(
      [&] { merge_attn_states_masked(exec, mask, args...); });
}

/// Plans `merge_attn_states_varlen(exec, args...)`; as plan_merge_attn_states. With
/// MergeOptions::check_indptr (the default) the offsets are copied to the host and validated now
/// (which fences `exec`), not at execute().
template <class ExecutionSpace, class... Args>
MergePlan<ExecutionSpace> plan_merge_attn_states_varlen(const ExecutionSpace& exec,
                                                        const Args&... args) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "MergeAttn::plan_merge_attn_states_varlen: 'exec' must be a Kokkos execution "
                "space instance");
  return Impl::PlanMaker::make<ExecutionSpace>([&] { merge_attn_states_varlen(exec, args...); });
}

}  // namespace MergeAttn

#endif  // MERGEATTN_PLAN_HPP
