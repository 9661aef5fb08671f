// Bad input: std::invalid_argument before any kernel launches, naming the function, the argument
// and the extents. (Wrong rank, wrong memory space and wrong value types are static_asserts.)
#include <stdexcept>

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

}  // namespace
