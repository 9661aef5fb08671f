// Bad input: std::invalid_argument before any kernel launches, naming the function, the argument
// and the extents. (Wrong rank, wrong memory space and wrong value types are static_asserts.)
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;

template <class Exec>
class MergeBadInput : public ::testing::Test {};
TYPED_TEST_SUITE(MergeBadInput, Backends, BackendNames);

template <class Exec>
using Out = Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
template <class Exec>
using Lse = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>>;

// Expects f() to throw std::invalid_argument whose message contains every string in `parts`.
template <class F>
void expect_invalid_argument(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception thrown (expected one mentioning '" << *parts.begin() << "')";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("MergeAttn::merge_attn_states"), std::string::npos) << msg;
    for (const char* part : parts) EXPECT_NE(msg.find(part), std::string::npos) << msg;
  }
}

TYPED_TEST(MergeBadInput, OutputExtentsDiffer) {
  using E = TypeParam;
  Out<E> out("out", 8, 4, 64), pre("pre", 8, 4, 64), suf("suf", 8, 4, 32), pre2("pre2", 9, 4, 64);
  Lse<E> pl("pl", 4, 8), sl("sl", 4, 8);
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre, pl, suf, sl); },
                          {"'suffix_output'", "[8][4][32]", "[8][4][64]"});
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre2, pl, pre, sl); },
                          {"'prefix_output'", "[9][4][64]"});
}

TYPED_TEST(MergeBadInput, LseNotHeadsByTokens) {
  using E = TypeParam;
  Out<E> out("out", 8, 4, 64), pre("pre", 8, 4, 64), suf("suf", 8, 4, 64);
  Lse<E> pl("pl", 4, 8), sl("sl", 4, 8), transposed("t", 8, 4), short_lse("s", 4, 7);
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre, transposed, suf, sl); },
                          {"'prefix_lse'", "[8][4]", "[num_heads][num_tokens] = [4][8]"});
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre, pl, suf, short_lse); },
                          {"'suffix_lse'", "[4][7]"});
}

TYPED_TEST(MergeBadInput, WrongOutputLse) {
  using E = TypeParam;
  Out<E> out("out", 8, 4, 64), pre("pre", 8, 4, 64), suf("suf", 8, 4, 64);
  Lse<E> pl("pl", 4, 8), sl("sl", 4, 8), ol("ol", 4, 9);
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre, pl, suf, sl, ol); },
                          {"'output_lse'", "[4][9]"});
}

TYPED_TEST(MergeBadInput, PartialOverlapIsRejected) {
  using E = TypeParam;
  Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<E>> big("big", 9, 4, 64);
  auto head = Kokkos::subview(big, std::make_pair(0, 8), Kokkos::ALL, Kokkos::ALL);
  auto tail = Kokkos::subview(big, std::make_pair(1, 9), Kokkos::ALL, Kokkos::ALL);
  Out<E> suf("suf", 8, 4, 64);
  Lse<E> pl("pl", 4, 8), sl("sl", 4, 8);
  // output shifted by one token against prefix_output: overlapping, not the same View.
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), tail, head, pl, suf, sl); },
                          {"'output'", "'prefix_output'", "overlaps"});
  // output_lse overlapping prefix_lse with another shape of the same memory.
  Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<E>> lse_big("lse_big", 4, 9);
  auto lse_a = Kokkos::subview(lse_big, Kokkos::ALL, std::make_pair(0, 8));
  auto lse_b = Kokkos::subview(lse_big, Kokkos::ALL, std::make_pair(1, 9));
  Out<E> out("out", 8, 4, 64), pre("pre", 8, 4, 64);
  expect_invalid_argument(
      [&] { MergeAttn::merge_attn_states(E(), out, pre, lse_a, suf, sl, lse_b); },
      {"'output_lse'", "'prefix_lse'", "overlaps"});
  // output_lse inside the memory of output.
  Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<E>,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      lse_in_out(out.data(), 4, 8);
  expect_invalid_argument(
      [&] { MergeAttn::merge_attn_states(E(), out, pre, pl, suf, sl, lse_in_out); },
      {"'output_lse'", "'output'", "overlaps"});
  // output the same memory as prefix_lse's... output overlapping an LSE input.
  Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<E>,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      out_on_lse(pl.data(), 8, 4, 1);
  Out<E> pre1("pre1", 8, 4, 1), suf1("suf1", 8, 4, 1);
  expect_invalid_argument(
      [&] { MergeAttn::merge_attn_states(E(), out_on_lse, pre1, pl, suf1, sl); },
      {"'output'", "'prefix_lse'", "overlaps"});
}

TYPED_TEST(MergeBadInput, HeadSizeBeyondIntIsRejectedNotTruncated) {
  using E = TypeParam;
  // Unmanaged Views whose extents claim 2^31 elements per row; never dereferenced: the check
  // throws first.
  Out<E> a("a", 1, 1, 1), b("b", 1, 1, 1), c("c", 1, 1, 1);
  using Huge = Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<E>,
                            Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::size_t n = std::size_t(1) << 31;
  Huge out(a.data(), 1, 1, n), pre(b.data(), 1, 1, n), suf(c.data(), 1, 1, n);
  Lse<E> pl("pl", 1, 1), sl("sl", 1, 1);
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), out, pre, pl, suf, sl); },
                          {"'output'", "head_size 2147483648"});
}

// Views of 2^32 elements and more with three or four runtime extents. Kokkos before 3.6.01 counts
// their elements in 32 bits in places: a LayoutRight View of a multiple of 2^32 elements has span
// (and allocation) 0 while its extents are right. Where this Kokkos does that, every form rejects
// such Views (unmanaged over a small buffer: the checks throw before anything runs); where it
// counts right, the checks accept them and one of 2^32 + 4096 elements (no false alarm): then only
// the checks run, on unmanaged Views at addresses 2^40 bytes apart that are never dereferenced
// (over one buffer they would overlap each other). Our supply counts right
// (cmake/patches/kokkos-3.4.01-view-size-64bit.patch).
TYPED_TEST(MergeBadInput, ViewsOf2To32ElementsAreCheckedAgainstTheirSpan) {
  using E = TypeParam;
  using Mem = DeviceMemory<E>;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using U1 = Kokkos::View<std::int64_t*, Kokkos::LayoutRight, Mem, Unmanaged>;
  using U2 = Kokkos::View<float**, Kokkos::LayoutRight, Mem, Unmanaged>;
  using U3 = Kokkos::View<float***, Kokkos::LayoutRight, Mem, Unmanaged>;
  using U4 = Kokkos::View<float****, Kokkos::LayoutRight, Mem, Unmanaged>;
  constexpr std::size_t rows = std::size_t(1) << 20, heads = 16, d = 256, wide = rows;
  constexpr std::size_t elements = rows * heads * d;  // 2^32
  // Varlen: packed states [2^20][16][256] and [2^20 + 1][16][256]; N-way: 4096 states of
  // [1][1][2^20]; 2-way: [4096][1][2^20], in place on the prefix. View k is at address(k).
  struct Views {
    U3 out, states, states_more;
    U2 lse, lse_more, ol;
    U1 indptr;
    U4 many;
    U3 many_lse, out1, x;
    U2 pl, sl;
  };
  const auto make = [&](const auto& address) {
    return Views{U3(address(0), 1, heads, d),
                 U3(address(1), rows, heads, d),
                 U3(address(2), rows + 1, heads, d),
                 U2(address(3), heads, rows),
                 U2(address(4), heads, rows + 1),
                 U2(address(5), heads, 1),
                 U1(reinterpret_cast<std::int64_t*>(address(6)), 2),
                 U4(address(7), 4096, 1, 1, wide),
                 U3(address(8), 4096, 1, 1),
                 U3(address(9), 1, 1, wide),
                 U3(address(10), 4096, 1, wide),
                 U2(address(11), 1, 4096),
                 U2(address(12), 1, 4096)};
  };
  Out<E> buf("buf", 1, 1, 64);
  const Views v = make([p = buf.data()](int) { return p; });
  const bool counts_right = v.states.span() == elements;
#ifdef MERGEATTN_TEST_SUPPLIED_KOKKOS
  EXPECT_TRUE(counts_right) << "the supplied Kokkos lacks kokkos-3.4.01-view-size-64bit.patch";
#endif
  if (counts_right) {
    const Views far =
        make([](int k) { return reinterpret_cast<float*>(std::uintptr_t(k + 1) << 40); });
    ASSERT_EQ(far.states_more.span(), elements + heads * d);
    ASSERT_EQ(far.many.span(), elements);
    using MergeAttn::Impl::describe_view;
    const char* f = "MergeAttn::merge_attn_states";
    const auto varlen = [&](const U3& s, const U2& l) {
      MergeAttn::Impl::check_varlen_arguments(
          "MergeAttn::merge_attn_states_varlen", describe_view("output", far.out),
          describe_view("states_output", s), describe_view("states_lse", l),
          describe_view("indptr", far.indptr), nullptr, false);
    };
    EXPECT_NO_THROW(varlen(far.states, far.lse));
    EXPECT_NO_THROW(varlen(far.states_more, far.lse_more));
    EXPECT_NO_THROW(MergeAttn::Impl::check_nway_arguments(
        f, describe_view("output", far.out1), describe_view("states_output", far.many),
        describe_view("states_lse", far.many_lse), nullptr, false));
    const auto xd = describe_view("output", far.x);
    EXPECT_NO_THROW(MergeAttn::Impl::check_merge_arguments(
        f, xd, xd, describe_view("prefix_lse", far.pl), xd, describe_view("suffix_lse", far.sl),
        nullptr, false));
    return;
  }
  ASSERT_EQ(v.states.span(), 0u);
  ASSERT_EQ(v.many.span(), 0u);
  expect_invalid_argument(
      [&] { MergeAttn::merge_attn_states_varlen(E(), v.out, v.states, v.lse, v.indptr, v.ol); },
      {"'states_output'", "[1048576][16][256]", "4294967296 elements", "span as 0", "3.6.01"});
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), v.out1, v.many, v.many_lse); },
                          {"'states_output'", "span as 0"});
  expect_invalid_argument([&] { MergeAttn::merge_attn_states(E(), v.x, v.x, v.pl, v.x, v.sl); },
                          {"'output'", "span as 0"});
}

TYPED_TEST(MergeBadInput, ExceptionComesBeforeAnyWrite) {
  using E = TypeParam;
  const auto p = make_problem<float>(8, 4, 64, 23);
  Out<E> out("out", 8, 4, 64), pre("pre", 8, 4, 64), suf("suf", 8, 4, 32);
  Lse<E> pl("pl", 4, 8), sl("sl", 4, 8), ol("ol", 4, 8);
  upload<E>(out, p.prefix);
  upload<E>(ol, p.prefix_lse);
  EXPECT_THROW(MergeAttn::merge_attn_states(E(), out, pre, pl, suf, sl, ol), std::invalid_argument);
  E().fence();
  const auto out_after = download<E>(out);
  const auto lse_after = download<E>(ol);
  EXPECT_EQ(0, std::memcmp(out_after.data(), p.prefix.data(), p.prefix.size() * sizeof(float)));
  EXPECT_EQ(
      0, std::memcmp(lse_after.data(), p.prefix_lse.data(), p.prefix_lse.size() * sizeof(float)));
}

// The check itself, on any Kokkos: descriptions of Views of 2^32 elements whose span Kokkos reports
// as 0 (what Kokkos before 3.6.01 gives such LayoutRight Views), or as anything short of what the
// extents and strides need, are rejected, naming the argument; the same descriptions with their
// span are not.
TEST(MergeChecks, ViewWithoutMemoryForItsElementsIsRejected) {
  using MergeAttn::Impl::ViewDesc;
  // A LayoutRight View of `extents` at address `at` (never dereferenced; separate ranges, as the
  // overlap checks come after), with the span Kokkos would report for it.
  const auto desc = [](const char* name, std::size_t value_size, std::uintptr_t at,
                       std::initializer_list<std::int64_t> extents) {
    ViewDesc d;
    d.name = name;
    d.data = reinterpret_cast<const void*>(at);
    d.value_size = value_size;
    d.rank = static_cast<int>(extents.size());
    std::int64_t n = 1;
    for (int r = d.rank - 1; r >= 0; --r) {
      d.extent[r] = extents.begin()[r];
      d.stride[r] = n;
      n *= d.extent[r];
    }
    d.span_bytes = static_cast<std::size_t>(n) * value_size;
    d.kokkos_span = static_cast<std::size_t>(n);
    return d;
  };
  constexpr std::uintptr_t apart = std::uintptr_t(1) << 40;
  ViewDesc states = desc("states_output", 4, 1 * apart, {1 << 20, 16, 256});
  ViewDesc out = desc("output", 4, 2 * apart, {1, 16, 256});
  ViewDesc lse = desc("states_lse", 4, 3 * apart, {16, 1 << 20});
  ViewDesc indptr = desc("indptr", 8, 4 * apart, {2});
  // The varlen check of packed states `s` with LSEs `l` (the output and the offsets as above).
  const auto varlen_of = [&](const ViewDesc& s, const ViewDesc& l) {
    return [&out, &indptr, &s, &l] {
      MergeAttn::Impl::check_varlen_arguments("MergeAttn::merge_attn_states_varlen", out, s, l,
                                              indptr, nullptr, false);
    };
  };
  const auto varlen = varlen_of(states, lse);
  EXPECT_NO_THROW(varlen());
  states.kokkos_span = 0;
  expect_invalid_argument(
      varlen, {"MergeAttn::merge_attn_states_varlen", "'states_output'", "[1048576][16][256]",
               "4294967296 elements", "span as 0", "3.6.01"});
  // 2^32 + 4096 elements: a span of 4096, or of one element less than they need, is rejected too.
  ViewDesc more = desc("states_output", 4, 1 * apart, {(1 << 20) + 1, 16, 256});
  ViewDesc lse_more = desc("states_lse", 4, 3 * apart, {16, (1 << 20) + 1});
  const auto varlen_more = varlen_of(more, lse_more);
  EXPECT_NO_THROW(varlen_more());
  more.kokkos_span -= 1;
  expect_invalid_argument(varlen_more, {"'states_output'", "[1048577][16][256]",
                                        "4294971392 elements", "span as 4294971391"});
  more.kokkos_span = 4096;
  expect_invalid_argument(varlen_more, {"'states_output'", "4294971392 elements", "span as 4096"});
  // No false alarm on a strided View, whichever count a correct Kokkos reports as its span: 16 of
  // 64 heads of packed states (strides [64 * 256][256][1]) with the span of Kokkos 3.4's
  // LayoutStride (the largest extent times its stride) or of an mdspan layout (the element range,
  // here the smaller); one element short of both is rejected. And strides that do not nest
  // ([4][2] with strides [1][3]: the largest product 6, the range 7).
  ViewDesc heads = desc("states_output", 4, 1 * apart, {1 << 20, 16, 256});
  heads.stride[0] = 64 * 256;
  const std::size_t largest = std::size_t(1 << 20) * 64 * 256;
  const std::size_t range = (std::size_t(1 << 20) - 1) * 64 * 256 + 16 * 256;
  heads.span_bytes = range * 4;
  const auto varlen_heads = varlen_of(heads, lse);
  for (const std::size_t span : {largest, range}) {
    heads.kokkos_span = span;
    EXPECT_NO_THROW(varlen_heads()) << span;
  }
  heads.kokkos_span = range - 1;
  EXPECT_THROW(varlen_heads(), std::invalid_argument);
  ViewDesc odd = desc("prefix_lse", 4, 5 * apart, {4, 2});  // [num_heads][num_tokens]
  odd.stride[0] = 1;
  odd.stride[1] = 3;
  odd.span_bytes = 7 * 4;
  odd.kokkos_span = 6;
  const ViewDesc two = desc("output", 4, 6 * apart, {2, 4, 64});
  const ViewDesc suffix_lse = desc("suffix_lse", 4, 7 * apart, {4, 2});
  const auto two_way = [&] {
    MergeAttn::Impl::check_merge_arguments("MergeAttn::merge_attn_states", two, two, odd, two,
                                           suffix_lse, nullptr, false);
  };
  EXPECT_NO_THROW(two_way());
  odd.kokkos_span = 5;
  expect_invalid_argument(two_way, {"'prefix_lse'", "[4][2]", "8 elements", "span as 5"});
  // The output, the LSEs and the offsets too; an empty View (no elements) never.
  states.kokkos_span = std::size_t(1) << 32;
  for (ViewDesc* d : {&out, &lse, &indptr}) {
    const std::size_t span = d->kokkos_span;
    d->kokkos_span = 0;
    EXPECT_THROW(varlen(), std::invalid_argument) << d->name;
    d->kokkos_span = span;
  }
  ViewDesc empty = desc("output", 4, 5 * apart, {0, 16, 256});
  ViewDesc empty_states = desc("states_output", 4, 6 * apart, {0, 16, 256});
  ViewDesc empty_lse = desc("states_lse", 4, 7 * apart, {16, 0});
  ASSERT_EQ(empty.kokkos_span, 0u);
  EXPECT_NO_THROW(MergeAttn::Impl::check_varlen_arguments(
      "MergeAttn::merge_attn_states_varlen", empty, empty_states, empty_lse,
      desc("indptr", 8, 8 * apart, {1}), nullptr, false));
}

}  // namespace
