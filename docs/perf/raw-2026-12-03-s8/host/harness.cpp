// Session 8's host harness (not built by the project): the 2-way merge of tokens x 32 heads x d
// rows on the default host space against a deep_copy of half its bytes (the benchmark's roofline:
// half read, half written), medians of `reps` calls.
//   harness reps float|bf16|half|all d [nocopy|x] [tokens]
// Built against a copy of include/ with a variant applied (g++ -O2 -fopenmp -std=c++17, the host
// Kokkos install, src/libmerge_attn.a).
#include <MergeAttn.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
using Mem = Kokkos::HostSpace;
static bool g_nocopy = false;
static int g_tokens = 16384;
using Exec = Kokkos::DefaultHostExecutionSpace;
template <class T>
void run(const char* name, int tokens, int heads, int d, int reps) {
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  V a("a", tokens, heads, d), b("b", tokens, heads, d), o("o", tokens, heads, d);
  L la("la", heads, tokens), lb("lb", heads, tokens), lo("lo", heads, tokens);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, tokens), KOKKOS_LAMBDA(int t) {
        for (int h = 0; h < heads; ++h) {
          la(h, t) = 0.25f * ((t * 7 + h) % 13);
          lb(h, t) = 0.2f * ((t * 5 + h) % 11);
          for (int k = 0; k < d; ++k) {
            a(t, h, k) = T(float(k % 7));
            b(t, h, k) = T(float(k % 5));
            o(t, h, k) = T(0.f);
          }
        }
      });
  const size_t n = size_t(tokens) * heads * d;
  using C = Kokkos::View<char*, Mem>;
  const size_t bytes = 3 * n * sizeof(T) + 3 * size_t(tokens) * heads * 4;
  C src("src", bytes), dst("dst", bytes);
  Kokkos::deep_copy(src, 1);
  Kokkos::deep_copy(dst, 0);
  Exec exec;
  std::vector<double> tm, tc;
  for (int r = 0; r < reps + 2; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    MergeAttn::merge_attn_states(exec, o, a, la, b, lb, lo);
    exec.fence();
    auto t1 = std::chrono::steady_clock::now();
    if (!g_nocopy)
      Kokkos::deep_copy(exec, Kokkos::subview(dst, std::make_pair(size_t(0), bytes / 2)),
                        Kokkos::subview(src, std::make_pair(size_t(0), bytes / 2)));
    exec.fence();
    auto t2 = std::chrono::steady_clock::now();
    if (r >= 2) {
      tm.push_back(std::chrono::duration<double>(t1 - t0).count());
      tc.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
  }
  std::sort(tm.begin(), tm.end());
  std::sort(tc.begin(), tc.end());
  const double m = tm[tm.size() / 2], c = tc[tc.size() / 2];
  // copy moves bytes/2 read + bytes/2 write? we count merge bytes (2 reads + 1 write) vs copy of
  // same count
  std::printf("%-6s %6dx%dx%-4d merge %8.3f ms %6.2f GB/s  copy %8.3f ms  %5.1f %% of copy\n", name,
              tokens, heads, d, m * 1e3, bytes / m / 1e9, c * 1e3, 100.0 * c / m);
}
int main(int argc, char** argv) {
  Kokkos::ScopeGuard g(argc, argv);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 9;
  const std::string which = argc > 2 ? argv[2] : "all";
  int d = argc > 3 ? std::atoi(argv[3]) : 128;
  g_nocopy = argc > 4 && std::string(argv[4]) == "nocopy";
  if (argc > 5) g_tokens = std::atoi(argv[5]);
  if (which == "all" || which == "float") run<float>("float", g_tokens, 32, d, reps);
  if (which == "all" || which == "bf16") run<MergeAttn::bfloat16_t>("bf16", g_tokens, 32, d, reps);
  if (which == "all" || which == "half") run<MergeAttn::half_t>("half", g_tokens, 32, d, reps);
}
