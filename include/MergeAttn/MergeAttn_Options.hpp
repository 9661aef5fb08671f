// MergeAttn::MergeOptions: the LSE conventions of a merge (base and layout), the offset check of
// the variable-length merge, and how a plan (MergeAttn::MergePlan) launches.
#ifndef MERGEATTN_OPTIONS_HPP
#define MERGEATTN_OPTIONS_HPP

namespace MergeAttn {

/// The base of the log-sum-exp values, for the inputs and output_lse alike.
enum class LseBase {
  natural,  // log(sum(exp(s))): FlashAttention, FlashInfer's defaults, the seed
  base2     // log2(sum(exp2(s))): kernels that fold log2(e) into the softmax scale
};

/// How an LSE View is indexed, for the inputs and output_lse alike.
enum class LseLayout {
  heads_tokens,  // [num_heads][num_tokens] (N-way: [num_states][num_heads][num_tokens])
  tokens_heads   // [num_tokens][num_heads] (N-way: [num_states][num_tokens][num_heads])
};

/// How a plan (MergeAttn::MergePlan, made by the plan_merge_attn_states* functions) launches its
/// merge at each execute(). The merge functions themselves ignore it.
enum class PlanLaunch {
  /// cuda_graph where a plan can have one (Kokkos::Cuda, no Kokkos Tools library loaded, the
  /// capture succeeds), kernel otherwise.
  automatic,
  /// Kokkos' launch (parallel_for) of the planned kernel at every execute(), as the merge
  /// function would launch it: Kokkos Tools see every launch.
  kernel,
  /// Kokkos::Cuda only: the planned launch captured once, when the plan is made, into a CUDA graph
  /// that each execute() replays on the plan's stream (cudaGraphLaunch: the same kernel, launch
  /// shape and bits, for less host time per launch). A replay is invisible to Kokkos Tools. A plan
  /// that cannot have a graph is refused: std::invalid_argument for another execution space,
  /// std::runtime_error naming the CUDA call where the capture failed.
  cuda_graph
};

struct MergeOptions {
  LseBase lse_base = LseBase::natural;
  LseLayout lse_layout = LseLayout::heads_tokens;
  /// merge_attn_states_varlen only: copy `indptr` to the host and validate it before the launch
  /// (throws std::invalid_argument on bad offsets). This fences `exec`; turn it off where the call
  /// must stay asynchronous (e.g. captured in a CUDA graph): malformed offsets then make the
  /// affected tokens' outputs and LSEs NaN instead.
  bool check_indptr = true;
  /// Plans only: see PlanLaunch.
  PlanLaunch plan_launch = PlanLaunch::automatic;
};

}  // namespace MergeAttn

#endif  // MERGEATTN_OPTIONS_HPP
