// Session 24: where the host time of a small CUDA merge goes. Each entry is the median host time of
// one call (timer around the call only; a fence after every 16 calls, outside the timer), 20000
// calls after 200 warm-up calls. Built against the CUDA Kokkos of a supply prefix and MergeAttn's
// headers (build-harness.sh); runs on the GPU machine.
#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "PlainCudaMerge.hpp"  // perf/

namespace {

using Exec = Kokkos::Cuda;
using Clock = std::chrono::steady_clock;

template <class F>
double host_median_ns(F&& f, const int reps = 20000) {
  for (int i = 0; i < 200; ++i) f();
  Kokkos::fence();
  std::vector<double> t;
  t.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    const auto a = Clock::now();
    f();
    const auto b = Clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(b - a).count());
    if (i % 16 == 15) Kokkos::fence();
  }
  Kokkos::fence();
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Big {
  char bytes[400];
};
__global__ void big_param_kernel(Big b) {
  if (b.bytes[threadIdx.x % 400] == 123) b.bytes[0] = 0;
}

using V3 = Kokkos::View<MergeAttn::bfloat16_t***, Kokkos::LayoutRight, Kokkos::CudaSpace>;
using L2 = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace>;

// An empty team functor of N bytes (the kernel argument grows with it).
template <int N>
struct PaddedTeam {
  char pad[N];
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {
    if (pad[0] == 123) printf("never\n");
  }
};
template <int N>
struct Bytes {
  char b[N];
};
template <int N>
__global__ void bytes_kernel(Bytes<N> b) {
  if (b.b[threadIdx.x % N] == 123) b.b[0] = 0;
}

struct EmptyTeam {
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};
struct ViewsTeam {  // the merge's six Views, unused
  V3 a, b, c;
  L2 x, y, z;
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};

template <class T>
void keep(const T& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const Exec exec;
  const V3 out("out", 1, 32, 128), pre("pre", 1, 32, 128), suf("suf", 1, 32, 128);
  const L2 pl("pl", 32, 1), sl("sl", 32, 1), ol("ol", 32, 1);
  const V3 out0("out0", 0, 32, 128), pre0("pre0", 0, 32, 128), suf0("suf0", 0, 32, 128);
  const L2 pl0("pl0", 32, 0), sl0("sl0", 32, 0), ol0("ol0", 32, 0);
  const auto hint = Kokkos::Experimental::WorkItemProperty::HintLightWeight;
  static const std::string label("label");
  using MergeF = MergeAttn::Impl::MergeFunctor<
      Exec, V3, L2, MergeAttn::Impl::TwoStates<V3, L2, V3, L2, MergeAttn::Impl::NoMask>, true,
      MergeAttn::Impl::DefaultLse>;
  std::printf("sizeof_merge_functor %zu\n", sizeof(MergeF));
  std::printf("sizeof_view3 %zu sizeof_view2 %zu\n", sizeof(V3), sizeof(L2));
  std::printf("entry host_ns_median\n");
  auto row = [](const char* name, double ns) { std::printf("%s %.1f\n", name, ns); };
  row("clock_only", host_median_ns([] {}));
  row("raw_empty_2x128", host_median_ns([&] { MergeAttnPerf::empty_launch(exec.cuda_stream()); }));
  row("raw_param400_2x128",
      host_median_ns([&] { big_param_kernel<<<2, 128, 0, exec.cuda_stream()>>>(Big{}); }));
  row("plain_merge_1x32x128_bf16", host_median_ns([&] {
        MergeAttnPerf::plain_merge<MergeAttn::bfloat16_t,
                                   MergeAttn::Impl::ValueTraits<MergeAttn::bfloat16_t>>(
            exec.cuda_stream(), out.data(), ol.data(), pre.data(), pl.data(), suf.data(), sl.data(),
            1, 32, 128);
      }));
  row("team_policy_require", host_median_ns([&] {
        auto p = Kokkos::Experimental::require(Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), hint);
        keep(p);
      }));
  row("exec_copy", host_median_ns([&] {
        Exec e(exec);
        keep(e);
      }));
  row("cuda_default_ctor", host_median_ns([&] {
        Exec e;
        keep(e);
      }));
  row("six_view_copies", host_median_ns([&] {
        ViewsTeam f{out, pre, suf, pl, sl, ol};
        keep(f);
      }));
  row("kokkos_team_empty_literal_label", host_median_ns([&] {
        Kokkos::parallel_for("label", Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), EmptyTeam{});
      }));
  row("kokkos_team_empty", host_median_ns([&] {
        Kokkos::parallel_for(label, Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), EmptyTeam{});
      }));
  row("kokkos_team_empty_light", host_median_ns([&] {
        Kokkos::parallel_for(
            label, Kokkos::Experimental::require(Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), hint),
            EmptyTeam{});
      }));
  row("kokkos_team_six_views_light", host_median_ns([&] {
        Kokkos::parallel_for(
            label, Kokkos::Experimental::require(Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), hint),
            ViewsTeam{out, pre, suf, pl, sl, ol});
      }));
  // Kernel argument size: raw launches and Kokkos light team launches of empty functors.
  const auto raw = [&](auto tag) {
    constexpr int n = decltype(tag)::value;
    return host_median_ns([&] { bytes_kernel<n><<<2, 128, 0, exec.cuda_stream()>>>(Bytes<n>{}); });
  };
  const auto team = [&](auto tag) {
    constexpr int n = decltype(tag)::value;
    return host_median_ns([&] {
      Kokkos::parallel_for(
          label, Kokkos::Experimental::require(Kokkos::TeamPolicy<Exec>(exec, 8, 4, 32), hint),
          PaddedTeam<n>{});
    });
  };
  row("raw_args_16", raw(std::integral_constant<int, 16>{}));
  row("raw_args_256", raw(std::integral_constant<int, 256>{}));
  row("raw_args_512", raw(std::integral_constant<int, 512>{}));
  row("raw_args_1024", raw(std::integral_constant<int, 1024>{}));
  row("raw_args_2048", raw(std::integral_constant<int, 2048>{}));
  row("team_light_functor_16", team(std::integral_constant<int, 16>{}));
  row("team_light_functor_256", team(std::integral_constant<int, 256>{}));
  row("team_light_functor_512", team(std::integral_constant<int, 512>{}));
  row("team_light_functor_1024", team(std::integral_constant<int, 1024>{}));
  row("team_light_functor_2048", team(std::integral_constant<int, 2048>{}));
  row("merge_0_tokens",
      host_median_ns([&] { MergeAttn::merge_attn_states(exec, out0, pre0, pl0, suf0, sl0, ol0); }));
  row("merge_1x32x128_bf16",
      host_median_ns([&] { MergeAttn::merge_attn_states(exec, out, pre, pl, suf, sl, ol); }));
  row("merge_1x32x128_bf16_no_output_lse",
      host_median_ns([&] { MergeAttn::merge_attn_states(exec, out, pre, pl, suf, sl); }));
  return 0;
}
