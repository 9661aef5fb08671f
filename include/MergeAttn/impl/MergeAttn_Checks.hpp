// MergeAttn::Impl argument checks: run on the host before any kernel launches. The templates only
// describe each View; the checks and their messages live in src/MergeAttn_Checks.cpp.
#ifndef MERGEATTN_IMPL_CHECKS_HPP
#define MERGEATTN_IMPL_CHECKS_HPP

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

namespace MergeAttn {
namespace Impl {

/// What the checks need to know of a View: its name in the API, extents, strides, the bytes from
/// its first to one past its last element, and the span Kokkos reports for it (View::span(), in
/// elements).
struct ViewDesc {
  const char* name = nullptr;
  const void* data = nullptr;
  std::size_t span_bytes = 0;
  std::size_t kokkos_span = 0;
  std::size_t value_size = 0;
  int rank = 0;
  std::int64_t extent[4] = {0, 0, 0, 0};
  std::int64_t stride[4] = {0, 0, 0, 0};
};

template <class View>
ViewDesc describe_view(const char* name, const View& v) {
  ViewDesc d;
  d.name = name;
  d.data = static_cast<const void*>(v.data());
  d.value_size = sizeof(typename View::value_type);
  d.rank = static_cast<int>(View::rank);
  // The exact range the elements occupy: View::span() of a strided sub-view can reach past it.
  std::int64_t last = 0;
  bool empty = false;
  static_assert(View::rank <= 4, "MergeAttn: Views of rank above 4 are not described");
  for (int r = 0; r < d.rank; ++r) {
    d.extent[r] = static_cast<std::int64_t>(v.extent(r));
    d.stride[r] = static_cast<std::int64_t>(v.stride(r));
    empty = empty || d.extent[r] == 0;
    last += (d.extent[r] - 1) * d.stride[r];
  }
  d.span_bytes = empty ? 0 : static_cast<std::size_t>(last + 1) * d.value_size;
  d.kokkos_span = static_cast<std::size_t>(v.span());
  return d;
}

/// Every check below first throws std::invalid_argument for a non-empty View whose span Kokkos
/// reports as smaller than any correct Kokkos would (the smaller of the largest extent times its
/// stride and the element range): Kokkos before 3.6.01 counts the elements of a View of three or
/// more runtime extents in 32 bits in places, so a LayoutRight one of a multiple of 2^32 elements
/// has span 0 and no memory.
///
/// Throws std::invalid_argument, naming `function`, the offending argument and the extents, when
/// the outputs' extents differ, an LSE is not [num_heads][num_tokens] (or [num_tokens][num_heads]
/// when `lse_tokens_heads`), or an output overlaps another argument other than as the very same
/// View (output == prefix_output or suffix_output, output_lse == prefix_lse or suffix_lse).
/// `output_lse` may be null.
void check_merge_arguments(const char* function, const ViewDesc& output,
                           const ViewDesc& prefix_output, const ViewDesc& prefix_lse,
                           const ViewDesc& suffix_output, const ViewDesc& suffix_lse,
                           const ViewDesc* output_lse, bool lse_tokens_heads);

/// The masked 2-way merge: `mask` is [num_tokens] and `output` is the very same View as
/// `prefix_output` or `suffix_output` (the masked form updates a state in place).
void check_masked_arguments(const char* function, const ViewDesc& mask, const ViewDesc& output,
                            const ViewDesc& prefix_output, const ViewDesc& suffix_output);

/// The N-way merge: states_output [num_states][num_tokens][num_heads][head_size], states_lse
/// [num_states][num_heads][num_tokens] (or [num_states][num_tokens][num_heads]), output_lse as in
/// the 2-way merge; no output may overlap anything.
void check_nway_arguments(const char* function, const ViewDesc& output,
                          const ViewDesc& states_output, const ViewDesc& states_lse,
                          const ViewDesc* output_lse, bool lse_tokens_heads);

/// The variable-length merge: states_output [total_states][num_heads][head_size], states_lse
/// [num_heads][total_states] (or [total_states][num_heads]), indptr [num_tokens + 1]; no output
/// may overlap anything.
void check_varlen_arguments(const char* function, const ViewDesc& output,
                            const ViewDesc& states_output, const ViewDesc& states_lse,
                            const ViewDesc& indptr, const ViewDesc* output_lse,
                            bool lse_tokens_heads);

/// The offsets themselves (host copy): indptr[0] >= 0, non-decreasing, indptr[num_tokens] <=
/// total_states.
void check_indptr_values(const char* function, const std::int64_t* indptr, std::int64_t count,
                         std::int64_t total_states);

/// True when the Views (rank 3 or 4, the head dimension last) can be moved in aligned
/// `pack_bytes`-byte packs along the last dimension: unit stride there, aligned row starts.
bool can_use_packs(std::size_t pack_bytes, const ViewDesc* const* views, int count);
inline bool can_use_packs(std::size_t pack_bytes, const ViewDesc& a, const ViewDesc& b,
                          const ViewDesc& c) {
  const ViewDesc* v[] = {&a, &b, &c};
  return can_use_packs(pack_bytes, v, 3);
}

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_CHECKS_HPP
