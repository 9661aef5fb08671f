#include <MergeAttn/impl/MergeAttn_Checks.hpp>
#include <cstdint>
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

}  // namespace

void check_merge_arguments(const char* function, const ViewDesc& output,
                           const ViewDesc& prefix_output, const ViewDesc& prefix_lse,
                           const ViewDesc& suffix_output, const ViewDesc& suffix_lse,
                           const ViewDesc* output_lse) {
  for (const ViewDesc* d : {&prefix_output, &suffix_output}) {
    if (!same_extents(*d, output))
      fail(function, *d,
           "has extents " + extents_string(*d) + " but 'output' has " + extents_string(output) +
               " ([num_tokens][num_heads][head_size] must agree)");
  }
  if (output.extent[2] > std::numeric_limits<int>::max())
    fail(function, output,
         "has head_size " + std::to_string(output.extent[2]) + " (extents " +
             extents_string(output) + "), more than the supported " +
             std::to_string(std::numeric_limits<int>::max()));
  const std::int64_t num_tokens = output.extent[0];
  const std::int64_t num_heads = output.extent[1];
  for (const ViewDesc* d : {&prefix_lse, &suffix_lse, output_lse}) {
    if (d == nullptr) continue;
    if (d->extent[0] != num_heads || d->extent[1] != num_tokens) {
      std::ostringstream s;
      s << "has extents " << extents_string(*d) << " but must be [num_heads][num_tokens] = ["
        << num_heads << "][" << num_tokens << "] for 'output' " << extents_string(output);
      fail(function, *d, s.str());
    }
  }
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

bool can_use_packs(std::size_t pack_bytes, const ViewDesc& a, const ViewDesc& b,
                   const ViewDesc& c) {
  for (const ViewDesc* d : {&a, &b, &c}) {
    if (reinterpret_cast<std::uintptr_t>(d->data) % pack_bytes != 0) return false;
    if (d->extent[2] > 1 && d->stride[2] != 1) return false;
    for (int r = 0; r < 2; ++r) {
      const std::int64_t row_bytes = d->stride[r] * static_cast<std::int64_t>(d->value_size);
      if (d->extent[r] > 1 && row_bytes % static_cast<std::int64_t>(pack_bytes) != 0) return false;
    }
  }
  return true;
}

}  // namespace Impl
}  // namespace MergeAttn
