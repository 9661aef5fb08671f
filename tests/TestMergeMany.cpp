// Beyond two states, on every backend against a double reference: the N-way merge (S from 1 to
// 1024, random empty states, all-empty tokens), N = 2 against the 2-way merge, the variable-length
// merge (ragged offsets with zero-length tokens, offset checks), the masked in-place merge, and the
// LSE conventions (base 2, [tokens][heads]).
#include <utility>

#include "MergeAttnManyUtils.hpp"

namespace {

using namespace MergeAttnTest;

/// The double reference for one (token, head) over states with LSEs `l` (in `base2` or natural).
struct ManyRef {
  RefMode mode = RefMode::zero;
  std::int64_t copy_of = -1;
  std::vector<double> w;
  double lse = -std::numeric_limits<double>::infinity();
};

inline ManyRef reference_many(const std::vector<float>& l, const bool base2) {
  const double inf = std::numeric_limits<double>::infinity();
  ManyRef r;
  r.w.assign(l.size(), 0.0);
  double m = -inf;
  std::int64_t live = 0, arg = -1;
  for (std::size_t i = 0; i < l.size(); ++i) {
    double x = l[i];
    if (x == inf) x = -inf;
    if (std::isnan(x)) {
      r.mode = RefMode::nan;
      r.lse = std::nan("");
      return r;
    }
    if (x == -inf) continue;
    ++live;
    if (x > m) {
      m = x;
      arg = static_cast<std::int64_t>(i);
    }
  }
  if (live == 0) return r;
  if (live == 1) {
    r.mode = RefMode::copy_prefix;  // "copy state copy_of"
    r.copy_of = arg;
    r.lse = m;
    return r;
  }
  r.mode = RefMode::weighted;
  double sum = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const double x = l[i];
    if (x == inf || x == -inf) continue;
    r.w[i] = base2 ? std::exp2(x - m) : std::exp(x - m);
    sum += r.w[i];
  }
  for (auto& w : r.w) w /= sum;
  r.lse = m + (base2 ? std::log2(sum) : std::log(sum));
  return r;
}

/// Checks a merge of many states: `lses(t, h)` gives the states' LSEs, `row(t, h, i, d)` the value
/// of state i, `out(t, h, d)` and `out_lse(t, h)` (NaN when there is no output_lse) the result.
/// Tokens for which `skip(t)` is true are not checked.
template <class T, class Lses, class Row, class Out, class OutLse,
          class Skip = bool (*)(std::int64_t)>
std::int64_t check_many(
    std::int64_t tokens, std::int64_t heads, std::int64_t d_size, Lses&& lses, Row&& row, Out&& out,
    OutLse&& out_lse, const bool has_lse, const bool base2, const std::string& context,
    Skip skip = [](std::int64_t) { return false; }) {
  std::int64_t bad = 0;
  auto report = [&](const std::string& what) {
    if (++bad <= 5) ADD_FAILURE() << context << ": " << what;
  };
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t h = 0; h < heads && !skip(t); ++h) {
      const std::vector<float> l = lses(t, h);
      const ManyRef ref = reference_many(l, base2);
      std::int64_t live = 0;
      for (float x : l) live += (x != kInf && x != -kInf) ? 1 : 0;
      for (std::int64_t d = 0; d < d_size; ++d) {
        const T got = out(t, h, d);
        const double g = to_double(got);
        bool ok = true;
        double want = 0, tol = 0;
        if (ref.mode == RefMode::copy_prefix) {
          const T src = row(t, h, ref.copy_of, d);
          ok = same_bits(got, src);
          want = to_double(src);
        } else if (ref.mode == RefMode::zero) {
          ok = g == 0.0 && !std::signbit(g);
        } else if (ref.mode == RefMode::nan) {
          ok = std::isnan(g);
        } else {
          double mag = 0;
          for (std::size_t i = 0; i < l.size(); ++i) {
            if (ref.w[i] == 0) continue;
            const double x = to_double(row(t, h, static_cast<std::int64_t>(i), d));
            want += ref.w[i] * x;
            mag += std::fabs(ref.w[i] * x);
          }
          tol = many_output_tolerance<T>(want, mag, live);
          ok = std::fabs(g - want) <= tol;
        }
        if (!ok) {
          std::ostringstream s;
          s.precision(10);
          s << "output(" << t << "," << h << "," << d << ") = " << g << ", expected " << want
            << " (tolerance " << tol << ", " << l.size() << " states)";
          report(s.str());
        }
      }
      if (has_lse) {
        const double g = out_lse(t, h);
        bool ok;
        if (ref.mode == RefMode::nan)
          ok = std::isnan(g);
        else if (ref.mode == RefMode::zero || ref.mode == RefMode::copy_prefix)
          ok = g == ref.lse;
        else
          ok = std::fabs(g - ref.lse) <= many_lse_tolerance<float>(ref.lse, live);
        if (!ok) {
          std::ostringstream s;
          s.precision(10);
          s << "output_lse(" << t << "," << h << ") = " << g << ", expected " << ref.lse;
          report(s.str());
        }
      }
    }
  if (bad > 5) ADD_FAILURE() << context << ": " << bad << " mismatches in all";
  return bad;
}

/// Runs the N-way merge of `p` on Exec with Views of layout KL (with a forced launch shape, or
/// nullptr: the built-in one) and checks it; returns the outputs, copied to the host.
template <class Exec, class T, class KL>
auto run_nway_checked(const ManyProblem<T>& p, const MergeAttn::MergeOptions& opt, bool with_lse,
                      const std::string& context,
                      const MergeAttn::Impl::LaunchShape* shape = nullptr) {
  const bool th = opt.lse_layout == MergeAttn::LseLayout::tokens_heads;
  const bool base2 = opt.lse_base == MergeAttn::LseBase::base2;
  using V4 = Kokkos::View<T****, KL, DeviceMemory<Exec>>;
  using V3 = Kokkos::View<T***, KL, DeviceMemory<Exec>>;
  using L3 = Kokkos::View<float***, KL, DeviceMemory<Exec>>;
  using L2 = Kokkos::View<float**, KL, DeviceMemory<Exec>>;
  V4 states("states", p.states, p.tokens, p.heads, p.head_size);
  L3 lse("lse", p.states, th ? p.tokens : p.heads, th ? p.heads : p.tokens);
  V3 out("out", p.tokens, p.heads, p.head_size);
  L2 olse("olse", th ? p.tokens : p.heads, th ? p.heads : p.tokens);
  fill_view(states, [&](auto s, auto t, auto h, auto d) { return p.x[p.xi(s, t, h, d)]; });
  fill_view(lse, [&](auto s, auto a, auto b) {
    return th ? p.lse[p.li(s, b, a)] : p.lse[p.li(s, a, b)];
  });
  fill_view(out, [&](auto, auto, auto) { return nan_value<T>(); });
  fill_view(olse, [&](auto, auto) { return std::nanf(""); });
  const Exec exec;
  const Kokkos::View<const T****, KL, DeviceMemory<Exec>> cstates = states;
  if (shape != nullptr)
    MergeAttn::Impl::merge_attn_states_nway_impl(exec, out, cstates, lse, olse, opt, shape);
  else if (with_lse)
    MergeAttn::merge_attn_states(exec, out, cstates, lse, olse, opt);
  else
    MergeAttn::merge_attn_states(exec, out, cstates, lse, opt);
  exec.fence();
  const auto ho = to_host(out);
  const auto hl = to_host(olse);
  check_many<T>(
      p.tokens, p.heads, p.head_size,
      [&](std::int64_t t, std::int64_t h) {
        std::vector<float> l(static_cast<std::size_t>(p.states));
        for (std::int64_t s = 0; s < p.states; ++s) l[s] = p.lse[p.li(s, h, t)];
        return l;
      },
      [&](std::int64_t t, std::int64_t h, std::int64_t s, std::int64_t d) {
        return p.x[p.xi(s, t, h, d)];
      },
      [&](std::int64_t t, std::int64_t h, std::int64_t d) { return ho(t, h, d); },
      [&](std::int64_t t, std::int64_t h) { return th ? hl(t, h) : hl(h, t); }, with_lse, base2,
      context);
  return std::make_pair(ho, hl);
}

template <class Exec>
class MergeMany : public ::testing::Test {};
TYPED_TEST_SUITE(MergeMany, Backends, BackendNames);

TYPED_TEST(MergeMany, NWayAgainstReference) {
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    std::uint64_t seed = 900;
    for (std::int64_t S : {1, 2, 3, 5, 17, 32, 55, 97, 133, 1024}) {
      const std::int64_t d = S % 2 ? 36 : 64;  // 36: a tail after the packs for every type
      const auto p = make_many<T>(S, 6, 3, d, seed++, 0.2, {2});
      const std::string ctx = std::string("NWay S=") + std::to_string(S) + " " + TypeParam::name() +
                              " " + value_type_name<T>();
      run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, true, ctx + " LayoutRight");
      if (S == 1 || S == 17 || S == 97) {
        run_nway_checked<TypeParam, T, Kokkos::LayoutLeft>(p, {}, true, ctx + " LayoutLeft");
        run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, false, ctx + " no output_lse");
      }
    }
  });
}

// N-state launches on GPUs have launch bounds of 128 threads per team: a forced shape above that is
// refused before any launch (the built-in shapes never exceed it); on host spaces a team larger
// than the thread pool is refused too.
TYPED_TEST(MergeMany, NWayForcedShapeAboveLaunchBoundsIsRefused) {
  using Mem = DeviceMemory<TypeParam>;
  constexpr bool host_like = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  Kokkos::View<float****, Kokkos::LayoutRight, Mem> states("states", 3, 4, 2, 32);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> lse("lse", 3, 2, 4);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> out("out", 4, 2, 32);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> olse("olse", 2, 4);
  const MergeAttn::Impl::LaunchShape fits =
      host_like ? MergeAttn::Impl::LaunchShape{1, 1} : MergeAttn::Impl::LaunchShape{16, 8};
  MergeAttn::Impl::merge_attn_states_nway_impl(TypeParam(), out, states, lse, olse, {}, &fits);
  TypeParam().fence();
  EXPECT_NEAR(to_host(olse)(1, 3), std::log(3.0f), 1e-6f);  // three states of LSE 0
  if constexpr (host_like) {
    // A host team larger than the thread pool: refused (Kokkos' policy constructor would abort).
    const MergeAttn::Impl::LaunchShape too_many{TypeParam().concurrency() + 1, 1};
    try {
      MergeAttn::Impl::merge_attn_states_nway_impl(TypeParam(), out, states, lse, olse, {},
                                                   &too_many);
      ADD_FAILURE() << "a host team larger than the thread pool was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("team threads"), std::string::npos) << e.what();
    }
  } else {
    const MergeAttn::Impl::LaunchShape too_big{32, 8};
    try {
      MergeAttn::Impl::merge_attn_states_nway_impl(TypeParam(), out, states, lse, olse, {},
                                                   &too_big);
      ADD_FAILURE() << "a 256-thread N-state launch shape was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("at most 128 threads"), std::string::npos) << e.what();
    }
    // LanePairs K = 8 with 16 team threads and double weights: 128 pairs' weight caches, 37888
    // bytes of team scratch per team; the launch bounds' 7 teams per multiprocessor would need
    // ~265 KB of shared memory, more than any CUDA device has (H200: 228 KB).
    Kokkos::View<double****, Kokkos::LayoutRight, Mem> dstates("dstates", 3, 4, 2, 32);
    Kokkos::View<double***, Kokkos::LayoutRight, Mem> dout("dout", 4, 2, 32);
    const MergeAttn::Impl::LaunchShape no_room{16, 8, 1, 8};
    try {
      MergeAttn::Impl::merge_attn_states_nway_impl(TypeParam(), dout, dstates, lse, olse, {},
                                                   &no_room);
      ADD_FAILURE() << "an N-state LanePairs shape beyond the shared memory was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("bytes of team scratch"), std::string::npos) << e.what();
    }
  }
}

// The teams per multiprocessor the launch bounds of each N-state form ask for: 8 for the 16-bit
// LanePairs forms in batches of 2 states (with or without the state ring), 6 for those in batches
// of 4, 7 for every other form and for 4-byte values.
TEST(MergeManyShape, LaunchBoundsPerForm) {
  using MergeAttn::Impl::LanePairs;
  using MergeAttn::Impl::nway_min_teams;
  using MergeAttn::Impl::PairsPerThread;
  using bf16 = MergeAttn::bfloat16_t;
  EXPECT_EQ((nway_min_teams<bf16, LanePairs<8, true, 2>>()), 8);
  EXPECT_EQ((nway_min_teams<bf16, LanePairs<8, true, 2, true>>()), 8);
  EXPECT_EQ((nway_min_teams<bf16, LanePairs<8, true>>()), 6);
  EXPECT_EQ((nway_min_teams<bf16, LanePairs<8, true, 4, true>>()), 6);
  EXPECT_EQ((nway_min_teams<bf16, PairsPerThread<2>>()), 7);
  EXPECT_EQ((nway_min_teams<float, LanePairs<8>>()), 7);
  EXPECT_EQ((nway_min_teams<float, PairsPerThread<1, true>>()), 7);
}

// The rule that picks the built-in N-state LanePairs form only where its team scratch leaves room
// for the launch bounds' teams (numbers worked by hand: 1024 bytes the driver reserves per block,
// 512 for Kokkos).
TEST(MergeManyShape, TeamsPerSharedMemory) {
  using MergeAttn::Impl::teams_per_shared_memory;
  // 16 team threads x K = 8 pairs, 35 weight fields and 2 64-bit codes per pair: float weights
  // 16 * 8 * (35 * 4 + 2 * 8) = 19968 bytes; H200 / H100: 233472 bytes per multiprocessor ->
  // 233472 / (19968 + 1024 + 512) = 10.9 teams.
  EXPECT_EQ(teams_per_shared_memory(233472, 1024, 19968), 10);
  // An sm_86 / sm_89 GPU, 102400 bytes per multiprocessor: 4.8 teams, fewer than the 6 the launch
  // bounds ask for 16-bit values (nway_min_teams), so the built-in shape runs as two pairs per
  // thread there.
  EXPECT_EQ(teams_per_shared_memory(102400, 1024, 19968), 4);
  // double weights: 16 * 8 * (35 * 8 + 2 * 8) = 37888 bytes -> 5.9 teams even on the H200 (the
  // launch bounds of 8-byte values ask for 7).
  EXPECT_EQ(teams_per_shared_memory(233472, 1024, 37888), 5);
  EXPECT_EQ(teams_per_shared_memory(233472, 1024, 0), 152);
  // 16-bit rows of 8 vector lanes with the state ring in batches of 2 (8 slots of 16 bytes per
  // lane, 16 x 8 lanes: 16400 bytes with the alignment pack), float weights for S states: 16 * 8 *
  // (S + 3) * 4 + 4 bytes of fields, 16 * 8 * 2 * 8 + 8 of codes: S = 14 takes 27164 bytes of
  // team scratch, 8 teams fit; S = 15 takes 27676, 7 do (the launch bounds ask for 8: the
  // built-in shape takes the ring in batches of 4 instead, fit_lane_form below).
  EXPECT_EQ(teams_per_shared_memory(233472, 1024, 16 * 8 * 17 * 4 + 4 + 2056 + 16400), 8);
  EXPECT_EQ(teams_per_shared_memory(233472, 1024, 16 * 8 * 18 * 4 + 4 + 2056 + 16400), 7);
}

// The form a built-in 16-bit N-state LanePairs launch falls back to where its teams do not fit:
// the ring kept in batches of 4 before the batches of 2 without it.
TEST(MergeManyShape, LaneFormFallbackKeepsTheRing) {
  using MergeAttn::Impl::fit_lane_form;
  const auto run = [](bool narrow, bool ring, auto fits) {
    const bool ok = fit_lane_form(narrow, ring, fits);
    return std::to_string(ok) + std::to_string(narrow) + std::to_string(ring);
  };
  const auto all = [](bool, bool) { return true; };
  const auto none = [](bool, bool) { return false; };
  const auto no_narrow_ring = [](bool narrow, bool ring) { return !(narrow && ring); };
  const auto no_ring = [](bool, bool ring) { return !ring; };
  const auto wide_plain = [](bool narrow, bool ring) { return !narrow && !ring; };
  EXPECT_EQ(run(true, true, all), "111");
  EXPECT_EQ(run(false, true, all), "101");
  EXPECT_EQ(run(true, false, all), "110");
  EXPECT_EQ(run(false, false, all), "100");
  EXPECT_EQ(run(true, true, no_narrow_ring), "101");  // S = 15 on the H200
  EXPECT_EQ(run(true, true, no_ring), "110");
  EXPECT_EQ(run(true, true, wide_plain), "100");
  EXPECT_EQ(run(true, false, wide_plain), "100");
  EXPECT_EQ(run(true, true, none).substr(0, 1), "0");
  EXPECT_EQ(run(false, false, none).substr(0, 1), "0");
}

// The N-state weight cache on GPU-like spaces (the forms other than LanePairs): as many states as
// the launch has, at most 1 KB of LSEs and weights per team thread (128 states with float weights,
// 64 with double ones), the most when the count varies per token (variable length); its team
// scratch follows. Host spaces keep none. (Beyond it the kernel reloads LSEs and recomputes
// weights: the S = 133 and 1024 cases above.)
template <class Exec, class T>
void check_weight_cache(const std::int64_t S, const int want) {
  using Mem = DeviceMemory<Exec>;
  using Out = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using States = Kokkos::View<T****, Kokkos::LayoutRight, Mem>;
  using Lse = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using Stacked = MergeAttn::Impl::StackedStates<States, Lse>;
  using F = MergeAttn::Impl::MergeFunctor<Exec, Out, MergeAttn::Impl::NoOutputLse, Stacked, true>;
  const Out out("out", 2, 1, 8);
  const F f(out, {}, Stacked{States("states", S, 2, 1, 8), Lse("lse", S, 1, 2)}, {});
  EXPECT_EQ(f.cache_states(), want) << "S = " << S << " " << value_type_name<T>();
  EXPECT_EQ(f.scratch_bytes(16, 0), want == 0 ? 0 : F::scratch_view::shmem_size(16, 2 * want))
      << "S = " << S << " " << value_type_name<T>();
  // The LanePairs<8> form: 32 weights per pair (with the state ring as many as the states, at
  // most 32), m, inv and fill; the mode and state index; the ring's 16-byte slots per thread and
  // one to align them.
  if (want > 0) {
    const int lane = static_cast<int>(std::min<std::int64_t>(S, 32));
    EXPECT_EQ(f.lane_cache(), lane) << "S = " << S << " " << value_type_name<T>();
    const std::size_t index = F::index_scratch_view::shmem_size(16, 2 * 8);
    EXPECT_EQ(f.scratch_bytes(16, 8), F::scratch_view::shmem_size(16, 35 * 8) + index)
        << "S = " << S << " " << value_type_name<T>();
    EXPECT_EQ(f.scratch_bytes(16, 8, 12),
              F::scratch_view::shmem_size(16, (lane + 3) * 8) + index + (16 * 12 + 1) * 16)
        << "S = " << S << " " << value_type_name<T>();  // vector length 1
  }
}

TYPED_TEST(MergeMany, WeightCacheHoldsTheLaunchStates) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
  const auto want = [&](const std::int64_t S, const std::int64_t most) {
    return host_like ? 0 : static_cast<int>(std::min(S, most));
  };
  for (std::int64_t S : {3, 64, 65, 128, 129, 1024}) {
    check_weight_cache<TypeParam, float>(S, want(S, 128));
    check_weight_cache<TypeParam, MergeAttn::bfloat16_t>(S, want(S, 128));
    check_weight_cache<TypeParam, double>(S, want(S, 64));
  }
  using Mem = DeviceMemory<TypeParam>;
  using Out = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using Packed = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using Lse = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  using Indptr = Kokkos::View<std::int64_t*, Mem>;
  using Varlen = MergeAttn::Impl::VarlenStates<Packed, Lse, Indptr>;
  using F =
      MergeAttn::Impl::MergeFunctor<TypeParam, Out, MergeAttn::Impl::NoOutputLse, Varlen, true>;
  const F f(Out("out", 2, 1, 8), {},
            Varlen{Packed("packed", 5, 1, 8), Lse("lse", 1, 5), Indptr("indptr", 3)}, {});
  EXPECT_EQ(f.cache_states(), host_like ? 0 : 128);
}

// A GPU-like space for the launch-shape rules in every build, a CPU-only one too: memory that is
// not host accessible, which is all choose_launch_shape reads of a space (it launches nothing).
struct GpuLikeMemory {
  using memory_space = GpuLikeMemory;
};
struct GpuLikeSpace {
  using memory_space = GpuLikeMemory;
};
static_assert(!Kokkos::SpaceAccessibility<Kokkos::HostSpace, GpuLikeMemory>::accessible,
              "GpuLikeSpace: its memory must not be host accessible");

// Small N-state launches (a count other than 2, fixed or varying per token (0), at most
// small_nway_pairs pairs: split-KV decode) take a whole warp per pair on GPU-like spaces: 32 vector
// lanes, 4 team threads, one pair each, no prefetch; larger ones and host spaces keep their shapes.
template <class Space>
void expect_small_nway_warp_rule() {
  using MergeAttn::Impl::small_nway_pairs;
  // The built-in shape for values of `size` bytes, rows of 128 values, `heads` heads.
  const auto shape = [](int size, std::int64_t tokens, std::int64_t heads, std::int64_t states) {
    return MergeAttn::Impl::choose_launch_shape<Space>(size, 128 * size / 16, tokens, heads,
                                                       states);
  };
  for (int size : {2, 4, 8})
    for (std::int64_t states : {0, 1, 3, 4, 16, 64, 4096}) {  // 0: varying per token (varlen)
      const std::string ctx =
          "value size " + std::to_string(size) + ", " + std::to_string(states) + " states";
      for (std::int64_t tokens : {std::int64_t(1), std::int64_t(16), small_nway_pairs / 32}) {
        const auto s = shape(size, tokens, 32, states);
        EXPECT_EQ(s.vector_length, 32) << ctx << ", " << tokens << " tokens";
        EXPECT_EQ(s.team_size, 4) << ctx << ", " << tokens << " tokens";
        EXPECT_EQ(s.tokens_per_group, 1) << ctx;
        EXPECT_EQ(s.pairs_per_thread, 1) << ctx;
        EXPECT_FALSE(s.prefetch_states) << ctx;
      }
      // One head: fewer pairs than team threads, so fewer team threads (as the 2-way rule).
      EXPECT_EQ(shape(size, 1, 1, states).vector_length, 32) << ctx;
      EXPECT_EQ(shape(size, 1, 1, states).team_size, 1) << ctx;
      EXPECT_LT(shape(size, small_nway_pairs / 32 + 1, 32, states).vector_length, 32) << ctx;
      EXPECT_LT(shape(size, 256, 32, states).vector_length, 32) << ctx;
    }
  EXPECT_LT(shape(4, 64, 32, 2).vector_length, 32);  // 2-way: its own rule (2^16 items here)
  EXPECT_EQ(shape(2, 64, 32, 2).vector_length, 32);  // 2^15 items
}

// On GpuLikeSpace, in every build: a CPU-only one (CI) checks the rule as well.
TEST(MergeManyShape, SmallNWayWarpPerPairOnAGpuLikeSpace) {
  expect_small_nway_warp_rule<GpuLikeSpace>();
}

// Varlen launches of float values on the GPU-like space `Space` take a warp per pair up to
// varlen_wide_pairs pairs, with at least varlen_wide_mean_states states per token on average, or
// at least varlen_mid_mean_states from varlen_mid_pairs pairs on, one pair per team thread also
// from large_launch_pairs on; fewer states on average, other value types, a fixed count and larger
// launches keep their shapes.
template <class Space>
void expect_varlen_warp_rule() {
  using MergeAttn::Impl::large_launch_pairs;
  using MergeAttn::Impl::varlen_mid_mean_states;
  using MergeAttn::Impl::varlen_mid_pairs;
  using MergeAttn::Impl::varlen_wide_mean_states;
  using MergeAttn::Impl::varlen_wide_pairs;
  // Rows of 128 values of `size` bytes, 32 heads, `states` per token (0: varying), `mean` of them
  // on average.
  const auto shape = [](int size, std::int64_t tokens, std::int64_t states, std::int64_t mean) {
    return MergeAttn::Impl::choose_launch_shape<Space>(size, 128 * size / 16, tokens, 32, states,
                                                       132, mean);
  };
  const std::int64_t most_tokens = varlen_wide_pairs / 32;
  const std::int64_t mid_tokens = varlen_mid_pairs / 32;
  const std::int64_t large_tokens = large_launch_pairs / 32;
  const std::int64_t many = varlen_wide_mean_states;
  const std::int64_t mid = varlen_mid_mean_states;
  static_assert(varlen_mid_mean_states < varlen_wide_mean_states &&
                    varlen_mid_pairs < large_launch_pairs &&
                    large_launch_pairs <= varlen_wide_pairs && varlen_wide_pairs % 32 == 0 &&
                    varlen_mid_pairs % 32 == 0 && large_launch_pairs % 32 == 0,
                "expect_varlen_warp_rule: the rule's bounds as the test reads them");
  // (tokens, mean) taking a warp per pair: many states from a small launch on, mid-many from
  // varlen_mid_pairs pairs on, both up to varlen_wide_pairs, on both sides of large_launch_pairs.
  const std::pair<std::int64_t, std::int64_t> wide[] = {
      {mid_tokens / 2, many},  {large_tokens - 1, many},  {large_tokens, many},
      {most_tokens, many},     {most_tokens, 4 * many},   {mid_tokens, mid},
      {large_tokens - 1, mid}, {large_tokens, mid},       {most_tokens, mid},
      {mid_tokens, many - 1},  {most_tokens / 2 + 1, mid}};
  for (const auto& [tokens, mean] : wide) {
    const auto s = shape(4, tokens, 0, mean);
    const std::string ctx = std::to_string(tokens) + " tokens, " + std::to_string(mean);
    EXPECT_EQ(s.vector_length, 32) << ctx;
    EXPECT_EQ(s.team_size, 4) << ctx;
    EXPECT_EQ(s.tokens_per_group, 1) << ctx;
    EXPECT_EQ(s.pairs_per_thread, 1) << ctx;
    EXPECT_FALSE(s.prefetch_states) << ctx;
  }
  EXPECT_EQ(shape(4, mid_tokens - 1, 0, mid).vector_length, 8);       // below varlen_mid_pairs
  EXPECT_EQ(shape(4, mid_tokens - 1, 0, many - 1).vector_length, 8);  // the same
  EXPECT_EQ(shape(4, most_tokens, 0, mid - 1).vector_length, 8);
  EXPECT_EQ(shape(4, most_tokens, 0, 0).vector_length, 8);  // average not known
  EXPECT_EQ(shape(4, most_tokens + 1, 0, many).vector_length, 8);
  EXPECT_EQ(shape(4, most_tokens + 1, 0, mid).vector_length, 8);
  EXPECT_EQ(shape(4, most_tokens, many, many).vector_length, 8);  // a fixed count
  EXPECT_EQ(shape(2, most_tokens, 0, many).vector_length, 8);     // 16-bit
  EXPECT_EQ(shape(8, most_tokens, 0, many).vector_length, 16);    // double (4 packs per lane)
  // Past varlen_wide_pairs the 8-lane shape keeps its large-launch form: one pair per team thread
  // (4 packs per lane: no prefetch, no LanePairs).
  EXPECT_EQ(shape(4, most_tokens + 1, 0, many).pairs_per_thread, 1);
}

// On GpuLikeSpace, in every build: a CPU-only one (CI) checks the rule as well.
TEST(MergeManyShape, VarlenWarpPerPairOnAGpuLikeSpace) { expect_varlen_warp_rule<GpuLikeSpace>(); }

// mean_count(): the packed states over the tokens (rounded down; no tokens: 0), the fixed count of
// the other policies.
TYPED_TEST(MergeMany, StatesMeanCount) {
  using Mem = DeviceMemory<TypeParam>;
  using Packed = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using Lse = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  using Indptr = Kokkos::View<std::int64_t*, Mem>;
  using Varlen = MergeAttn::Impl::VarlenStates<Packed, Lse, Indptr>;
  const auto mean = [](std::int64_t total, std::int64_t tokens) {
    return Varlen{Packed("packed", total, 1, 8), Lse("lse", 1, total), Indptr("indptr", tokens + 1)}
        .mean_count();
  };
  EXPECT_EQ(mean(128, 2), 64);
  EXPECT_EQ(mean(127, 2), 63);
  EXPECT_EQ(mean(5, 1), 5);
  EXPECT_EQ(mean(0, 3), 0);
  EXPECT_EQ(mean(7, 0), 0);
  using Stacked = MergeAttn::Impl::StackedStates<Kokkos::View<float****, Kokkos::LayoutRight, Mem>,
                                                 Kokkos::View<float***, Kokkos::LayoutRight, Mem>>;
  const Stacked stacked{Kokkos::View<float****, Kokkos::LayoutRight, Mem>("s", 6, 2, 1, 8),
                        Kokkos::View<float***, Kokkos::LayoutRight, Mem>("l", 6, 1, 2)};
  EXPECT_EQ(stacked.mean_count(), 6);
  EXPECT_EQ(stacked.mean_count(), stacked.uniform_count());
}

// Where the built-in N-state shapes take the L2 row prefetch (choose_launch_shape's rule, H200
// sweeps): GPU-like spaces, at least 2^17 pairs and 4 states of 16-bit or 4-byte values; with
// 16-bit values in the LanePairs form, the state ring from 2^23 row packs per state (then batches
// of 2 below 16 states or with 32 vector lanes), below it by the waves of teams where the device's
// multiprocessors are known, otherwise batches of 2 states for 8-15 states, or 16 and more below
// 2^18 pairs; host spaces never (their shape has no such field set).
template <class Space>
void expect_nway_row_prefetch_rule() {
  using MergeAttn::Impl::choose_launch_shape;
  // The built-in shape for values of `size` bytes, rows of 128 values, 32 heads, on a device of
  // `multiprocessors` (0: not known).
  const auto pf = [](int size, std::int64_t tokens, std::int64_t states, int multiprocessors = 0) {
    return choose_launch_shape<Space>(size, 128 * size / 16, tokens, 32, states, multiprocessors);
  };
  EXPECT_TRUE(pf(2, 16384, 8).prefetch_states);
  EXPECT_EQ(pf(2, 16384, 8).pairs_per_thread, 8);  // LanePairs<8, true>
  EXPECT_TRUE(pf(2, 4096, 64).prefetch_states);
  EXPECT_EQ(pf(2, 4096, 64).pairs_per_thread, 1);  // PairsPerThread<1, true>
  // Rows of one pack per lane (16-bit head size 64 beyond 16 states, float head size 32): one pair
  // per team thread with the prefetch, two without it (3 states).
  EXPECT_TRUE(choose_launch_shape<Space>(2, 8, 4096, 32, 64).prefetch_states);
  EXPECT_EQ(choose_launch_shape<Space>(2, 8, 4096, 32, 64).pairs_per_thread, 1);
  EXPECT_EQ(choose_launch_shape<Space>(2, 8, 4096, 32, 17).pairs_per_thread, 1);
  EXPECT_TRUE(choose_launch_shape<Space>(4, 8, 4096, 32, 64).prefetch_states);
  EXPECT_EQ(choose_launch_shape<Space>(4, 8, 4096, 32, 64).pairs_per_thread, 1);
  EXPECT_EQ(choose_launch_shape<Space>(4, 8, 4096, 32, 8).pairs_per_thread, 1);
  EXPECT_EQ(choose_launch_shape<Space>(4, 8, 4096, 32, 3).pairs_per_thread, 2);
  EXPECT_EQ(choose_launch_shape<Space>(2, 8, 4096, 32, 16).pairs_per_thread, 8);  // LanePairs
  EXPECT_TRUE(pf(4, 16384, 8).prefetch_states);
  EXPECT_TRUE(pf(4, 4096, 1024).prefetch_states);
  EXPECT_TRUE(pf(2, 16384, 4).prefetch_states);  // one batch: the lane's next pack iteration
  EXPECT_TRUE(pf(4, 16384, 4).prefetch_states);
  EXPECT_TRUE(pf(4, 16384, 7).prefetch_states);
  EXPECT_FALSE(pf(2, 16384, 3).prefetch_states);
  EXPECT_FALSE(pf(4, 16384, 3).prefetch_states);
  EXPECT_FALSE(pf(4, 16384, 0).prefetch_states);   // count per token (varlen)
  EXPECT_FALSE(pf(8, 16384, 16).prefetch_states);  // double: not measured
  EXPECT_FALSE(pf(4, 2048, 16).prefetch_states);   // 2^16 pairs
  EXPECT_FALSE(pf(2, 16384, 2).prefetch_states);   // the 2-way merge
  // Batches of 2 states: 16-bit LanePairs<8, true, 2>.
  EXPECT_TRUE(pf(2, 16384, 8).narrow_state_batches);
  EXPECT_TRUE(pf(2, 16384, 15).narrow_state_batches);  // on the H200 without room: fit_lane_form
  EXPECT_TRUE(pf(2, 4096, 16).narrow_state_batches);   // 2^17 pairs
  EXPECT_EQ(pf(2, 4096, 16).pairs_per_thread, 8);
  EXPECT_FALSE(pf(2, 8192, 16).narrow_state_batches);   // 2^18 pairs
  EXPECT_FALSE(pf(2, 16384, 16).narrow_state_batches);  // the ring: batches of 4
  EXPECT_FALSE(pf(2, 8192, 4).narrow_state_batches);
  EXPECT_FALSE(pf(2, 8192, 7).narrow_state_batches);
  EXPECT_TRUE(pf(2, 8192, 8).narrow_state_batches);
  EXPECT_FALSE(pf(2, 4096, 64).narrow_state_batches);  // one pair per team thread
  EXPECT_FALSE(pf(4, 16384, 8).narrow_state_batches);  // float
  EXPECT_FALSE(pf(2, 2048, 8).narrow_state_batches);   // 2^16 pairs: no prefetch
  // The state ring: 16-bit LanePairs<8, true, B>, at least 2^23 row packs per state; then batches
  // of 2 below 16 states or with 32 vector lanes (head size 576 below).
  EXPECT_TRUE(pf(2, 16384, 4).state_ring);  // 2^19 pairs x 16 packs
  EXPECT_TRUE(pf(2, 16384, 4).narrow_state_batches);
  EXPECT_TRUE(pf(2, 16384, 7).narrow_state_batches);
  EXPECT_TRUE(pf(2, 16384, 8).state_ring);
  EXPECT_TRUE(pf(2, 16384, 16).state_ring);
  EXPECT_FALSE(pf(2, 8192, 8).state_ring);   // 2^22 row packs
  EXPECT_FALSE(pf(2, 16384, 3).state_ring);  // no prefetch
  EXPECT_FALSE(pf(2, 16384, 2).state_ring);
  EXPECT_FALSE(pf(4, 16384, 8).state_ring);   // float
  EXPECT_FALSE(pf(2, 16384, 64).state_ring);  // one pair per team thread
  // Head size 576 (72 packs) at 4096 tokens: 2^17 pairs, 9 * 2^20 row packs.
  const auto x576 = [](std::int64_t states) {
    return choose_launch_shape<Space>(2, 72, 4096, 32, states);
  };
  EXPECT_TRUE(x576(8).state_ring);
  EXPECT_TRUE(x576(8).narrow_state_batches);
  EXPECT_TRUE(x576(16).state_ring);
  EXPECT_TRUE(x576(16).narrow_state_batches);  // 32 vector lanes: batches of 2 at 16 states too
  EXPECT_FALSE(choose_launch_shape<Space>(2, 32, 4096, 32, 8).state_ring);  // head size 256
  // Below the ring's threshold, with the device's multiprocessors (132: the H200), by the waves of
  // teams of 16 threads x 8 pairs: batches of 2 without the ring within one wave of 8 teams per
  // multiprocessor; the ring in batches of 2 where the last wave of 6 teams per multiprocessor is
  // less than 0.4 full and the last wave of 8 fuller; otherwise the ring in batches of 4.
  const auto waves = [&pf](int size, std::int64_t tokens, std::int64_t states) {
    return pf(size, tokens, states, 132);
  };
  for (std::int64_t S : {4, 8, 16}) {
    // 4096 tokens: 1024 teams, one wave of 1056.
    EXPECT_TRUE(waves(2, 4096, S).narrow_state_batches) << S;
    EXPECT_FALSE(waves(2, 4096, S).state_ring) << S;
    // 4352 tokens: 1088 teams, 296 in the last wave of 792 (0.37), 32 in the last of 1056.
    EXPECT_FALSE(waves(2, 4352, S).narrow_state_batches) << S;
    EXPECT_TRUE(waves(2, 4352, S).state_ring) << S;
    // 7168 tokens: 1792 teams, 208 in the last wave of 792 (0.26), 736 in the last of 1056.
    EXPECT_TRUE(waves(2, 7168, S).narrow_state_batches) << S;
    EXPECT_TRUE(waves(2, 7168, S).state_ring) << S;
    // 8192 tokens: 2048 teams, 464 in the last wave of 792 (0.59).
    EXPECT_FALSE(waves(2, 8192, S).narrow_state_batches) << S;
    EXPECT_TRUE(waves(2, 8192, S).state_ring) << S;
    // From 2^23 row packs per state the ring's own rule; float, 2^16 pairs: no LanePairs form.
    EXPECT_EQ(waves(2, 16384, S).narrow_state_batches, pf(2, 16384, S).narrow_state_batches) << S;
    EXPECT_TRUE(waves(2, 16384, S).state_ring) << S;
    EXPECT_FALSE(waves(4, 8192, S).state_ring) << S;
    EXPECT_FALSE(waves(4, 8192, S).narrow_state_batches) << S;
    EXPECT_FALSE(waves(2, 2048, S).state_ring) << S;
  }
  // Without the multiprocessors (0): the rule above alone.
  EXPECT_TRUE(pf(2, 7168, 8).narrow_state_batches);
  EXPECT_FALSE(pf(2, 7168, 8).state_ring);
  EXPECT_FALSE(pf(2, 4096, 4).narrow_state_batches);
}

// On GpuLikeSpace, in every build: a CPU-only one (CI) checks the rule as well.
TEST(MergeManyShape, NWayRowPrefetchRuleOnAGpuLikeSpace) {
  expect_nway_row_prefetch_rule<GpuLikeSpace>();
}

// The shape by space, for launches of every rule above: host spaces take one pair per one-thread
// team and none of the GPU forms, whatever the launch; the backend's GPU spaces take what
// GpuLikeSpace takes (choose_launch_shape reads nothing of a space but whether its memory is host
// accessible), so the rules' tests on GpuLikeSpace are theirs too.
TYPED_TEST(MergeMany, LaunchShapeFollowsTheSpace) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
  struct Launch {
    int value_size;
    int vector_iters;
    std::int64_t tokens, heads, states;
    int multiprocessors;
    std::int64_t mean_states;
  };
  using MergeAttn::Impl::varlen_wide_mean_states;
  using MergeAttn::Impl::varlen_wide_pairs;
  // The 2-way merge: small, large, LanePairs, head size 576; small N-way launches, fixed and
  // varying counts; varlen float on both sides of varlen_wide_pairs; the N-way row prefetch, its
  // state ring, two pairs per team thread, the waves rule, head size 576, double.
  const Launch launches[] = {
      {2, 16, 1, 32, 2, 0, 0},
      {4, 32, 65536, 32, 2, 0, 0},
      {2, 8, 65536, 32, 2, 0, 0},
      {2, 72, 4096, 128, 2, 0, 0},
      {4, 32, 16, 32, 64, 0, 0},
      {2, 16, 1, 1, 4096, 0, 0},
      {4, 32, 16, 32, 0, 0, 64},
      {4, 32, varlen_wide_pairs / 32, 32, 0, 132, varlen_wide_mean_states},
      {4, 32, varlen_wide_pairs / 32 + 1, 32, 0, 132, varlen_wide_mean_states},
      {2, 16, 16384, 32, 8, 0, 0},
      {2, 16, 4096, 32, 64, 0, 0},
      {4, 8, 4096, 32, 3, 0, 0},
      {2, 16, 7168, 32, 8, 132, 0},
      {2, 72, 4096, 32, 16, 0, 0},
      {8, 64, 16384, 32, 16, 0, 0}};
  for (const auto& l : launches) {
    const auto s = MergeAttn::Impl::choose_launch_shape<TypeParam>(
        l.value_size, l.vector_iters, l.tokens, l.heads, l.states, l.multiprocessors,
        l.mean_states);
    const std::string ctx = "value size " + std::to_string(l.value_size) + ", " +
                            std::to_string(l.vector_iters) + " items, " + std::to_string(l.tokens) +
                            " x " + std::to_string(l.heads) + ", " + std::to_string(l.states) +
                            " states";
    if constexpr (host_like) {
      EXPECT_EQ(s.team_size, 1) << ctx;
      EXPECT_EQ(s.vector_length, 1) << ctx;
      EXPECT_EQ(s.tokens_per_group, 1) << ctx;
      EXPECT_EQ(s.pairs_per_thread, 1) << ctx;
      EXPECT_FALSE(s.prefetch_rows) << ctx;
      EXPECT_EQ(s.max_resident_threads, 0) << ctx;
      EXPECT_FALSE(s.prefetch_states) << ctx;
      EXPECT_FALSE(s.narrow_state_batches) << ctx;
      EXPECT_FALSE(s.state_ring) << ctx;
    } else {
      const auto g = MergeAttn::Impl::choose_launch_shape<GpuLikeSpace>(
          l.value_size, l.vector_iters, l.tokens, l.heads, l.states, l.multiprocessors,
          l.mean_states);
      EXPECT_EQ(s.team_size, g.team_size) << ctx;
      EXPECT_EQ(s.vector_length, g.vector_length) << ctx;
      EXPECT_EQ(s.tokens_per_group, g.tokens_per_group) << ctx;
      EXPECT_EQ(s.pairs_per_thread, g.pairs_per_thread) << ctx;
      EXPECT_EQ(s.prefetch_rows, g.prefetch_rows) << ctx;
      EXPECT_EQ(s.max_resident_threads, g.max_resident_threads) << ctx;
      EXPECT_EQ(s.prefetch_states, g.prefetch_states) << ctx;
      EXPECT_EQ(s.narrow_state_batches, g.narrow_state_batches) << ctx;
      EXPECT_EQ(s.state_ring, g.state_ring) << ctx;
    }
  }
}

// N states with forced launch shapes (on GPUs the LanePairs form: K consecutive tokens of a head
// per team thread, the K pairs' weights one per vector lane, then the rows pair by pair; and the
// forms with the L2 row prefetch, one pair per team thread and LanePairs with K = 8 in batches of 4
// or 2 states: the prefetch asks for states ahead of each batch, only those that exist, or with
// one batch for the lane's next pack iteration): against the reference, and bit for bit the
// built-in shape's results (the same formulas in the same order). 37 tokens: partial batches; 5,
// 8, 17 and more states: the prefetch reaches into the next batch or the tail; head size 160
// (16-bit: 20 packs over 8 lanes): 3 states, a row of one batch with a next pack iteration, 5 and
// 8 (the state ring's loads run across states, pack iterations and the rows of a step, past its 8
// or 12 slots, around the rows it does not move: empty, NaN, past the last token); head size 48
// (16-bit: 6 packs, 2 of the 8 lanes without any);
// 33 and 55 states: beyond the 32 cached weights; token 2 empty in every state, a NaN LSE at S = 5;
// head size 36: a tail after the packs (16-bit types: LanePairs runs as two pairs per thread).
TYPED_TEST(MergeMany, NWayLanePairsShapesGiveTheSameBits) {
  using Shape = MergeAttn::Impl::LaunchShape;
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
  // Host spaces run one-thread teams (and 4 or 8 pairs per thread as 2).
  const std::vector<Shape> shapes =
      host_like ? std::vector<Shape>{{1, 1, 1, 8}, {1, 1, 1, 1, false, 0, true}}
                : std::vector<Shape>{{8, 8, 4, 8},
                                     {4, 32, 1, 4},
                                     {2, 16, 2, 8},
                                     {8, 16, 1, 8},
                                     {16, 8, 4, 1, false, 0, true},
                                     {8, 16, 1, 8, false, 0, true}};
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    // The built-in 16-bit shape (16 team threads x 8 lanes, K = 8) for the types with float
    // weights; with double weights its team scratch leaves no room for the launch bounds' 7 teams
    // per multiprocessor (refused: NWayForcedShapeAboveLaunchBoundsIsRefused).
    std::vector<Shape> type_shapes = shapes;
    if (!host_like && sizeof(typename MergeAttn::Impl::ValueTraits<T>::compute_type) <= 4) {
      type_shapes.push_back({16, 8, 4, 8});
      type_shapes.push_back({16, 8, 4, 8, false, 0, true});
      type_shapes.push_back({16, 8, 4, 8, false, 0, true, true});  // 16-bit: batches of 2
      // 16-bit: the state ring in batches of 4 and 2 (up to 16 states: beyond, the ring of the
      // forced shape leaves no room for the launch bounds' teams)
      type_shapes.push_back({16, 8, 4, 8, false, 0, true, false, true});
      type_shapes.push_back({16, 8, 4, 8, false, 0, true, true, true});
    }
    std::uint64_t seed = 7100;
    for (std::int64_t S : {1, 3, 5, 8, 17, 32, 33, 55})
      for (std::int64_t d : {36, 48, 64, 160}) {
        if (d == 160 && S != 3 && S != 5 && S != 8) continue;
        if (d == 48 && S != 3 && S != 8) continue;
        auto p = make_many<T>(S, 37, 3, d, seed++, 0.2, {2});
        if (S == 5) p.lse[p.li(2, 1, 9)] = std::nanf("");
        if (S >= 3) {
          // Ties for the maximum (the LSEs are at most 8): the first state reaching it is the
          // one whose term is left out of the sum, wherever the vector lanes find them (states
          // 32 and 54 are on lane 0 or 22 of 32, and 0 or 6 of 8, before state 1).
          for (const std::int64_t s : {std::int64_t(1), S - 1}) p.lse[p.li(s, 1, 5)] = 9.5f;
          for (const std::int64_t s : {std::int64_t(0), S / 2, S - 1}) p.lse[p.li(s, 2, 6)] = 8.5f;
        }
        const std::string ctx = std::string("NWay LanePairs S=") + std::to_string(S) +
                                " d=" + std::to_string(d) + " " + TypeParam::name() + " " +
                                value_type_name<T>();
        const auto built_in =
            run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, true, ctx + " auto");
        for (const Shape& shape : type_shapes) {
          if (shape.state_ring && S > 16) continue;
          const std::string sctx = ctx + " team " + std::to_string(shape.team_size) + " vector " +
                                   std::to_string(shape.vector_length) + " pairs_per_thread " +
                                   std::to_string(shape.pairs_per_thread) +
                                   (shape.prefetch_states ? " row prefetch" : "") +
                                   (shape.narrow_state_batches ? " batches of 2" : "") +
                                   (shape.state_ring ? " state ring" : "");
          const auto forced =
              run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, true, sctx, &shape);
          const std::int64_t differ = count_different_bits(forced.first, built_in.first) +
                                      count_different_bits(forced.second, built_in.second);
          EXPECT_EQ(differ, 0) << sctx << ": values whose bits differ from the built-in shape's";
        }
      }
  });
}

// Host spaces merge tokens of more than 8 states in runs of consecutive heads (at most 64 of them,
// 4096 / count and 4096 / head_size; cut at the team thread's span of 64 slots), each pair's
// weights on the stack; a forced shape of two pairs per team thread merges one pair at a time.
// Both give the same bits, here with runs of 64 heads and the rest, runs cut by the weights' room,
// tokens too large for a run (over 2048 and over 4096 states, head size over 4096), NaN and empty
// states. GPU backends run the same problems through their own forms (and a forced two-pairs
// shape).
TYPED_TEST(MergeMany, NWayHeadRunsGiveTheSameBits) {
  using Shape = MergeAttn::Impl::LaunchShape;
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
  const Shape two_pairs = host_like ? Shape{1, 1, 1, 2} : Shape{4, 8, 1, 2};
  struct Case {
    std::int64_t states, tokens, heads, head_size;
  };
  const std::vector<Case> cases = {{9, 5, 70, 36},   // runs of 64 heads, then the rest
                                   {5, 4, 3, 4104},  // head size over 4096: one pair at a time
                                   {700, 3, 8, 8},   // 4096 / 700 = 5 pairs a run
                                   {2100, 2, 3, 4},  // over 2048 states: one pair at a time
                                   {4100, 2, 3, 4},  // over 4096: no room for one pair's weights
                                   {8, 3, 5, 40}};   // up to 8 states: one pair at a time
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    std::uint64_t seed = 8100;
    for (const Case& c : cases) {
      auto p = make_many<T>(c.states, c.tokens, c.heads, c.head_size, seed++, 0.2, {1});
      p.lse[p.li(2, c.heads - 1, 0)] = std::nanf("");
      const std::string ctx = std::string("NWay runs S=") + std::to_string(c.states) +
                              " heads=" + std::to_string(c.heads) +
                              " d=" + std::to_string(c.head_size) + " " + TypeParam::name() + " " +
                              value_type_name<T>();
      const auto built_in =
          run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, true, ctx + " auto");
      const auto forced = run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(
          p, {}, true, ctx + " two pairs", &two_pairs);
      const std::int64_t differ = count_different_bits(forced.first, built_in.first) +
                                  count_different_bits(forced.second, built_in.second);
      EXPECT_EQ(differ, 0) << ctx << ": values whose bits differ from one pair at a time";
    }
  });
}

TYPED_TEST(MergeMany, NWayNaNAndZeroStates) {
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    auto p = make_many<T>(7, 4, 2, 40, 77, 0.3);
    p.lse[p.li(3, 1, 2)] = std::nanf("");  // (t=2, h=1) becomes NaN, nothing else
    run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, {}, true, "NWay NaN");
    const auto none = make_many<T>(0, 4, 2, 40, 78);  // no states at all: 0 and -inf
    run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(none, {}, true, "NWay S=0");
  });
}

// Two states: the N-way merge gives the 2-way merge's bits (it runs the 2-way kernel for S = 2).
TYPED_TEST(MergeMany, TwoStatesMatchTwoWayMergeBitForBit) {
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    const auto p = make_many<T>(2, 33, 5, 72, 31, 0.15, {4});
    using V4 = Kokkos::View<T****, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
    using L3 = Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
    using V3 = Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
    using L2 = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
    V4 states("states", 2, p.tokens, p.heads, p.head_size);
    L3 lse("lse", 2, p.heads, p.tokens);
    fill_view(states, [&](auto s, auto t, auto h, auto d) { return p.x[p.xi(s, t, h, d)]; });
    fill_view(lse, [&](auto s, auto h, auto t) { return p.lse[p.li(s, h, t)]; });
    V3 out_n("out_n", p.tokens, p.heads, p.head_size),
        out_2("out_2", p.tokens, p.heads, p.head_size);
    L2 lse_n("lse_n", p.heads, p.tokens), lse_2("lse_2", p.heads, p.tokens);
    const TypeParam exec;
    MergeAttn::merge_attn_states(exec, out_n, states, lse, lse_n);
    auto all = Kokkos::ALL;
    MergeAttn::merge_attn_states(
        exec, out_2, Kokkos::subview(states, 0, all, all, all), Kokkos::subview(lse, 0, all, all),
        Kokkos::subview(states, 1, all, all, all), Kokkos::subview(lse, 1, all, all), lse_2);
    exec.fence();
    const auto a = to_host(out_n), b = to_host(out_2);
    const auto la = to_host(lse_n), lb = to_host(lse_2);
    std::int64_t bad = 0;
    for (std::int64_t t = 0; t < p.tokens; ++t)
      for (std::int64_t h = 0; h < p.heads; ++h) {
        if (!same_bits(la(h, t), lb(h, t)) && !(std::isnan(la(h, t)) && std::isnan(lb(h, t))))
          if (++bad <= 5)
            ADD_FAILURE() << "lse(" << h << "," << t << "): " << la(h, t) << " vs " << lb(h, t);
        for (std::int64_t d = 0; d < p.head_size; ++d)
          if (!same_bits(a(t, h, d), b(t, h, d)) && ++bad <= 5)
            ADD_FAILURE() << value_type_name<T>() << " output(" << t << "," << h << "," << d
                          << "): " << to_double(a(t, h, d)) << " vs " << to_double(b(t, h, d));
      }
    EXPECT_EQ(bad, 0) << value_type_name<T>() << " on " << TypeParam::name();
  });
}

// Ragged offsets (zero-length tokens included) into packed states; int32 and int64 offsets.
template <class Exec, class T, class Index>
void check_varlen(const MergeAttn::MergeOptions& opt, const std::string& context,
                  const MergeAttn::Impl::LaunchShape* shape = nullptr) {
  const std::vector<std::int64_t> counts = {3, 0, 1, 5, 0, 2, 17, 1, 4, 0};
  const std::int64_t tokens = static_cast<std::int64_t>(counts.size()), heads = 3, d = 48;
  std::vector<std::int64_t> indptr(1, 0);
  for (auto c : counts) indptr.push_back(indptr.back() + c);
  const std::int64_t total = indptr.back();
  // The packed states as one stacked problem of `total` states and one token.
  const auto p = make_many<T>(total, 1, heads, d, 4242, 0.2);
  const bool th = opt.lse_layout == MergeAttn::LseLayout::tokens_heads;
  const bool base2 = opt.lse_base == MergeAttn::LseBase::base2;
  using Mem = DeviceMemory<Exec>;
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> states("states", total, heads, d);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> lse("lse", th ? total : heads,
                                                      th ? heads : total);
  Kokkos::View<Index*, Mem> ip("indptr", tokens + 1);
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> out("out", tokens, heads, d);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> olse("olse", th ? tokens : heads,
                                                       th ? heads : tokens);
  fill_view(states, [&](auto i, auto h, auto k) { return p.x[p.xi(i, 0, h, k)]; });
  fill_view(lse, [&](auto a, auto b) { return th ? p.lse[p.li(a, b, 0)] : p.lse[p.li(b, a, 0)]; });
  fill_view(ip, [&](auto i) { return static_cast<Index>(indptr[i]); });
  fill_view(out, [&](auto, auto, auto) { return nan_value<T>(); });
  if (shape != nullptr)
    MergeAttn::Impl::merge_attn_states_varlen_impl(Exec(), out, states, lse, ip, olse, opt, shape);
  else
    MergeAttn::merge_attn_states_varlen(Exec(), out, states, lse, ip, olse, opt);
  Exec().fence();
  const auto ho = to_host(out);
  const auto hl = to_host(olse);
  check_many<T>(
      tokens, heads, d,
      [&](std::int64_t t, std::int64_t h) {
        std::vector<float> l;
        for (std::int64_t i = indptr[t]; i < indptr[t + 1]; ++i) l.push_back(p.lse[p.li(i, h, 0)]);
        return l;
      },
      [&](std::int64_t t, std::int64_t h, std::int64_t s, std::int64_t k) {
        return p.x[p.xi(indptr[t] + s, 0, h, k)];
      },
      [&](std::int64_t t, std::int64_t h, std::int64_t k) { return ho(t, h, k); },
      [&](std::int64_t t, std::int64_t h) { return th ? hl(t, h) : hl(h, t); }, true, base2,
      context);
}

TYPED_TEST(MergeMany, VarlenRaggedOffsets) {
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    const std::string ctx = std::string("Varlen ") + TypeParam::name() + " " + value_type_name<T>();
    check_varlen<TypeParam, T, std::int32_t>({}, ctx + " int32 offsets");
    check_varlen<TypeParam, T, std::int64_t>({}, ctx + " int64 offsets");
    MergeAttn::MergeOptions th;
    th.lse_layout = MergeAttn::LseLayout::tokens_heads;
    check_varlen<TypeParam, T, std::int64_t>(th, ctx + " [total][heads] LSEs");
    // A forced LanePairs shape on GPUs (host spaces: 8 pairs per thread run as 2): zero-length
    // tokens inside a team thread's batch.
    constexpr bool host_like =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
    const MergeAttn::Impl::LaunchShape lane8 = host_like ? MergeAttn::Impl::LaunchShape{1, 1, 1, 8}
                                                         : MergeAttn::Impl::LaunchShape{4, 8, 1, 8};
    check_varlen<TypeParam, T, std::int64_t>({}, ctx + " LanePairs shape", &lane8);
  });
}

TYPED_TEST(MergeMany, VarlenBadOffsets) {
  using Mem = DeviceMemory<TypeParam>;
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> states("states", 6, 2, 16), out("out", 3, 2, 16);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> lse("lse", 2, 6), olse("olse", 2, 3);
  Kokkos::View<std::int64_t*, Mem> ip("indptr", 4);
  Kokkos::deep_copy(states, 1.0f);
  Kokkos::deep_copy(lse, 0.0f);
  const auto expect_throw = [&](std::vector<std::int64_t> offsets, const char* what) {
    fill_view(ip, [&](auto i) { return offsets[i]; });
    try {
      MergeAttn::merge_attn_states_varlen(TypeParam(), out, states, lse, ip, olse);
      ADD_FAILURE() << "no exception for " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'indptr'"), std::string::npos) << e.what();
    }
  };
  expect_throw({0, 3, 2, 6}, "decreasing offsets");
  expect_throw({0, 2, 4, 7}, "an offset past total_states");
  expect_throw({-1, 2, 4, 6}, "a negative offset");
  // Unchecked (asynchronous use): the malformed token's outputs become NaN, the others merge.
  MergeAttn::MergeOptions unchecked;
  unchecked.check_indptr = false;
  fill_view(ip, [&](auto i) { return std::vector<std::int64_t>{0, 2, 1, 6}[i]; });
  MergeAttn::merge_attn_states_varlen(TypeParam(), out, states, lse, ip, olse, unchecked);
  TypeParam().fence();
  const auto ho = to_host(out);
  const auto hl = to_host(olse);
  for (std::int64_t h = 0; h < 2; ++h) {
    EXPECT_EQ(ho(0, h, 0), 1.0f);  // two states of ones
    EXPECT_TRUE(std::isnan(ho(1, h, 5)) && std::isnan(hl(h, 1))) << "token 1 has indptr 2 -> 1";
    EXPECT_FLOAT_EQ(hl(h, 0), std::log(2.0f));
  }
  // Extents: indptr must be [num_tokens + 1].
  Kokkos::View<std::int64_t*, Mem> short_ip("indptr", 3);
  EXPECT_THROW(MergeAttn::merge_attn_states_varlen(TypeParam(), out, states, lse, short_ip, olse),
               std::invalid_argument);
}

// Masked in-place update: tokens with mask 0 keep their output rows and LSEs bit for bit; with
// the built-in launch shape and forced ones (on GPUs the LanePairs forms, 4 and 8 tokens of a head
// per team thread, one pair per lane: masked tokens inside a team thread's batch).
TYPED_TEST(MergeMany, MaskedInPlaceLeavesMaskedTokensUntouched) {
  using Shape = MergeAttn::Impl::LaunchShape;
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<TypeParam>>::accessible;
  // Host spaces run one-thread teams (and 4 or 8 pairs per thread as 2).
  const Shape lane8 = host_like ? Shape{1, 1, 2, 8} : Shape{16, 8, 4, 8};
  const Shape lane4 = host_like ? Shape{1, 1, 1, 4} : Shape{4, 32, 1, 4, true};
  for (const Shape* shape : {static_cast<const Shape*>(nullptr), &lane8, &lane4})
    for_each_value_type([&](auto v) {
      using T = decltype(v);
      const auto p = make_many<T>(2, 37, 4, 40, 555, 0.1);
      using Mem = DeviceMemory<TypeParam>;
      Kokkos::View<T***, Kokkos::LayoutRight, Mem> acc("acc", p.tokens, p.heads, p.head_size),
          part("part", p.tokens, p.heads, p.head_size);
      Kokkos::View<float**, Kokkos::LayoutRight, Mem> acc_lse("acc_lse", p.heads, p.tokens),
          part_lse("part_lse", p.heads, p.tokens);
      Kokkos::View<std::uint8_t*, Mem> mask("mask", p.tokens);
      fill_view(acc, [&](auto t, auto h, auto d) { return p.x[p.xi(0, t, h, d)]; });
      fill_view(part, [&](auto t, auto h, auto d) { return p.x[p.xi(1, t, h, d)]; });
      fill_view(acc_lse, [&](auto h, auto t) { return p.lse[p.li(0, h, t)]; });
      fill_view(part_lse, [&](auto h, auto t) { return p.lse[p.li(1, h, t)]; });
      fill_view(mask, [&](auto t) { return std::uint8_t(t % 3 == 1 ? 0 : (t % 2 ? 1 : 255)); });
      MergeAttn::Impl::merge_attn_states_impl(TypeParam(), acc, acc, acc_lse, part, part_lse,
                                              acc_lse, {}, shape, mask);
      TypeParam().fence();
      const auto ho = to_host(acc);
      const auto hl = to_host(acc_lse);
      check_many<T>(
          p.tokens, p.heads, p.head_size,
          [&](std::int64_t t, std::int64_t h) {
            return std::vector<float>{p.lse[p.li(0, h, t)], p.lse[p.li(1, h, t)]};
          },
          [&](std::int64_t t, std::int64_t h, std::int64_t s, std::int64_t d) {
            return p.x[p.xi(s, t, h, d)];
          },
          [&](std::int64_t t, std::int64_t h, std::int64_t d) { return ho(t, h, d); },
          [&](std::int64_t t, std::int64_t h) { return hl(h, t); }, true, false,
          std::string("Masked ") + TypeParam::name() + " " + value_type_name<T>() +
              (shape ? " pairs_per_thread " + std::to_string(shape->pairs_per_thread) : " auto"),
          [](std::int64_t t) { return t % 3 == 1; });  // masked tokens: checked below
      // Masked tokens: bit for bit what they were, even where a merge would have changed them.
      std::int64_t changed = 0;
      for (std::int64_t t = 1; t < p.tokens; t += 3)
        for (std::int64_t h = 0; h < p.heads; ++h) {
          changed += same_bits(hl(h, t), p.lse[p.li(0, h, t)]) ? 0 : 1;
          for (std::int64_t d = 0; d < p.head_size; ++d)
            changed += same_bits(ho(t, h, d), p.x[p.xi(0, t, h, d)]) ? 0 : 1;
        }
      EXPECT_EQ(changed, 0);
      if (shape != nullptr) return;
      // Not in place: rejected before any launch.
      Kokkos::View<T***, Kokkos::LayoutRight, Mem> other("other", p.tokens, p.heads, p.head_size);
      EXPECT_THROW(MergeAttn::merge_attn_states_masked(TypeParam(), mask, other, acc, acc_lse, part,
                                                       part_lse),
                   std::invalid_argument);
      Kokkos::View<std::uint8_t*, Mem> short_mask("mask", p.tokens - 1);
      EXPECT_THROW(MergeAttn::merge_attn_states_masked(TypeParam(), short_mask, acc, acc, acc_lse,
                                                       part, part_lse),
                   std::invalid_argument);
    });
}

// LSE conventions. [tokens][heads] LSE Views give the bits of [heads][tokens] ones (only the
// indexing differs); base-2 LSEs, merged with LseBase::base2, match the base-2 reference and the
// natural-log merge of the same LSEs converted (l2 = l * log2(e)).
TYPED_TEST(MergeMany, LseConventions) {
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    const std::string ctx = std::string(TypeParam::name()) + " " + value_type_name<T>();
    auto p = make_many<T>(5, 9, 3, 40, 321, 0.2, {6});
    MergeAttn::MergeOptions th;
    th.lse_layout = MergeAttn::LseLayout::tokens_heads;
    run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p, th, true, "NWay [t][h] " + ctx);
    MergeAttn::MergeOptions b2;
    b2.lse_base = MergeAttn::LseBase::base2;
    auto p2 = p;
    for (auto& l : p2.lse) l = static_cast<float>(double(l) * 1.4426950408889634);
    run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p2, b2, true, "NWay base 2 " + ctx);
    b2.lse_layout = MergeAttn::LseLayout::tokens_heads;
    run_nway_checked<TypeParam, T, Kokkos::LayoutRight>(p2, b2, true, "NWay base 2 [t][h] " + ctx);
    check_varlen<TypeParam, T, std::int32_t>(b2, "Varlen base 2 [t][h] " + ctx);

    // 2-way: [t][h] LSEs vs [h][t] LSEs, bit for bit; base 2 vs natural after conversion.
    using Mem = DeviceMemory<TypeParam>;
    using V3 = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
    using L2 = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
    V3 a("a", p.tokens, p.heads, p.head_size), b("b", p.tokens, p.heads, p.head_size);
    fill_view(a, [&](auto t, auto h, auto d) { return p.x[p.xi(0, t, h, d)]; });
    fill_view(b, [&](auto t, auto h, auto d) { return p.x[p.xi(1, t, h, d)]; });
    auto run2 = [&](const std::vector<float>& lses, const MergeAttn::MergeOptions& o) {
      const bool t_h = o.lse_layout == MergeAttn::LseLayout::tokens_heads;
      L2 la("la", t_h ? p.tokens : p.heads, t_h ? p.heads : p.tokens),
          lb("lb", la.extent(0), la.extent(1)), lo("lo", la.extent(0), la.extent(1));
      fill_view(la,
                [&](auto i, auto j) { return t_h ? lses[p.li(0, j, i)] : lses[p.li(0, i, j)]; });
      fill_view(lb,
                [&](auto i, auto j) { return t_h ? lses[p.li(1, j, i)] : lses[p.li(1, i, j)]; });
      V3 out("out", p.tokens, p.heads, p.head_size);
      MergeAttn::merge_attn_states(TypeParam(), out, a, la, b, lb, lo, o);
      TypeParam().fence();
      std::vector<double> r;
      const auto ho = to_host(out);
      const auto hl = to_host(lo);
      for (std::int64_t t = 0; t < p.tokens; ++t)
        for (std::int64_t h = 0; h < p.heads; ++h) {
          r.push_back(t_h ? hl(t, h) : hl(h, t));
          for (std::int64_t d = 0; d < p.head_size; ++d) r.push_back(to_double(ho(t, h, d)));
        }
      return r;
    };
    const auto ht = run2(p.lse, {});
    const auto tt = run2(p.lse, th);
    EXPECT_EQ(ht.size(), tt.size());
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < ht.size(); ++i)
      differ += (ht[i] == tt[i] || (std::isnan(ht[i]) && std::isnan(tt[i]))) ? 0 : 1;
    EXPECT_EQ(differ, 0) << "2-way [t][h] vs [h][t] " << ctx;
    MergeAttn::MergeOptions b2only;
    b2only.lse_base = MergeAttn::LseBase::base2;
    const auto nat = run2(p.lse, {});
    const auto bas = run2(p2.lse, b2only);
    std::int64_t off = 0;
    for (std::size_t i = 0; i < nat.size(); ++i) {
      const bool is_lse = i % std::size_t(p.head_size + 1) == 0;
      const double want = is_lse ? nat[i] * 1.4426950408889634 : nat[i];
      const double tol = lse_conversion_tolerance<T>(want, is_lse);
      off += (std::fabs(bas[i] - want) <= tol || (std::isinf(want) && bas[i] == want) ||
              (std::isnan(want) && std::isnan(bas[i])))
                 ? 0
                 : 1;
    }
    EXPECT_EQ(off, 0) << "2-way base 2 vs natural " << ctx;
  });
}

TYPED_TEST(MergeMany, NWayBadInput) {
  using Mem = DeviceMemory<TypeParam>;
  Kokkos::View<float****, Kokkos::LayoutRight, Mem> states("states", 4, 5, 3, 16);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> lse("lse", 4, 3, 5), bad_lse("bad", 4, 5, 3),
      short_lse("short", 3, 3, 5);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> out("out", 5, 3, 16), bad_out("out", 5, 3, 8);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> olse("olse", 3, 5), bad_olse("olse", 5, 3);
  const TypeParam exec;
  auto expect_invalid = [](auto&& f, const char* arg) {
    try {
      f();
      ADD_FAILURE() << "no exception (" << arg << ")";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + arg + "'"), std::string::npos)
          << e.what();
    }
  };
  expect_invalid([&] { MergeAttn::merge_attn_states(exec, bad_out, states, lse, olse); },
                 "states_output");
  expect_invalid([&] { MergeAttn::merge_attn_states(exec, out, states, bad_lse, olse); },
                 "states_lse");
  expect_invalid([&] { MergeAttn::merge_attn_states(exec, out, states, short_lse, olse); },
                 "states_lse");
  expect_invalid([&] { MergeAttn::merge_attn_states(exec, out, states, lse, bad_olse); },
                 "output_lse");
  // The output inside the states (in place is not an N-way form).
  auto inside = Kokkos::subview(states, 0, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
  expect_invalid([&] { MergeAttn::merge_attn_states(exec, inside, states, lse, olse); }, "output");
}

}  // namespace
