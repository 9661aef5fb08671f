// MergeAttn::MergeOptions: the LSE conventions of a merge (base and layout) and the offset check of
// the variable-length merge.
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

struct MergeOptions {
  LseBase lse_base = LseBase::natural;
  LseLayout lse_layout = LseLayout::heads_tokens;
  /// merge_attn_states_varlen only: copy `indptr` to the host and validate it before the launch
  /// (throws std::invalid_argument on bad offsets). This fences `exec`; turn it off where the call
  /// must stay asynchronous (e.g. captured in a CUDA graph): malformed offsets then make the
  /// affected tokens' outputs and LSEs NaN instead.
  bool check_indptr = true;
};

}  // namespace MergeAttn

#endif  // MERGEATTN_OPTIONS_HPP
