// More than 2^31 elements: 64-bit offsets everywhere. bfloat16 [65536][32][1025] (2.15e9 elements,
// 4.3 GB per View), output in place on prefix_output, checked element by element on the backend.
#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;
using BF16 = MergeAttn::bfloat16_t;

// Exactly representable patterns whose half-sum is exactly representable too.
KOKKOS_INLINE_FUNCTION float pattern_x(std::int64_t i) { return float(i % 61 - 30) * 0.125f; }
KOKKOS_INLINE_FUNCTION float pattern_y(std::int64_t i) { return float(i % 53 - 26) * 0.125f; }

template <class V>
struct FillPatterns {
  V x, y;
  std::int64_t heads, dim;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pair) const {
    const std::int64_t t = pair / heads, h = pair % heads;
    for (std::int64_t d = 0; d < dim; ++d) {
      const std::int64_t i = pair * dim + d;
      x(t, h, d) = BF16(pattern_x(i));
      y(t, h, d) = BF16(pattern_y(i));
    }
  }
};

template <class L>
struct FillLse {
  L p, s;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t h, const std::int64_t t) const {
    // heads cycle through: weighted (equal weights), suffix empty, prefix empty.
    const int kind = int((h + t) % 3);
    const float inf = MergeAttn::Impl::infinity<float>();
    p(h, t) = kind == 2 ? -inf : 1.5f;
    s(h, t) = kind == 1 ? inf : 1.5f;
  }
};

template <class V>
struct CountWrong {
  V out;
  std::int64_t heads, dim;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pair, std::int64_t& wrong) const {
    const std::int64_t t = pair / heads, h = pair % heads;
    const int kind = int((h + t) % 3);
    for (std::int64_t d = 0; d < dim; ++d) {
      const std::int64_t i = pair * dim + d;
      const float x = pattern_x(i), y = pattern_y(i);
      const float want = kind == 0 ? 0.5f * (x + y) : kind == 1 ? x : y;
      if (static_cast<float>(out(t, h, d)) != want) ++wrong;
    }
  }
};

template <class Exec>
class LargeIndexing : public ::testing::Test {};
TYPED_TEST_SUITE(LargeIndexing, Backends, BackendNames);

TYPED_TEST(LargeIndexing, MoreThan2To31Elements) {
  using Exec = TypeParam;
  const std::int64_t tokens = 65536, heads = 32, dim = 1025;
  ASSERT_GT(tokens * heads * dim, std::int64_t(1) << 31);
  using V = Kokkos::View<BF16***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  V x(Kokkos::view_alloc("x", Kokkos::WithoutInitializing), tokens, heads, dim);
  V y(Kokkos::view_alloc("y", Kokkos::WithoutInitializing), tokens, heads, dim);
  L p("p", heads, tokens), s("s", heads, tokens), lse("lse", heads, tokens);
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("fill", Range(0, tokens * heads), FillPatterns<V>{x, y, heads, dim});
  Kokkos::parallel_for(
      "fill_lse",
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
          {0, 0}, {heads, tokens}),
      FillLse<L>{p, s});
  MergeAttn::merge_attn_states(Exec(), x, x, p, y, s, lse);  // in place on prefix_output
  std::int64_t wrong = -1;
  Kokkos::parallel_reduce("check", Range(0, tokens * heads), CountWrong<V>{x, heads, dim}, wrong);
  EXPECT_EQ(wrong, 0) << Exec::name();
  auto lse_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lse);
  for (std::int64_t t : {std::int64_t(0), tokens / 2, tokens - 1})
    for (std::int64_t h = 0; h < heads; ++h) {
      const int kind = int((h + t) % 3);
      const float want = kind == 0 ? 1.5f + std::log(2.0f) : 1.5f;
      EXPECT_NEAR(lse_h(h, t), want, 1e-6f) << Exec::name() << " lse(" << h << "," << t << ")";
    }
}

}  // namespace
