// Edge cases of the merge's semantics, each its own test, on every enabled backend.
#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;

template <class Exec>
class MergeEdgeCases : public ::testing::Test {};
TYPED_TEST_SUITE(MergeEdgeCases, Backends, BackendNames);

// Runs `p` (per value type, built by make) with options `o` on Exec and checks the reference.
template <class Exec, class Make>
void run_all_types(const std::string& name, Make&& make, const RunOptions& o = RunOptions{}) {
  for_each_value_type([&](auto value) {
    using T = decltype(value);
    const HostProblem<T> p = make(T{});
    const auto r = run_merge<Exec>(p, o);
    check_against_reference(
        p, r, name + " " + Exec::name() + " " + value_type_name<T>() + " " + describe(o));
  });
}

constexpr float kInf = std::numeric_limits<float>::infinity();

TYPED_TEST(MergeEdgeCases, TenPercentPlusInfInEachSide) {
  LseRecipe r;
  r.plus_inf_fraction = 0.1;
  for (Layout l : {Layout::right, Layout::left}) {
    RunOptions o;
    o.layout = l;
    run_all_types<TypeParam>(
        "TenPercentPlusInf", [&](auto v) { return make_problem<decltype(v)>(256, 8, 128, 11, r); },
        o);
  }
}

TYPED_TEST(MergeEdgeCases, BothPlusInfGiveZeroAndMinusInf) {
  run_all_types<TypeParam>("BothPlusInf", [&](auto v) {
    auto p = make_problem<decltype(v)>(7, 4, 72, 12);
    std::fill(p.prefix_lse.begin(), p.prefix_lse.end(), kInf);
    std::fill(p.suffix_lse.begin(), p.suffix_lse.end(), kInf);
    return p;
  });
}

TYPED_TEST(MergeEdgeCases, BothMinusInfGiveZeroAndMinusInf) {
  run_all_types<TypeParam>("BothMinusInf", [&](auto v) {
    auto p = make_problem<decltype(v)>(7, 4, 72, 13);
    std::fill(p.prefix_lse.begin(), p.prefix_lse.end(), -kInf);
    std::fill(p.suffix_lse.begin(), p.suffix_lse.end(), -kInf);
    return p;
  });
}

TYPED_TEST(MergeEdgeCases, MixedPlusMinusInfAndFinite) {
  LseRecipe r;
  r.plus_inf_fraction = 0.25;
  r.minus_inf_fraction = 0.25;
  run_all_types<TypeParam>("MixedInf",
                           [&](auto v) { return make_problem<decltype(v)>(613, 4, 64, 14, r); });
}

// The empty side's outputs hold NaN: they must not be read, the other side comes out bit-exact.
TYPED_TEST(MergeEdgeCases, GarbageInEmptySideIsNotRead) {
  for (Layout l : {Layout::right, Layout::stride}) {
    RunOptions o;
    o.layout = l;
    run_all_types<TypeParam>(
        "GarbageInEmptySide",
        [&](auto v) {
          using T = decltype(v);
          auto p = make_problem<T>(64, 4, 96, 15);
          const T nan = from_double<T>(std::nan(""));
          for (std::int64_t t = 0; t < p.tokens; ++t)
            for (std::int64_t h = 0; h < p.heads; ++h) {
              const bool prefix_empty = (t + h) % 2 == 0;
              (prefix_empty ? p.prefix_lse : p.suffix_lse)[p.lse_index(h, t)] =
                  (t % 3 == 0) ? kInf : -kInf;
              for (std::int64_t d = 0; d < p.head_size; ++d)
                (prefix_empty ? p.prefix : p.suffix)[p.out_index(t, h, d)] = nan;
            }
          return p;
        },
        o);
  }
}

TYPED_TEST(MergeEdgeCases, NaNLseTouchesOnlyItsPair) {
  run_all_types<TypeParam>("NaNLse", [&](auto v) {
    auto p = make_problem<decltype(v)>(32, 4, 128, 16);
    p.prefix_lse[p.lse_index(1, 3)] = std::nanf("");
    p.suffix_lse[p.lse_index(2, 5)] = std::nanf("");
    p.prefix_lse[p.lse_index(3, 7)] = std::nanf("");
    p.suffix_lse[p.lse_index(3, 7)] = -kInf;
    return p;
  });
}

TYPED_TEST(MergeEdgeCases, HugeLsesNeverOverflow) {
  run_all_types<TypeParam>("HugeLse", [&](auto v) {
    auto p = make_problem<decltype(v)>(64, 4, 64, 17);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t i = 0; i < p.prefix_lse.size(); ++i) {
      const double base = (i % 2 ? 1e30 : -1e30) * (1.0 + 0.5 * u(rng));
      p.prefix_lse[i] = static_cast<float>(base);
      // differences up to 1e4 where representable, and exactly equal LSEs
      p.suffix_lse[i] = static_cast<float>(i % 3 == 0 ? base : base + 1e4 * u(rng) * 1e24);
    }
    p.prefix_lse[0] = 3.0e38f;
    p.suffix_lse[0] = -3.0e38f;
    p.prefix_lse[1] = 1.0e4f;
    p.suffix_lse[1] = -1.0e4f;
    p.prefix_lse[2] = std::numeric_limits<float>::max();
    p.suffix_lse[2] = std::numeric_limits<float>::max();
    return p;
  });
}

TYPED_TEST(MergeEdgeCases, LargeFiniteDifferencesGiveFiniteResults) {
  // Differences of 1e4 at ordinary magnitudes: one weight underflows to exactly 0.
  run_all_types<TypeParam>("LseDifference1e4", [&](auto v) {
    auto p = make_problem<decltype(v)>(16, 4, 32, 18);
    for (std::size_t i = 0; i < p.prefix_lse.size(); ++i) {
      p.prefix_lse[i] = (i % 2) ? 5000.0f : -5000.0f;
      p.suffix_lse[i] = -p.prefix_lse[i];
    }
    return p;
  });
}

template <class Exec>
void check_zero_extent(std::int64_t tokens, std::int64_t heads) {
  using T = float;
  Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>> out("out", tokens, heads, 64),
      pre("pre", tokens, heads, 64), suf("suf", tokens, heads, 64);
  Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>> pl("pl", heads, tokens),
      sl("sl", heads, tokens), ol("ol", heads, tokens);
  EXPECT_NO_THROW(MergeAttn::merge_attn_states(Exec(), out, pre, pl, suf, sl, ol));
  EXPECT_NO_THROW(MergeAttn::merge_attn_states(Exec(), out, pre, pl, suf, sl));
  Exec().fence();
}

TYPED_TEST(MergeEdgeCases, ZeroTokensOrHeadsIsANoOp) {
  check_zero_extent<TypeParam>(0, 8);
  check_zero_extent<TypeParam>(16, 0);
  check_zero_extent<TypeParam>(0, 0);
  // A real no-op: the output keeps its poison when there is nothing to merge along heads.
  HostProblem<float> p = make_problem<float>(0, 4, 16, 19);
  const auto r = run_merge<TypeParam>(p, RunOptions{});
  EXPECT_TRUE(r.output.empty());
}

TYPED_TEST(MergeEdgeCases, EveryAllowedAliasing) {
  LseRecipe r;
  r.plus_inf_fraction = 0.1;
  r.minus_inf_fraction = 0.1;
  const Alias aliases[] = {Alias::output_is_prefix, Alias::output_is_suffix, Alias::none};
  for (Layout l : {Layout::right, Layout::left, Layout::stride}) {
    for (Alias a : aliases) {
      for (int lse_alias = 0; lse_alias < 3; ++lse_alias) {
        if (a == Alias::none && lse_alias == 0) continue;
        RunOptions o;
        o.layout = l;
        o.alias = a;
        o.lse_in_place_prefix = lse_alias == 1;
        o.lse_in_place_suffix = lse_alias == 2;
        o.const_inputs = (lse_alias % 2) == 0;
        run_all_types<TypeParam>(
            "Aliasing", [&](auto v) { return make_problem<decltype(v)>(96, 4, 80, 20, r); }, o);
      }
    }
  }
}

TYPED_TEST(MergeEdgeCases, StridedSubviewsOfEveryHeadSizeKind) {
  // LayoutStride with rows that are (head size multiple of 8) and are not (padded) 16-byte aligned.
  for (std::int64_t d : {7, 64, 100, 192}) {
    RunOptions o;
    o.layout = Layout::stride;
    run_all_types<TypeParam>(
        "StridedSubview", [&](auto v) { return make_problem<decltype(v)>(33, 3, d, 21 + d); }, o);
  }
}

// A sub-view offset by one element: misaligned for 16-byte loads, so the general path must run.
template <class Exec, class T>
void check_offset_by_one() {
  const std::int64_t n = 40, h = 4, d = 64;
  const auto p = make_problem<T>(n, h, d, 22);
  using Full = Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  Full pre_parent("pre", n, h, d + 1), suf_parent("suf", n, h, d + 1),
      out_parent("out", n, h, d + 1);
  const auto sub = std::make_pair(std::int64_t(1), d + 1);
  auto pre = Kokkos::subview(pre_parent, Kokkos::ALL, Kokkos::ALL, sub);
  auto suf = Kokkos::subview(suf_parent, Kokkos::ALL, Kokkos::ALL, sub);
  auto out = Kokkos::subview(out_parent, Kokkos::ALL, Kokkos::ALL, sub);
  ASSERT_NE(reinterpret_cast<std::uintptr_t>(out.data()) % 16, 0u);
  upload<Exec>(pre, p.prefix);
  upload<Exec>(suf, p.suffix);
  Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>> pl("pl", h, n), sl("sl", h, n),
      ol("ol", h, n);
  upload<Exec>(pl, p.prefix_lse);
  upload<Exec>(sl, p.suffix_lse);
  MergeAttn::merge_attn_states(Exec(), out, pre, pl, suf, sl, ol);
  Exec().fence();
  HostResult<T> r{download<Exec>(out), download<Exec>(ol)};
  check_against_reference(p, r,
                          std::string("OffsetByOne ") + Exec::name() + " " + value_type_name<T>());
}

TYPED_TEST(MergeEdgeCases, SubviewOffsetByOneElement) {
  for_each_value_type([&](auto v) { check_offset_by_one<TypeParam, decltype(v)>(); });
}

// LSE Views of double (inputs and output_lse; separate and in place): the LSEs are read and written
// through their own type. The double result is narrowed to float for the float-LSE reference (the
// merge computes in float for 16-bit and float outputs, in double for double outputs).
template <class Exec, class T>
void check_double_lse(const bool in_place) {
  LseRecipe recipe;
  recipe.plus_inf_fraction = 0.1;
  recipe.minus_inf_fraction = 0.05;
  const auto p = make_problem<T>(41, 3, 40, 77, recipe);
  using V = Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
  using L = Kokkos::View<double**, Kokkos::LayoutLeft, DeviceMemory<Exec>>;
  V pre("pre", p.tokens, p.heads, p.head_size), suf("suf", p.tokens, p.heads, p.head_size),
      out("out", p.tokens, p.heads, p.head_size);
  L pl("pl", p.heads, p.tokens), sl("sl", p.heads, p.tokens), ol("ol", p.heads, p.tokens);
  upload<Exec>(pre, p.prefix);
  upload<Exec>(suf, p.suffix);
  // LayoutLeft on the host side too: fill through a mirror, element by element.
  auto hpl = Kokkos::create_mirror_view(pl);
  auto hsl = Kokkos::create_mirror_view(sl);
  for (std::int64_t h = 0; h < p.heads; ++h)
    for (std::int64_t t = 0; t < p.tokens; ++t) {
      hpl(h, t) = p.prefix_lse[p.lse_index(h, t)];
      hsl(h, t) = p.suffix_lse[p.lse_index(h, t)];
    }
  Kokkos::deep_copy(pl, hpl);
  Kokkos::deep_copy(sl, hsl);
  const L olse = in_place ? pl : ol;
  MergeAttn::merge_attn_states(Exec(), out, pre, pl, suf, sl, olse);
  Exec().fence();
  HostResult<T> r{download<Exec>(out), std::vector<float>(p.prefix_lse.size())};
  auto hol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), olse);
  for (std::int64_t h = 0; h < p.heads; ++h)
    for (std::int64_t t = 0; t < p.tokens; ++t)
      r.output_lse[p.lse_index(h, t)] = static_cast<float>(hol(h, t));
  check_against_reference(p, r,
                          std::string("DoubleLse ") + Exec::name() + " " + value_type_name<T>() +
                              (in_place ? " output_lse==prefix_lse" : ""));
}

TYPED_TEST(MergeEdgeCases, DoubleLseViews) {
  for_each_value_type([&](auto v) {
    check_double_lse<TypeParam, decltype(v)>(false);
    check_double_lse<TypeParam, decltype(v)>(true);
  });
}

}  // namespace

namespace {

// The run-time choice between the 16-byte pack path and the general path.
TEST(MergeDispatch, PacksOnlyForUnitStrideAlignedRows) {
  using MergeAttnTest::DeviceMemory;
  using HostExec = Kokkos::DefaultHostExecutionSpace;
  using Right = Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<HostExec>>;
  using Left = Kokkos::View<float***, Kokkos::LayoutLeft, DeviceMemory<HostExec>>;
  auto desc = [](const auto& v) { return MergeAttn::Impl::describe_view("v", v); };
  Right a("a", 4, 3, 128), b("b", 4, 3, 128), c("c", 4, 3, 128);
  EXPECT_TRUE(MergeAttn::Impl::can_use_packs(16, desc(a), desc(b), desc(c)));
  Left l("l", 4, 3, 128);
  EXPECT_FALSE(MergeAttn::Impl::can_use_packs(16, desc(a), desc(l), desc(c)));
  Right odd("odd", 4, 3, 102);  // rows of 408 bytes: row starts not all 16-byte aligned
  EXPECT_FALSE(MergeAttn::Impl::can_use_packs(16, desc(odd), desc(odd), desc(odd)));
  Right wide("wide", 4, 3, 129);
  auto shifted = Kokkos::subview(wide, Kokkos::ALL, Kokkos::ALL, std::make_pair(1, 129));
  EXPECT_FALSE(MergeAttn::Impl::can_use_packs(16, desc(a), desc(shifted), desc(c)));
  Right parent("parent", 4, 5, 128);  // a head range of a wider tensor keeps aligned rows
  auto heads = Kokkos::subview(parent, Kokkos::ALL, std::make_pair(1, 4), Kokkos::ALL);
  EXPECT_TRUE(MergeAttn::Impl::can_use_packs(16, desc(heads), desc(b), desc(c)));
}

}  // namespace
