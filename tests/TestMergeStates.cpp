// The merge on every backend over a sampled grid of shapes, value types, layouts and with/without
// output_lse, against the double-precision host reference; and every backend against the others.
#include <algorithm>
#include <set>

#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;

struct GridCase {
  std::int64_t tokens, heads, head_size;
  Layout layout;
  bool with_output_lse;
};

const std::int64_t kTokens[] = {1, 7, 256, 613, 4096};
const std::int64_t kHeads[] = {1, 4, 32, 48};
const std::int64_t kHeadSizes[] = {1, 7, 32, 48, 64, 72, 96, 100, 128, 256, 576};
constexpr std::int64_t kElementBudget = std::int64_t(1) << 20;

// Every head size with every layout; tokens, heads and output_lse cycle so that each value of
// each appears with several others. Tokens shrink (to the next smaller grid value) until a case
// fits the element budget, which keeps the host suite well inside CI's time.
std::vector<GridCase> sampled_grid() {
  std::vector<GridCase> cases;
  const Layout layouts[] = {Layout::right, Layout::left, Layout::stride};
  int i = 0;
  for (std::int64_t d : kHeadSizes) {
    for (int l = 0; l < 3; ++l, ++i) {
      int ti = (i * 2 + l) % 5;
      const std::int64_t h = kHeads[(i + l) % 4];
      while (ti > 0 && kTokens[ti] * h * d > kElementBudget) --ti;
      cases.push_back({kTokens[ti], h, d, layouts[l], (i % 2) == 0});
    }
  }
  return cases;
}

std::string case_name(const GridCase& c) {
  std::ostringstream s;
  s << c.tokens << "x" << c.heads << "x" << c.head_size << " " << layout_name(c.layout)
    << (c.with_output_lse ? " +lse" : "");
  return s.str();
}

TEST(MergeStatesGrid, SampleCoversEveryGridValue) {
  std::set<std::int64_t> t, h, d;
  std::set<int> layouts_with_lse, layouts_without_lse;
  for (const GridCase& c : sampled_grid()) {
    t.insert(c.tokens);
    h.insert(c.heads);
    d.insert(c.head_size);
    (c.with_output_lse ? layouts_with_lse : layouts_without_lse).insert(int(c.layout));
  }
  EXPECT_EQ(t.size(), std::size(kTokens));
  EXPECT_EQ(h.size(), std::size(kHeads));
  EXPECT_EQ(d.size(), std::size(kHeadSizes));
  EXPECT_EQ(layouts_with_lse.size(), 3u);
  EXPECT_EQ(layouts_without_lse.size(), 3u);
}

template <class Exec>
class MergeStates : public ::testing::Test {};
TYPED_TEST_SUITE(MergeStates, Backends, BackendNames);

// The one test body of the grid, run on every enabled backend.
TYPED_TEST(MergeStates, GridAgainstDoubleReference) {
  using Exec = TypeParam;
  std::uint64_t seed = 1;
  for (const GridCase& c : sampled_grid()) {
    for_each_value_type([&](auto value) {
      using T = decltype(value);
      const auto p = make_problem<T>(c.tokens, c.heads, c.head_size, seed++);
      RunOptions o;
      o.layout = c.layout;
      o.with_output_lse = c.with_output_lse;
      const auto r = run_merge<Exec>(p, o);
      check_against_reference(
          p, r, std::string(Exec::name()) + " " + value_type_name<T>() + " " + case_name(c));
    });
  }
}

// Every backend on the same inputs: each against the reference and against every other backend
// (in a CUDA build this is the comparison of Cuda with OpenMP and Serial).
template <class... Execs>
struct RunAll;
template <>
struct RunAll<> {
  template <class T>
  static void run(const HostProblem<T>&, const RunOptions&, std::vector<HostResult<T>>&,
                  std::vector<std::string>&) {}
};
template <class E, class... Rest>
struct RunAll<E, Rest...> {
  template <class T>
  static void run(const HostProblem<T>& p, const RunOptions& o, std::vector<HostResult<T>>& out,
                  std::vector<std::string>& names) {
    out.push_back(run_merge<E>(p, o));
    names.push_back(E::name());
    RunAll<Rest...>::run(p, o, out, names);
  }
};
template <class L>
struct RunAllOf;
template <class... Es>
struct RunAllOf<TypeList<Es...>> : RunAll<Es...> {};

TEST(MergeStatesCrossBackend, AllBackendsAgree) {
  const GridCase cases[] = {{613, 4, 128, Layout::right, true},
                            {256, 32, 100, Layout::stride, true},
                            {7, 48, 576, Layout::left, false},
                            {4096, 1, 72, Layout::right, true}};
  LseRecipe recipe;
  recipe.plus_inf_fraction = 0.05;
  recipe.minus_inf_fraction = 0.05;
  recipe.nan_fraction = 0.01;
  std::uint64_t seed = 1000;
  int compared = 0;
  for (const GridCase& c : cases) {
    for_each_value_type([&](auto value) {
      using T = decltype(value);
      const auto p = make_problem<T>(c.tokens, c.heads, c.head_size, seed++, recipe);
      RunOptions o;
      o.layout = c.layout;
      o.with_output_lse = c.with_output_lse;
      std::vector<HostResult<T>> results;
      std::vector<std::string> names;
      RunAllOf<BackendList>::run(p, o, results, names);
      for (std::size_t a = 0; a < results.size(); ++a) {
        check_against_reference(p, results[a],
                                names[a] + " " + value_type_name<T>() + " " + case_name(c));
        for (std::size_t b = a + 1; b < results.size(); ++b) {
          check_backends_agree(
              p, results[a], results[b],
              names[a] + " vs " + names[b] + " " + value_type_name<T>() + " " + case_name(c));
          ++compared;
        }
      }
    });
  }
  // A host build has Serial and OpenMP: at least one pair must have been compared.
  EXPECT_GE(compared, 16) << "fewer than two backends enabled: nothing was compared";
}

}  // namespace

namespace {

using namespace MergeAttnTest;

// Every mapping the tuning may pick (team size, vector length, token group, pairs per thread)
// computes the same function: forced shapes on each backend, against the reference, over head sizes
// whose pack counts do and do not divide evenly into lanes, with 37 tokens (partial token groups,
// groups wider than the tokens) and 5 heads.
template <class Exec, class T>
void check_forced_shapes() {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory<Exec>>::accessible;
  // Host spaces run one-thread teams; GPUs teams of up to 1024 threads where the kernel's registers
  // allow it (one pair per thread: at most 64 registers; two pairs per thread for double take 70
  // with nvcc 13, so the two-pair team stops at 512 threads; larger forced shapes are refused:
  // ForcedShapesTheKernelCannotTakeAreRefused).
  using Shape = MergeAttn::Impl::LaunchShape;
  const std::vector<Shape> shapes =
      host_like ? std::vector<Shape>{{1, 1, 1, 1}, {1, 1, 4, 2}, {1, 1, 64, 1}, {1, 1, 2, 8}}
                : std::vector<Shape>{{1, 1, 1, 1},
                                     {1, 4, 1, 1},
                                     {2, 4, 2, 2},
                                     {16, 8, 1, 1},
                                     {16, 8, 4, 2},
                                     {4, 32, 1, 2},
                                     {32, 4, 8, 1},
                                     {32, 4, 8, 2},
                                     {128, 8, 4, 1},
                                     {64, 8, 64, 2},
                                     {16, 8, 32, 2},
                                     {1, 1, 1, 4},
                                     {16, 8, 4, 4},
                                     {16, 8, 4, 8},
                                     {4, 32, 1, 8},
                                     {32, 4, 8, 8, true},
                                     {2, 16, 2, 4, true},
                                     // the row prefetch with one and two pairs per thread (the
                                     // built-in 16-bit and float shapes at >= 2^17 pairs)
                                     {8, 16, 2, 1, true},
                                     {16, 8, 4, 2, true},
                                     {4, 32, 1, 2, true},
                                     // at most 640 / 256 threads resident per multiprocessor
                                     {16, 8, 4, 8, true, 640},
                                     {4, 32, 1, 4, true, 256}};
  LseRecipe recipe;
  recipe.plus_inf_fraction = 0.05;
  recipe.minus_inf_fraction = 0.05;
  std::uint64_t seed = 5000;
  for (std::int64_t d : {8, 40, 128, 200, 576}) {
    const auto p = make_problem<T>(37, 5, d, seed++, recipe);
    for (const auto& shape : shapes) {
      using V = Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>>;
      using L = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<Exec>>;
      V pre("pre", p.tokens, p.heads, d), suf("suf", p.tokens, p.heads, d),
          out("out", p.tokens, p.heads, d);
      L pl("pl", p.heads, p.tokens), sl("sl", p.heads, p.tokens), ol("ol", p.heads, p.tokens);
      upload<Exec>(pre, p.prefix);
      upload<Exec>(suf, p.suffix);
      upload<Exec>(pl, p.prefix_lse);
      upload<Exec>(sl, p.suffix_lse);
      MergeAttn::Impl::merge_attn_states_impl(Exec(), out, pre, pl, suf, sl, ol, {}, &shape);
      Exec().fence();
      HostResult<T> r{download<Exec>(out), download<Exec>(ol)};
      std::ostringstream ctx;
      ctx << "ForcedShape team " << shape.team_size << " vector " << shape.vector_length
          << " tokens_per_group " << shape.tokens_per_group << " pairs_per_thread "
          << shape.pairs_per_thread << " prefetch " << shape.prefetch_rows << " resident "
          << shape.max_resident_threads << " " << Exec::name() << " " << value_type_name<T>()
          << " head_size " << d;
      check_against_reference(p, r, ctx.str());
    }
  }
}

template <class Exec>
class MergeMappings : public ::testing::Test {};
TYPED_TEST_SUITE(MergeMappings, Backends, BackendNames);

TYPED_TEST(MergeMappings, EveryLaunchShapeComputesTheSameFunction) {
  for_each_value_type([&](auto v) { check_forced_shapes<TypeParam, decltype(v)>(); });
}

// A forced shape no kernel can take is refused with std::invalid_argument before the launch (not
// by Kokkos' runtime error from inside parallel_for), and the output is left as it was.
TYPED_TEST(MergeMappings, ForcedShapesTheKernelCannotTakeAreRefused) {
  using Mem = DeviceMemory<TypeParam>;
  using V = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  constexpr bool host_like = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  V a("a", 4, 2, 32), b("b", 4, 2, 32), out("out", 4, 2, 32);
  L la("la", 2, 4), lb("lb", 2, 4), lo("lo", 2, 4);
  Kokkos::deep_copy(out, 7.0f);
  using Shape = MergeAttn::Impl::LaunchShape;
  std::vector<std::pair<Shape, std::string>> refused{{{0, 1}, "at least one thread and one lane"},
                                                     {{1, 0}, "at least one thread and one lane"}};
  if (!host_like) refused.push_back({{1024, 2}, "at most 1024 threads"});
  for (const auto& [shape, why] : refused) {
    const std::string ctx = "team_size " + std::to_string(shape.team_size) + " vector_length " +
                            std::to_string(shape.vector_length);
    try {
      MergeAttn::Impl::merge_attn_states_impl(TypeParam(), out, a, la, b, lb, lo, {}, &shape);
      ADD_FAILURE() << ctx << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << ctx << ": " << e.what();
    }
  }
  TypeParam().fence();
  const auto host_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_EQ(host_out(3, 1, 31), 7.0f);
  EXPECT_EQ(host_out(0, 0, 0), 7.0f);
}

}  // namespace
