#include <MergeAttn/impl/MergeAttn_Checks.hpp>
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace MergeAttn {
namespace Impl {
namespace {

std::string extents_string(const ViewDesc& d) {
  std::ostringstream s;
  for (int r = 0; r < d.rank; ++r) s << '[' << d.extent[r] << ']';
  return s.str();
}

[[noreturn]] void fail(const char* function, const ViewDesc& arg, const std::string& what) {
  std::ostringstream s;
  s << function << ": argument '" << arg.name << "' " << what;
  throw std::invalid_argument(s.str());
}

// A View whose span, as Kokkos reports it, is smaller than any correct Kokkos reports for its
// extents and strides. Kokkos' span is at least the smaller of two counts: the largest extent times
// its stride (the span of Kokkos 3.4's LayoutStride; LayoutLeft and LayoutRight reach both counts,
// more when padded) and the element range, one past the last element's offset (the required span
// of an mdspan layout, which later Kokkos Views are built on). A strided View may have either one
// smaller: a View of some of the heads has the range smaller, one with strides that do not nest the
// largest product smaller. Kokkos before 3.6.01 (kokkos/kokkos PR 4907) multiplies the extents of a
// View of three or more runtime extents in 32-bit unsigned arithmetic in places: a LayoutRight View
// of a multiple of 2^32 elements has span 0 and no memory while its extents and strides are right,
// and the merge would read and write outside the memory. Any other shortfall is rejected alike.
void check_allocation(const char* function, const ViewDesc& d) {
  if (d.span_bytes == 0) return;  // no elements
  constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  const auto span = static_cast<std::uint64_t>(d.kokkos_span);
  // Every call checks every View, so the usual case takes no division: a span covering the element
  // range (span_bytes / value_size elements) is enough.
  if (span <= most / 16 && d.value_size <= 16 && span * d.value_size >= d.span_bytes) return;
  std::uint64_t largest = 0;
  for (int r = 0; r < d.rank; ++r) {
    const auto e = static_cast<std::uint64_t>(d.extent[r]);
    const auto s = static_cast<std::uint64_t>(d.stride[r]);
    largest = std::max(largest, s != 0 && e > most / s ? most : e * s);
  }
  if (span >= std::min<std::uint64_t>(largest, d.span_bytes / d.value_size)) return;
  std::uint64_t elements = 1;
  for (int r = 0; r < d.rank; ++r) {
    const auto e = static_cast<std::uint64_t>(d.extent[r]);
    elements = elements != 0 && e > most / elements ? most : elements * e;
  }
  std::ostringstream s;
  s << extents_string(d) << " has " << elements << " elements but Kokkos reports its span as "
    << d.kokkos_span
    << ", so it has memory for only part of them (Kokkos before 3.6.01 counts the elements of a "
       "View of three or more runtime extents in 32 bits, and a View of a multiple of 2^32 "
       "elements gets no memory; use Kokkos 3.6.01 or later, or Views of fewer than 2^32 "
       "elements)";
  fail(function, d, s.str());
}

void check_allocations(const char* function, std::initializer_list<const ViewDesc*> views) {
  for (const ViewDesc* d : views)
    if (d != nullptr) check_allocation(function, *d);
}

bool same_extents(const ViewDesc& a, const ViewDesc& b) {
  if (a.rank != b.rank) return false;
  for (int r = 0; r < a.rank; ++r)
    if (a.extent[r] != b.extent[r]) return false;
  return true;
}

bool overlaps(const ViewDesc& a, const ViewDesc& b) {
  if (a.span_bytes == 0 || b.span_bytes == 0) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data);
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data);
  return a0 < b0 + b.span_bytes && b0 < a0 + a.span_bytes;
}

bool same_view(const ViewDesc& a, const ViewDesc& b) {
  if (a.data != b.data || a.value_size != b.value_size || !same_extents(a, b)) return false;
  for (int r = 0; r < a.rank; ++r)
    if (a.extent[r] > 1 && a.stride[r] != b.stride[r]) return false;
  return true;
}

// `out` may overlap `other` only when `alias_ok` and both are the very same View.
void check_overlap(const char* function, const ViewDesc& out, const ViewDesc& other,
                   bool alias_ok) {
  if (!overlaps(out, other)) return;
  if (alias_ok && same_view(out, other)) return;
  std::string what =
      "overlaps argument '" + std::string(other.name) + "' " + extents_string(other) + " in memory";
  what += alias_ok ? " without being the very same View (only exact in-place aliasing is allowed)"
                   : " (outputs may alias only their own kind of input, exactly)";
  fail(function, out, what + "; its extents are " + extents_string(out));
}

void check_lse_shape(const char* function, const ViewDesc& lse, const ViewDesc& output,
                     const std::int64_t num_tokens, const std::int64_t num_heads,
                     const bool tokens_heads) {
  const std::int64_t e0 = tokens_heads ? num_tokens : num_heads;
  const std::int64_t e1 = tokens_heads ? num_heads : num_tokens;
  if (lse.extent[0] != e0 || lse.extent[1] != e1) {
    std::ostringstream s;
    s << "has extents " << extents_string(lse) << " but must be "
      << (tokens_heads ? "[num_tokens][num_heads]" : "[num_heads][num_tokens]") << " = [" << e0
      << "][" << e1 << "] for 'output' " << extents_string(output)
      << (tokens_heads ? " (LseLayout::tokens_heads)" : "");
    fail(function, lse, s.str());
  }
}

void check_head_size(const char* function, const ViewDesc& output) {
  if (output.extent[2] > std::numeric_limits<int>::max())
    fail(function, output,
         "has head_size " + std::to_string(output.extent[2]) + " (extents " +
             extents_string(output) + "), more than the supported " +
             std::to_string(std::numeric_limits<int>::max()));
}

}  // namespace

void check_merge_arguments(const char* function, const ViewDesc& output,
                           const ViewDesc& prefix_output, const ViewDesc& prefix_lse,
                           const ViewDesc& suffix_output, const ViewDesc& suffix_lse,
                           const ViewDesc* output_lse, const bool lse_tokens_heads) {
  check_allocations(
      function, {&output, &prefix_output, &prefix_lse, &suffix_output, &suffix_lse, output_lse});
  for (const ViewDesc* d : {&prefix_output, &suffix_output}) {
    if (!same_extents(*d, output))
      fail(function, *d,
           "has extents " + extents_string(*d) + " but 'output' has " + extents_string(output) +
               " ([num_tokens][num_heads][head_size] must agree)");
  }
  check_head_size(function, output);
  for (const ViewDesc* d : {&prefix_lse, &suffix_lse, output_lse})
    if (d != nullptr)
      check_lse_shape(function, *d, output, output.extent[0], output.extent[1], lse_tokens_heads);
  // In place: output may be prefix_output or suffix_output, output_lse may be prefix_lse or
  // suffix_lse; inputs may overlap each other (they are only read); nothing else may overlap.
  check_overlap(function, output, prefix_output, true);
  check_overlap(function, output, suffix_output, true);
  check_overlap(function, output, prefix_lse, false);
  check_overlap(function, output, suffix_lse, false);
  if (output_lse != nullptr) {
    check_overlap(function, *output_lse, output, false);
    check_overlap(function, *output_lse, prefix_lse, true);
    check_overlap(function, *output_lse, suffix_lse, true);
    check_overlap(function, *output_lse, prefix_output, false);
    check_overlap(function, *output_lse, suffix_output, false);
  }
}

void check_masked_arguments(const char* function, const ViewDesc& mask, const ViewDesc& output,
                            const ViewDesc& prefix_output, const ViewDesc& suffix_output) {
  check_allocation(function, mask);  // the others: check_merge_arguments
  if (mask.extent[0] != output.extent[0])
    fail(function, mask,
         "has extents " + extents_string(mask) + " but must be [num_tokens] = [" +
             std::to_string(output.extent[0]) + "] for 'output' " + extents_string(output));
  if (!same_view(output, prefix_output) && !same_view(output, suffix_output))
    fail(function, output,
         "must be the very same View as 'prefix_output' or 'suffix_output': the masked merge "
         "updates a state in place (tokens with mask 0 keep their values)");
  check_overlap(function, output, mask, false);
}

void check_nway_arguments(const char* function, const ViewDesc& output,
                          const ViewDesc& states_output, const ViewDesc& states_lse,
                          const ViewDesc* output_lse, const bool lse_tokens_heads) {
  check_allocations(function, {&output, &states_output, &states_lse, output_lse});
  const std::int64_t num_states = states_output.extent[0];
  const std::int64_t num_tokens = output.extent[0], num_heads = output.extent[1];
  if (states_output.extent[1] != num_tokens || states_output.extent[2] != num_heads ||
      states_output.extent[3] != output.extent[2])
    fail(function, states_output,
         "has extents " + extents_string(states_output) +
             " but must be [num_states][num_tokens][num_heads][head_size] with the last three "
             "those of 'output' " +
             extents_string(output));
  check_head_size(function, output);
  const std::int64_t e1 = lse_tokens_heads ? num_tokens : num_heads;
  const std::int64_t e2 = lse_tokens_heads ? num_heads : num_tokens;
  if (states_lse.extent[0] != num_states || states_lse.extent[1] != e1 ||
      states_lse.extent[2] != e2) {
    std::ostringstream s;
    s << "has extents " << extents_string(states_lse) << " but must be "
      << (lse_tokens_heads ? "[num_states][num_tokens][num_heads]"
                           : "[num_states][num_heads][num_tokens]")
      << " = [" << num_states << "][" << e1 << "][" << e2 << "] for 'states_output' "
      << extents_string(states_output);
    fail(function, states_lse, s.str());
  }
  if (output_lse != nullptr)
    check_lse_shape(function, *output_lse, output, num_tokens, num_heads, lse_tokens_heads);
  check_overlap(function, output, states_output, false);
  check_overlap(function, output, states_lse, false);
  if (output_lse != nullptr) {
    check_overlap(function, *output_lse, output, false);
    check_overlap(function, *output_lse, states_output, false);
    check_overlap(function, *output_lse, states_lse, false);
  }
}

void check_varlen_arguments(const char* function, const ViewDesc& output,
                            const ViewDesc& states_output, const ViewDesc& states_lse,
                            const ViewDesc& indptr, const ViewDesc* output_lse,
                            const bool lse_tokens_heads) {
  check_allocations(function, {&output, &states_output, &states_lse, &indptr, output_lse});
  const std::int64_t num_tokens = output.extent[0], num_heads = output.extent[1];
  const std::int64_t total = states_output.extent[0];
  if (states_output.extent[1] != num_heads || states_output.extent[2] != output.extent[2])
    fail(function, states_output,
         "has extents " + extents_string(states_output) +
             " but must be [total_states][num_heads][head_size] with the last two those of "
             "'output' " +
             extents_string(output));
  check_head_size(function, output);
  const std::int64_t e0 = lse_tokens_heads ? total : num_heads;
  const std::int64_t e1 = lse_tokens_heads ? num_heads : total;
  if (states_lse.extent[0] != e0 || states_lse.extent[1] != e1) {
    std::ostringstream s;
    s << "has extents " << extents_string(states_lse) << " but must be "
      << (lse_tokens_heads ? "[total_states][num_heads]" : "[num_heads][total_states]") << " = ["
      << e0 << "][" << e1 << "] for 'states_output' " << extents_string(states_output);
    fail(function, states_lse, s.str());
  }
  if (indptr.extent[0] != num_tokens + 1)
    fail(function, indptr,
         "has extents " + extents_string(indptr) + " but must be [num_tokens + 1] = [" +
             std::to_string(num_tokens + 1) + "] for 'output' " + extents_string(output));
  if (output_lse != nullptr)
    check_lse_shape(function, *output_lse, output, num_tokens, num_heads, lse_tokens_heads);
  for (const ViewDesc* in : {&states_output, &states_lse, &indptr}) {
    check_overlap(function, output, *in, false);
    if (output_lse != nullptr) check_overlap(function, *output_lse, *in, false);
  }
  if (output_lse != nullptr) check_overlap(function, *output_lse, output, false);
}

void check_indptr_values(const char* function, const std::int64_t* indptr, const std::int64_t count,
                         const std::int64_t total_states) {
  for (std::int64_t t = 0; t < count; ++t) {
    const bool bad =
        indptr[t] < 0 || indptr[t] > total_states || (t > 0 && indptr[t] < indptr[t - 1]);
    if (!bad) continue;
    std::ostringstream s;
    s << function << ": argument 'indptr' is not a valid offsets array into " << total_states
      << " states: indptr[" << t << "] = " << indptr[t];
    if (t > 0) s << " after indptr[" << t - 1 << "] = " << indptr[t - 1];
    s << " (offsets must be non-decreasing, in [0, total_states])";
    throw std::invalid_argument(s.str());
  }
}

bool can_use_packs(const std::size_t pack_bytes, const ViewDesc* const* views, const int count) {
  for (int v = 0; v < count; ++v) {
    const ViewDesc* d = views[v];
    if (reinterpret_cast<std::uintptr_t>(d->data) % pack_bytes != 0) return false;
    const int last = d->rank - 1;
    if (d->extent[last] > 1 && d->stride[last] != 1) return false;
    for (int r = 0; r < last; ++r) {
      const std::int64_t row_bytes = d->stride[r] * static_cast<std::int64_t>(d->value_size);
      if (d->extent[r] > 1 && row_bytes % static_cast<std::int64_t>(pack_bytes) != 0) return false;
    }
  }
  return true;
}

}  // namespace Impl
}  // namespace MergeAttn
