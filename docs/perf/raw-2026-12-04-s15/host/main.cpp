#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
// merge_<f|h|b><Old|New>: side.cpp built with main's headers (Old) and the variant's (New).
#define DECL(NAME, SIDE) \
  void merge_##NAME##SIDE(void*, void*, float*, void*, float*, float*, long, long, long)
DECL(f, Old);
DECL(h, Old);
DECL(b, Old);
DECL(f, New);
DECL(h, New);
DECL(b, New);
typedef void (*Fn)(void*, void*, float*, void*, float*, float*, long, long, long);
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    struct Case {
      const char* name;
      int size;
      Fn oldf, newf;
      long t, d;
    };
    std::vector<Case> cases;
    for (long t : {1024L, 16384L})
      for (long d : {128L, 576L}) {
        cases.push_back({"float", 4, merge_fOld, merge_fNew, t, d});
        cases.push_back({"half", 2, merge_hOld, merge_hNew, t, d});
        cases.push_back({"bf16", 2, merge_bOld, merge_bNew, t, d});
      }
    const long h = 32;
    for (const Case& c : cases) {
      const std::size_t n = std::size_t(c.t) * h * c.d * c.size;
      std::vector<char> o(n), p(n), s(n), o2(n);
      for (std::size_t i = 0; i < n; i += 2) {
        p[i + 1] = 0x3f;
        s[i + 1] = 0x3e;
        p[i] = char(i * 7);
        s[i] = char(i * 13);
      }
      std::vector<float> pl(c.t * h), sl(c.t * h), ol(c.t * h), ol2(c.t * h);
      for (std::size_t i = 0; i < pl.size(); ++i) {
        pl[i] = 0.1f * (i % 17);
        sl[i] = 0.7f - 0.05f * (i % 23);
      }
      std::vector<double> to, tn;
      const int reps = c.t > 4096 ? 3 : 20;
      for (int round = 0; round < 15; ++round) {
        for (int side = 0; side < 2; ++side) {
          Fn f = side == 0 ? c.oldf : c.newf;
          char* out = side == 0 ? o.data() : o2.data();
          float* olp = side == 0 ? ol.data() : ol2.data();
          f(out, p.data(), pl.data(), s.data(), sl.data(), olp, c.t, h, c.d);  // warm
          Kokkos::Timer tm;
          for (int r = 0; r < reps; ++r)
            f(out, p.data(), pl.data(), s.data(), sl.data(), olp, c.t, h, c.d);
          Kokkos::fence();
          (side == 0 ? to : tn).push_back(tm.seconds() / reps);
        }
      }
      std::sort(to.begin(), to.end());
      std::sort(tn.begin(), tn.end());
      const bool same = std::memcmp(o.data(), o2.data(), n) == 0 &&
                        std::memcmp(ol.data(), ol2.data(), ol.size() * 4) == 0;
      const double bytes = 3.0 * n + 3.0 * 4 * c.t * h;
      std::printf(
          "%-6s %5ldx32x%-4ld old %8.1f us (%5.1f GB/s)  new %8.1f us (%5.1f GB/s)  new/old %.3f  "
          "[min %.3f]  same bits %d\n",
          c.name, c.t, c.d, to[7] * 1e6, bytes / to[7] * 1e-9, tn[7] * 1e6, bytes / tn[7] * 1e-9,
          tn[7] / to[7], tn[0] / to[0], int(same));
      std::fflush(stdout);
    }
  }
  Kokkos::finalize();
}
