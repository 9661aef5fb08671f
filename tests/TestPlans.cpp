// Plans (MergeAttn::MergePlan), in every launch mode (MergeAttn::PlanLaunch): execute() gives the
// bits of the merge function call the plan was made from, for every form; on CUDA by default and
// with PlanLaunch::cuda_graph the replay of a CUDA graph, elsewhere Kokkos' launch; making a plan
// launches nothing, and the merge functions launch again afterwards (also after a plan whose
// arguments were refused); each execute() reads the Views' contents as they are then (inputs,
// mask); replays are ordered with the other work on the plan's execution space instance; a plan
// keeps its Views' allocations alive.
#include <stdexcept>
#include <string>
#include <vector>

#include "MergeAttnManyUtils.hpp"

namespace {

using namespace MergeAttnTest;
using MergeAttn::PlanLaunch;

std::string mode_name(const PlanLaunch mode) {
  switch (mode) {
    case PlanLaunch::automatic:
      return "automatic";
    case PlanLaunch::kernel:
      return "kernel";
    case PlanLaunch::cuda_graph:
      return "cuda_graph";
  }
  return "unknown";
}

template <class Exec>
constexpr bool is_cuda() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<Exec, Kokkos::Cuda>::value;
#else
  return false;
#endif
}

/// Whether a Kokkos Tools library is loaded (ctest loads none; the tests also run under one).
bool tools_loaded() { return Kokkos::Tools::profileLibraryLoaded(); }

/// The launch modes a plan on Exec can be made with: cuda_graph needs Kokkos::Cuda and no Kokkos
/// Tools library (GraphOnlyOnCuda checks the refusal).
template <class Exec>
std::vector<PlanLaunch> launch_modes() {
  if (is_cuda<Exec>() && !tools_loaded())
    return {PlanLaunch::automatic, PlanLaunch::kernel, PlanLaunch::cuda_graph};
  return {PlanLaunch::automatic, PlanLaunch::kernel};
}

/// The launch mode of a plan on Exec made with `asked`: automatic is a graph on CUDA without a
/// Kokkos Tools library.
template <class Exec>
PlanLaunch expected_mode(const PlanLaunch asked) {
  if (asked == PlanLaunch::kernel || !is_cuda<Exec>()) return PlanLaunch::kernel;
  return tools_loaded() && asked == PlanLaunch::automatic ? PlanLaunch::kernel
                                                          : PlanLaunch::cuda_graph;
}

constexpr const char* kToolsRefusal =
    "PlanLaunch::cuda_graph cannot be had with a Kokkos Tools library loaded";

template <class Exec>
void check_plans(const PlanLaunch mode) {
  using Mem = DeviceMemory<Exec>;
  for_each_value_type([&](auto v) {
    using T = decltype(v);
    using V4 = Kokkos::View<T****, Kokkos::LayoutRight, Mem>;
    using L3 = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
    using V3 = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
    using L2 = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
    const std::string ctx =
        std::string(Exec::name()) + " " + value_type_name<T>() + " " + mode_name(mode);
    const Exec exec;
    MergeAttn::MergeOptions opt;
    opt.plan_launch = mode;
    // The launch mode every plan that launches gets.
    const auto expect_mode = [&](const MergeAttn::MergePlan<Exec>& plan, const std::string& form) {
      EXPECT_TRUE(plan.launches()) << form << " " << ctx;
      EXPECT_EQ(mode_name(plan.launch_mode()), mode_name(expected_mode<Exec>(mode)))
          << form << " " << ctx;
    };
    const auto p = make_many<T>(5, 37, 4, 40, 515, 0.15, {3});
    V4 states("states", p.states, p.tokens, p.heads, p.head_size);
    L3 lse("lse", p.states, p.heads, p.tokens);
    fill_view(states, [&](auto s, auto t, auto h, auto d) { return p.x[p.xi(s, t, h, d)]; });
    fill_view(lse, [&](auto s, auto h, auto t) { return p.lse[p.li(s, h, t)]; });
    // States as Views of their own (the View types the other tests merge), filled from the host
    // problem (no device-to-device copies: each View pair would add copy kernels to the build).
    const auto set_state = [&](const V3& x, const std::int64_t s) {
      fill_view(x, [&](auto t, auto h, auto d) { return p.x[p.xi(s, t, h, d)]; });
    };
    const auto set_lse = [&](const L2& l, const std::int64_t s) {
      fill_view(l, [&](auto h, auto t) { return p.lse[p.li(s, h, t)]; });
    };
    V3 x0("x0", p.tokens, p.heads, p.head_size), x1("x1", p.tokens, p.heads, p.head_size);
    L2 l0("l0", p.heads, p.tokens), l1("l1", p.heads, p.tokens);
    set_state(x0, 0);
    set_state(x1, 1);
    set_lse(l0, 0);
    set_lse(l1, 1);
    V3 out_call("out_call", p.tokens, p.heads, p.head_size),
        out_plan("out_plan", p.tokens, p.heads, p.head_size);
    L2 lse_call("lse_call", p.heads, p.tokens), lse_plan("lse_plan", p.heads, p.tokens);
    auto expect_plan_matches_call = [&](const std::string& form) {
      exec.fence();
      EXPECT_EQ(count_different_bits(to_host(out_plan), to_host(out_call)), 0)
          << form << " " << ctx;
      EXPECT_EQ(count_different_bits(to_host(lse_plan), to_host(lse_call)), 0)
          << form << " " << ctx;
    };
    auto poison = [&] {
      fill_view(out_plan, [&](auto, auto, auto) { return nan_value<T>(); });
      fill_view(lse_plan, [&](auto, auto) { return std::nanf(""); });
      fill_view(out_call, [&](auto, auto, auto) { return nan_value<T>(); });
      fill_view(lse_call, [&](auto, auto) { return std::nanf(""); });
    };

    // Two states. Making the plan launches nothing; the call made after it launches.
    poison();
    const auto two =
        MergeAttn::plan_merge_attn_states(exec, out_plan, x0, l0, x1, l1, lse_plan, opt);
    expect_mode(two, "2-way");
    exec.fence();
    EXPECT_TRUE(std::isnan(to_host(lse_plan)(0, 0))) << "making a plan launched it " << ctx;
    MergeAttn::merge_attn_states(exec, out_call, x0, l0, x1, l1, lse_call);
    two.execute();
    expect_plan_matches_call("2-way");
    // The inputs as they are at execute(): state 1 replaced by state 2.
    set_state(x1, 2);
    set_lse(l1, 2);
    two.execute();
    MergeAttn::merge_attn_states(exec, out_call, x0, l0, x1, l1, lse_call);
    expect_plan_matches_call("2-way, inputs changed after planning");

    // N states.
    poison();
    const auto nway = MergeAttn::plan_merge_attn_states(exec, out_plan, states, lse, lse_plan, opt);
    expect_mode(nway, "N-way");
    MergeAttn::merge_attn_states(exec, out_call, states, lse, lse_call);
    nway.execute();
    expect_plan_matches_call("N-way");

    // Variable length: tokens 0..36 with 0-4 states each, from the stacked states' rows of token
    // 0 and head-major LSEs, offsets ragged with empty tokens.
    {
      std::vector<std::int64_t> indptr(1, 0);
      for (std::int64_t t = 0; t < p.tokens; ++t) indptr.push_back(indptr.back() + (t * 7) % 5);
      const std::int64_t total = indptr.back();
      V3 packed("packed", total, p.heads, p.head_size);
      L2 packed_lse("packed_lse", p.heads, total);
      Kokkos::View<std::int64_t*, Mem> ip("indptr", p.tokens + 1);
      fill_view(packed, [&](auto i, auto h, auto d) {
        return p.x[p.xi(i % p.states, (i / p.states) % p.tokens, h, d)];
      });
      fill_view(packed_lse, [&](auto h, auto i) {
        return p.lse[p.li(i % p.states, h, (i / p.states) % p.tokens)];
      });
      fill_view(ip, [&](auto i) { return indptr[i]; });
      poison();
      const auto varlen = MergeAttn::plan_merge_attn_states_varlen(exec, out_plan, packed,
                                                                   packed_lse, ip, lse_plan, opt);
      expect_mode(varlen, "varlen");
      MergeAttn::merge_attn_states_varlen(exec, out_call, packed, packed_lse, ip, lse_call);
      varlen.execute();
      expect_plan_matches_call("varlen");
    }

    // Masked in place, on two copies of state 0: the mask as it is at execute().
    {
      Kokkos::View<std::uint8_t*, Mem> mask("mask", p.tokens);
      fill_view(mask, [&](auto t) { return std::uint8_t(t % 3 == 1 ? 0 : 1); });
      set_state(out_plan, 0);
      set_state(out_call, 0);
      set_lse(lse_plan, 0);
      set_lse(lse_call, 0);
      const auto masked = MergeAttn::plan_merge_attn_states_masked(exec, mask, out_plan, out_plan,
                                                                   lse_plan, x1, l1, lse_plan, opt);
      expect_mode(masked, "masked");
      MergeAttn::merge_attn_states_masked(exec, mask, out_call, out_call, lse_call, x1, l1,
                                          lse_call);
      masked.execute();
      expect_plan_matches_call("masked");
      fill_view(mask, [&](auto t) { return std::uint8_t(t % 3 == 1 ? 1 : 0); });
      masked.execute();
      MergeAttn::merge_attn_states_masked(exec, mask, out_call, out_call, lse_call, x1, l1,
                                          lse_call);
      expect_plan_matches_call("masked, mask changed after planning");
    }

    // A refused plan throws what the call throws; the calls launch afterwards.
    V3 short_out("short_out", p.tokens - 1, p.heads, p.head_size);
    try {
      (void)MergeAttn::plan_merge_attn_states(exec, short_out, x0, l0, x1, l1, opt);
      ADD_FAILURE() << "no exception " << ctx;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(
          std::string(e.what()).find("MergeAttn::merge_attn_states: argument 'prefix_output'"),
          std::string::npos)
          << e.what();
    }
    poison();
    MergeAttn::merge_attn_states(exec, out_call, x0, l0, x1, l1, lse_call);
    exec.fence();
    EXPECT_FALSE(std::isnan(to_host(lse_call)(0, 0))) << "no launch after a refused plan " << ctx;

    // No tokens: nothing to launch.
    V3 none("none", 0, p.heads, p.head_size);
    L2 none_lse("none_lse", p.heads, 0);
    const auto empty =
        MergeAttn::plan_merge_attn_states(exec, none, none, none_lse, none, none_lse, opt);
    EXPECT_FALSE(empty.launches());
    EXPECT_EQ(mode_name(empty.launch_mode()), mode_name(MergeAttn::PlanLaunch::kernel));
    empty.execute();
    EXPECT_FALSE(MergeAttn::MergePlan<Exec>().launches());

    // The plan holds the Views: its inputs and outputs outlive the caller's handles.
    {
      MergeAttn::MergePlan<Exec> kept;
      {
        V3 a("a", p.tokens, p.heads, p.head_size), b("b", p.tokens, p.heads, p.head_size);
        L2 la("la", p.heads, p.tokens), lb("lb", p.heads, p.tokens);
        set_state(a, 0);
        set_state(b, 2);
        set_lse(la, 0);
        set_lse(lb, 2);
        kept = MergeAttn::plan_merge_attn_states(exec, a, a, la, b, lb, la, opt);
        expect_mode(kept, "in place");
        out_plan = a;  // the only handle left on the output besides the plan's
        lse_plan = la;
      }
      // New allocations of the freed handles' sizes, NaN: they would likely take the addresses of
      // b and lb if the plan did not hold those Views (a graph holds only their pointers), and the
      // replay would read NaN.
      V3 decoy("decoy", p.tokens, p.heads, p.head_size);
      L2 decoy_lse("decoy_lse", p.heads, p.tokens);
      fill_view(decoy, [&](auto, auto, auto) { return nan_value<T>(); });
      fill_view(decoy_lse, [&](auto, auto) { return std::nanf(""); });
      kept.execute();
      set_state(out_call, 0);
      set_lse(lse_call, 0);
      MergeAttn::merge_attn_states(exec, out_call, out_call, lse_call, x1, l1, lse_call);
      expect_plan_matches_call("in place, caller's input handles gone");
    }

    // Replays and calls in a row on the same instance, nothing fenced between them: in place, each
    // launch reads what the one before it wrote.
    {
      set_state(out_plan, 0);
      set_state(out_call, 0);
      set_lse(lse_plan, 0);
      set_lse(lse_call, 0);
      const auto again = MergeAttn::plan_merge_attn_states(exec, out_plan, out_plan, lse_plan, x0,
                                                           l1, lse_plan, opt);
      expect_mode(again, "in place, repeated");
      for (int i = 0; i < 3; ++i) {
        again.execute();
        MergeAttn::merge_attn_states(exec, out_call, out_call, lse_call, x0, l1, lse_call, opt);
      }
      expect_plan_matches_call("in place, three launches in a row");
    }
  });
}

template <class Exec>
class MergePlans : public ::testing::Test {};
TYPED_TEST_SUITE(MergePlans, Backends, BackendNames);

TYPED_TEST(MergePlans, PlansLaunchWhatTheCallsLaunch) {
  for (const PlanLaunch mode : launch_modes<TypeParam>()) check_plans<TypeParam>(mode);
}

// PlanLaunch::cuda_graph on another execution space than Kokkos::Cuda is refused by name, before
// the arguments are checked or anything launches; on Kokkos::Cuda it is taken, and bad arguments
// get the merge function's own exception.
TYPED_TEST(MergePlans, GraphOnlyOnCuda) {
  using V3 = Kokkos::View<float***, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
  using L2 = Kokkos::View<float**, Kokkos::LayoutRight, DeviceMemory<TypeParam>>;
  V3 x("x", 3, 2, 8), y("y", 3, 2, 8), short_x("short_x", 2, 2, 8);
  L2 l("l", 2, 3), ly("ly", 2, 3);
  Kokkos::View<std::uint8_t*, DeviceMemory<TypeParam>> mask("mask", 3);
  MergeAttn::MergeOptions opt;
  opt.plan_launch = PlanLaunch::cuda_graph;
  const TypeParam exec;
  const auto expect_refused = [&](const auto& make, const std::string& function) {
    try {
      (void)make();
      ADD_FAILURE() << function << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("MergeAttn::" + function +
                                           ": MergeOptions::plan_launch is PlanLaunch::cuda_graph"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(TypeParam::name()), std::string::npos) << e.what();
    }
  };
  if (is_cuda<TypeParam>()) {
    if (tools_loaded()) {
      // Kokkos fences the device to call the tool at each launch: no capture, refused by name.
      try {
        (void)MergeAttn::plan_merge_attn_states_masked(exec, mask, x, x, l, y, ly, l, opt);
        ADD_FAILURE() << "no exception under a Kokkos Tools library";
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(kToolsRefusal), std::string::npos) << e.what();
      }
    } else {
      const auto masked =
          MergeAttn::plan_merge_attn_states_masked(exec, mask, x, x, l, y, ly, l, opt);
      EXPECT_EQ(mode_name(masked.launch_mode()), "cuda_graph");
    }
    try {
      (void)MergeAttn::plan_merge_attn_states(exec, short_x, x, l, y, ly, opt);
      ADD_FAILURE() << "no exception for a short output";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(
          std::string(e.what()).find("MergeAttn::merge_attn_states: argument 'prefix_output'"),
          std::string::npos)
          << e.what();
    }
    return;
  }
  expect_refused([&] { return MergeAttn::plan_merge_attn_states(exec, x, x, l, y, ly, opt); },
                 "plan_merge_attn_states");
  expect_refused(
      [&] { return MergeAttn::plan_merge_attn_states_masked(exec, mask, x, x, l, y, ly, l, opt); },
      "plan_merge_attn_states_masked");
  // Arguments that would be refused too: the launch mode is refused first.
  expect_refused([&] { return MergeAttn::plan_merge_attn_states(exec, short_x, x, l, y, ly, opt); },
                 "plan_merge_attn_states");
}

#if defined(KOKKOS_ENABLE_CUDA)
// The capture's failures (MergeAttn::Impl::plan_cuda_graph): PlanLaunch::automatic keeps Kokkos'
// launch, PlanLaunch::cuda_graph throws what failed, PlanLaunch::kernel captures nothing; a capture
// of anything but one kernel is refused; the capture stream works again afterwards.
TEST(MergePlansCuda, CaptureFailures) {
  using MergeAttn::Impl::PlannedLaunch;
  const Kokkos::Cuda exec;
  int kernel_launches = 0, enqueued = 0;
  const auto planned = [&](const PlanLaunch wanted) {
    PlannedLaunch p;
    p.wanted = wanted;
    p.launch = [&kernel_launches] { ++kernel_launches; };
    return p;
  };
  const auto fails = [&](const Kokkos::Cuda&) {
    ++enqueued;
    throw std::runtime_error("enqueue failed");
  };
  const auto launches_nothing = [&](const Kokkos::Cuda&) { ++enqueued; };

  PlannedLaunch automatic = planned(PlanLaunch::automatic);
  MergeAttn::Impl::plan_cuda_graph(automatic, exec, fails);
  // Under a Kokkos Tools library automatic captures nothing at all.
  const int tried = tools_loaded() ? 0 : 1;
  EXPECT_EQ(enqueued, tried);
  EXPECT_FALSE(automatic.graph);
  automatic.launch();
  EXPECT_EQ(kernel_launches, 1) << "automatic: Kokkos' launch kept after a failed capture";

  PlannedLaunch kernel = planned(PlanLaunch::kernel);
  MergeAttn::Impl::plan_cuda_graph(kernel, exec, fails);
  EXPECT_EQ(enqueued, tried) << "kernel: nothing captured";
  EXPECT_FALSE(kernel.graph);

  // cuda_graph: what failed, or under a Kokkos Tools library the refusal before any capture.
  PlannedLaunch forced = planned(PlanLaunch::cuda_graph);
  const auto expect_forced_throws = [&](const auto& enqueue, const std::string& what) {
    try {
      MergeAttn::Impl::plan_cuda_graph(forced, exec, enqueue);
      ADD_FAILURE() << "cuda_graph: no exception (" << what << ")";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(tools_loaded() ? kToolsRefusal : what),
                std::string::npos)
          << e.what();
    }
  };
  expect_forced_throws(fails, "enqueue failed");
  expect_forced_throws(launches_nothing, "captured 0 graph nodes, not one kernel node");
  EXPECT_EQ(enqueued, 3 * tried);
  EXPECT_FALSE(forced.graph);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  // The capture stream after the failures: a plan gets its graph (Kokkos' launch under a Kokkos
  // Tools library) and merges.
  using V3 = Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  using L2 = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  const auto p = make_many<float>(2, 5, 3, 16, 77);
  V3 x0("x0", 5, 3, 16), x1("x1", 5, 3, 16), out_plan("out_plan", 5, 3, 16),
      out_call("out_call", 5, 3, 16);
  L2 l0("l0", 3, 5), l1("l1", 3, 5), lse_plan("lse_plan", 3, 5), lse_call("lse_call", 3, 5);
  fill_view(x0, [&](auto t, auto h, auto d) { return p.x[p.xi(0, t, h, d)]; });
  fill_view(x1, [&](auto t, auto h, auto d) { return p.x[p.xi(1, t, h, d)]; });
  fill_view(l0, [&](auto h, auto t) { return p.lse[p.li(0, h, t)]; });
  fill_view(l1, [&](auto h, auto t) { return p.lse[p.li(1, h, t)]; });
  const auto plan = MergeAttn::plan_merge_attn_states(exec, out_plan, x0, l0, x1, l1, lse_plan);
  EXPECT_EQ(mode_name(plan.launch_mode()), tools_loaded() ? "kernel" : "cuda_graph");
  plan.execute();
  MergeAttn::merge_attn_states(exec, out_call, x0, l0, x1, l1, lse_call);
  exec.fence();
  EXPECT_EQ(count_different_bits(to_host(out_plan), to_host(out_call)), 0);
  EXPECT_EQ(count_different_bits(to_host(lse_plan), to_host(lse_call)), 0);
}
#endif

}  // namespace
