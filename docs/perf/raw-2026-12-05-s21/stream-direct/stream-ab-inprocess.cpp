// Session 21: in-process A/B of the host streamed rows
// (variant-patches/host-streamed-rows-direct.diff applied): the same merge forced to regular and to
// streaming stores (LaunchShape::host_stores), alternating calls, medians. Build against the
// variant tree's headers and the host Kokkos.
#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

template <class T>
void run(const char* name, long tokens, long heads, long d, int rounds) {
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  V a("a", tokens, heads, d), b("b", tokens, heads, d), out("out", tokens, heads, d);
  L la("la", heads, tokens), lb("lb", heads, tokens), lo("lo", heads, tokens);
  Kokkos::deep_copy(a, T(1.0f));
  Kokkos::deep_copy(b, T(2.0f));
  Kokkos::deep_copy(lb, 0.7f);
  using Shape = MergeAttn::Impl::LaunchShape;
  Shape reg{1, 1}, str{1, 1};
  reg.host_stores = MergeAttn::Impl::HostStores::regular;
  str.host_stores = MergeAttn::Impl::HostStores::streaming;
  const Kokkos::DefaultHostExecutionSpace exec;
  std::vector<double> tr, ts;
  for (int r = 0; r < rounds + 2; ++r)
    for (int k = 0; k < 2; ++k) {
      const Shape* s = (r + k) % 2 ? &str : &reg;  // alternate which goes first
      Kokkos::Timer timer;
      MergeAttn::Impl::merge_attn_states_impl(exec, out, a, la, b, lb, lo, {}, s);
      exec.fence();
      const double t = timer.seconds();
      if (r >= 2) (s == &str ? ts : tr).push_back(t);
    }
  std::sort(tr.begin(), tr.end());
  std::sort(ts.begin(), ts.end());
  const double mr = tr[tr.size() / 2], ms = ts[ts.size() / 2];
  std::printf(
      "%-5s %6ldx%ldx%-4ld regular %8.3f ms  streamed %8.3f ms  streamed/regular %.3f  (min %.3f / "
      "%.3f)\n",
      name, tokens, heads, d, mr * 1e3, ms * 1e3, ms / mr, tr[0] * 1e3, ts[0] * 1e3);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for (int pass = 0; pass < 2; ++pass) {
      run<float>("float", 16384, 32, 128, 15);
      run<MergeAttn::half_t>("half", 16384, 32, 128, 15);
      run<MergeAttn::bfloat16_t>("bf16", 16384, 32, 128, 15);
      run<float>("float", 16384, 32, 576, 7);
      run<MergeAttn::half_t>("half", 16384, 32, 576, 7);
      run<MergeAttn::bfloat16_t>("bf16", 16384, 32, 576, 7);
    }
  }
  Kokkos::finalize();
}
