// MergeAttn::MergePlan: a merge prepared once (argument checks, launch shape, kernel arguments,
// Kokkos policy; on CUDA a graph of the launch) and launched many times, for callers that repeat
// the same merge on the same Views (a decode step per layer, a fixed-shape loop): each launch then
// costs only Kokkos' own launch, or on CUDA the replay of a graph.
#ifndef MERGEATTN_PLAN_HPP
#define MERGEATTN_PLAN_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_MergeStates.hpp>
#include <MergeAttn/MergeAttn_Options.hpp>
#include <MergeAttn/impl/MergeAttn_MergeKernel.hpp>
#include <MergeAttn/impl/MergeAttn_PlannedLaunch.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

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
/// - How execute() launches is MergeOptions::plan_launch (PlanLaunch): by default, on Kokkos::Cuda,
///   the replay of a CUDA graph captured when the plan is made (launch_mode() says which). The
///   first such plan in a process makes a Kokkos::Cuda instance on a stream of MergeAttn's own for
///   the captures, kept until Kokkos::finalize.
/// - A default-constructed plan, or one of no tokens or no heads, launches nothing.
template <class ExecutionSpace>
class MergePlan {
 public:
  using execution_space = ExecutionSpace;

  MergePlan() = default;

  /// Launches the planned merge on the plan's execution space instance, after the work already
  /// submitted to it; nothing is fenced. The same kernel, launch shape and results as the merge
  /// function call the plan was made from. A graph replay that CUDA refuses throws
  /// std::runtime_error.
  void execute() const {
    if (m_launch) m_launch();
  }

  /// Whether execute() launches a kernel.
  bool launches() const noexcept { return static_cast<bool>(m_launch); }

  /// How execute() launches: PlanLaunch::cuda_graph (a graph replay) or PlanLaunch::kernel
  /// (Kokkos' launch, or nothing where launches() is false).
  PlanLaunch launch_mode() const noexcept {
    return m_graph ? PlanLaunch::cuda_graph : PlanLaunch::kernel;
  }

 private:
  friend struct Impl::PlanMaker;
  std::function<void()> m_launch;
  bool m_graph = false;
};

namespace Impl {

/// The plan_launch of the MergeOptions among a plan function's arguments (automatic if none).
template <class... Args>
PlanLaunch plan_launch_of(const Args&... args) {
  PlanLaunch found = PlanLaunch::automatic;
  const auto take = [&found](const auto& arg) {
    if constexpr (std::is_same<std::decay_t<decltype(arg)>, MergeOptions>::value)
      found = arg.plan_launch;
  };
  (take(args), ...);
  return found;
}

struct PlanMaker {
  /// Runs `call` (one merge function call, `function` its name) with its launch stored in the
  /// plan, as `wanted` asks, instead of run.
  template <class ExecutionSpace, class Call>
  static MergePlan<ExecutionSpace> make(const char* function, const PlanLaunch wanted,
                                        const Call& call) {
    bool cuda = false;
#if defined(KOKKOS_ENABLE_CUDA)
    cuda = std::is_same<ExecutionSpace, Kokkos::Cuda>::value;
#endif
    if (wanted == PlanLaunch::cuda_graph && !cuda)
      throw std::invalid_argument(std::string("MergeAttn::") + function +
                                  ": MergeOptions::plan_launch is PlanLaunch::cuda_graph, which "
                                  "needs Kokkos::Cuda; this plan's execution space is " +
                                  ExecutionSpace::name());
    PlannedLaunch planned;
    planned.wanted = wanted;
    {
      const CaptureLaunch capture(planned);
      call();
    }
    MergePlan<ExecutionSpace> plan;
    plan.m_launch = std::move(planned.launch);
    plan.m_graph = planned.graph;
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
  return Impl::PlanMaker::make<ExecutionSpace>("plan_merge_attn_states",
                                               Impl::plan_launch_of(args...),
                                               [&] { merge_attn_states(exec, args...); });
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
      "plan_merge_attn_states_masked", Impl::plan_launch_of(args...),
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
  return Impl::PlanMaker::make<ExecutionSpace>("plan_merge_attn_states_varlen",
                                               Impl::plan_launch_of(args...),
                                               [&] { merge_attn_states_varlen(exec, args...); });
}

}  // namespace MergeAttn

#endif  // MERGEATTN_PLAN_HPP
