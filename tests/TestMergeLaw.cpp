// The merge law on real attention: softmax attention of random queries against keys and values,
// once over all keys and once over two parts split at a random point; merging the two partial
// states with merge_attn_states must give the unsplit result. Scores and outputs by
// KokkosBlas::gemm.
#include <KokkosBlas3_gemm.hpp>

#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;

template <class Exec>
using Mat = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>>;

// Row-wise softmax of scores in place, with each row's log-sum-exp.
template <class M, class L>
struct SoftmaxRows {
  M s;
  L lse;  // [queries]
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    float m = s(i, 0);
    for (int j = 1; j < int(s.extent(1)); ++j) m = s(i, j) > m ? s(i, j) : m;
    float sum = 0;
    for (int j = 0; j < int(s.extent(1)); ++j) {
      s(i, j) = MergeAttn::Impl::exp(s(i, j) - m);
      sum += s(i, j);
    }
    for (int j = 0; j < int(s.extent(1)); ++j) s(i, j) /= sum;
    lse(i) = MergeAttn::Impl::log(sum) + m;
  }
};

// Writes one head's attention output and LSE into the merge's [tokens][heads][d] / [heads][tokens].
template <class Out, class Lse, class O, class L>
struct ScatterHead {
  Out out;
  Lse out_lse;
  O o;
  L lse;
  int head;
  KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
    for (int d = 0; d < int(o.extent(1)); ++d)
      out(t, head, d) =
          MergeAttn::Impl::ValueTraits<typename Out::value_type>::from_compute(o(t, d));
    out_lse(head, t) = lse(t);
  }
};

// Attention of q [n][dk] against k [keys][dk], v [keys][dv] into (out[:, head, :], lse[head, :]).
template <class Exec, class Out, class Lse>
void attention(const Mat<Exec>& q, const Mat<Exec>& k, const Mat<Exec>& v, const Out& out,
               const Lse& out_lse, int head) {
  const int n = int(q.extent(0)), keys = int(k.extent(0));
  Mat<Exec> s("scores", n, keys), o("o", n, v.extent(1));
  Kokkos::View<float*, DeviceMemory<Exec>> lse("lse", n);
  KokkosBlas::gemm("N", "T", 1.0f / std::sqrt(float(q.extent(1))), q, k, 0.0f, s);
  Kokkos::parallel_for("softmax", Kokkos::RangePolicy<Exec>(0, n),
                       SoftmaxRows<Mat<Exec>, decltype(lse)>{s, lse});
  KokkosBlas::gemm("N", "N", 1.0f, s, v, 0.0f, o);
  Kokkos::parallel_for("scatter", Kokkos::RangePolicy<Exec>(0, n),
                       ScatterHead<Out, Lse, Mat<Exec>, decltype(lse)>{out, out_lse, o, lse, head});
  Kokkos::fence();
}

template <class Exec>
Mat<Exec> random_matrix(const char* label, int rows, int cols, std::mt19937_64& rng, float scale) {
  std::vector<float> h(std::size_t(rows) * cols);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (float& x : h) x = u(rng);
  Mat<Exec> m(std::string(label), rows, cols);
  upload<Exec>(m, h);
  return m;
}

template <class Exec>
class MergeLaw : public ::testing::Test {};
TYPED_TEST_SUITE(MergeLaw, Backends, BackendNames);

template <class Exec, class T>
void check_merge_law(int queries, int heads, int keys, int dk, int dv, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int split = 1 + int(rng() % std::uint64_t(keys - 1));  // both parts non-empty
  using Out = Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  using Lse = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  Out full("full", queries, heads, dv), part1("part1", queries, heads, dv),
      part2("part2", queries, heads, dv), merged("merged", queries, heads, dv);
  Lse full_lse("full_lse", heads, queries), lse1("lse1", heads, queries),
      lse2("lse2", heads, queries), merged_lse("merged_lse", heads, queries);
  float max_abs_v = 2.0f;
  for (int h = 0; h < heads; ++h) {
    const auto q = random_matrix<Exec>("q", queries, dk, rng, 2.0f);
    const auto k = random_matrix<Exec>("k", keys, dk, rng, 2.0f);
    const auto v = random_matrix<Exec>("v", keys, dv, rng, max_abs_v);
    const auto first = std::make_pair(0, split), second = std::make_pair(split, keys);
    attention<Exec>(q, k, v, full, full_lse, h);
    attention<Exec>(q, Mat<Exec>(Kokkos::subview(k, first, Kokkos::ALL)),
                    Mat<Exec>(Kokkos::subview(v, first, Kokkos::ALL)), part1, lse1, h);
    attention<Exec>(q, Mat<Exec>(Kokkos::subview(k, second, Kokkos::ALL)),
                    Mat<Exec>(Kokkos::subview(v, second, Kokkos::ALL)), part2, lse2, h);
  }
  MergeAttn::merge_attn_states(Exec(), merged, part1, lse1, part2, lse2, merged_lse);
  Exec().fence();
  const auto got = download<Exec>(merged), want = download<Exec>(full);
  const auto p1 = download<Exec>(part1), p2 = download<Exec>(part2);
  const auto got_lse = download<Exec>(merged_lse), want_lse = download<Exec>(full_lse);
  const auto l1 = download<Exec>(lse1), l2 = download<Exec>(lse2);
  std::int64_t bad = 0;
  for (int t = 0; t < queries; ++t)
    for (int h = 0; h < heads; ++h) {
      const RefPair w = reference_pair(l1[h * queries + t], l2[h * queries + t]);
      ASSERT_EQ(w.mode, RefMode::weighted);
      for (int d = 0; d < dv; ++d) {
        const std::size_t i = (std::size_t(t) * heads + h) * dv + d;
        const double mag = std::fabs(w.wp * to_double(p1[i])) + std::fabs(w.ws * to_double(p2[i]));
        const double err = std::fabs(to_double(got[i]) - to_double(want[i]));
        if (!(err <= merge_law_tolerance<T>(mag, max_abs_v, keys)) && ++bad <= 5)
          ADD_FAILURE() << Exec::name() << " " << value_type_name<T>() << ": merged(" << t << ","
                        << h << "," << d << ") = " << to_double(got[i]) << ", unsplit "
                        << to_double(want[i]) << " (split at " << split << " of " << keys << ")";
      }
      const double lerr = std::fabs(got_lse[h * queries + t] - want_lse[h * queries + t]);
      if (!(lerr <= 16.0 * lse_tolerance<float>(want_lse[h * queries + t])) && ++bad <= 5)
        ADD_FAILURE() << Exec::name() << ": merged LSE " << got_lse[h * queries + t] << ", unsplit "
                      << want_lse[h * queries + t];
    }
  EXPECT_EQ(bad, 0);
}

TYPED_TEST(MergeLaw, SplitAttentionMergesToUnsplit) {
  for_each_value_type([&](auto v) {
    check_merge_law<TypeParam, decltype(v)>(17, 3, 200, 64, 64, 31);
    check_merge_law<TypeParam, decltype(v)>(5, 2, 1000, 32, 96, 32);
  });
}

}  // namespace
