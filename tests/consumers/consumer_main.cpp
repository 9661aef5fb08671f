// A minimal Kokkos program using MergeAttn, built by the two consumer projects (find_package of an
// installed MergeAttn; add_subdirectory of the source tree). Merges two states whose result is
// known in closed form and exits non-zero if it is not what it must be.
//
// prefix = 1 everywhere with LSE log(1) = 0, suffix = 3 everywhere with LSE log(3):
//   weights 1/(1+3) and 3/(1+3), output = 1/4 * 1 + 3/4 * 3 = 2.5, output_lse = log(4).
#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  const int tokens = 5, heads = 3, head_size = 64;
  Kokkos::View<float***, Kokkos::LayoutRight, Exec::memory_space> out("out", tokens, heads,
                                                                      head_size),
      pre("pre", tokens, heads, head_size), suf("suf", tokens, heads, head_size);
  Kokkos::View<float**, Kokkos::LayoutRight, Exec::memory_space> pre_lse("pre_lse", heads, tokens),
      suf_lse("suf_lse", heads, tokens), out_lse("out_lse", heads, tokens);
  Kokkos::deep_copy(pre, 1.0f);
  Kokkos::deep_copy(suf, 3.0f);
  Kokkos::deep_copy(pre_lse, 0.0f);
  Kokkos::deep_copy(suf_lse, std::log(3.0f));

  const Exec exec;
  MergeAttn::merge_attn_states(exec, out, pre, pre_lse, suf, suf_lse, out_lse);

  const auto h_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  const auto h_lse = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out_lse);
  int bad = 0;
  for (int t = 0; t < tokens; ++t)
    for (int h = 0; h < heads; ++h) {
      for (int d = 0; d < head_size; ++d)
        if (!(std::fabs(h_out(t, h, d) - 2.5f) <= 1e-6f)) ++bad;
      if (!(std::fabs(h_lse(h, t) - std::log(4.0f)) <= 1e-6f)) ++bad;
    }
  std::printf("MergeAttn consumer on %s: %d wrong values of %d\n", Exec::name(), bad,
              tokens * heads * (head_size + 1));
  return bad == 0 ? 0 : 1;
}
