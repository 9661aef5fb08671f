# Session 19, host (rejected: no gain measured): the N-state weights on host spaces in float with
# the branch-free host_exp_nonpositive (the 2-way weights' exponential), and in the host runs one
# exponential per state, kept for its weight (weight_from computed each twice). Same bits between
# the runs and one pair at a time; within the tolerance of the double reference.
#   python3 host-exp.py include/MergeAttn/impl/MergeAttn_MergeKernel.hpp
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep("""      wt.mode = RowMode::weighted;
      compute_type rest = 0;
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type x = staged_lse(wt, i, t, h);
        const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
        rest += ei;
      }
""", """      wt.mode = RowMode::weighted;
      if constexpr (host_space && staged_weights) {
        if (n == wt.count) {
          host_staged_weights(wt, n);
          return;
        }
      }
      compute_type rest = 0;
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type x = staged_lse(wt, i, t, h);
        const compute_type ei =
            (i == wt.arg || x == -inf) ? compute_type(0) : exp_nonpositive(x - wt.m);
        rest += ei;
      }
""")
rep("""#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  // cp.async (sm_80+)""", """  KOKKOS_INLINE_FUNCTION void host_staged_weights(Weights& wt, const int n) const {
    const compute_type inf = infinity<compute_type>();
    compute_type* e = wt.staged;  // the LSEs in, e^(lse_i - m) (-1: empty) out
    for (int i = 0; i < n; ++i) {
      const compute_type x = e[i];
      e[i] = x == -inf ? compute_type(-1) : exp_nonpositive(x - wt.m);
    }
    compute_type rest = 0;
    for (int i = 0; i < n; ++i)
      if (i != wt.arg && e[i] > compute_type(0)) rest += e[i];
    wt.inv = compute_type(1) / (compute_type(1) + rest);
    wt.lse = wt.m + log1p_(rest);
    for (int i = 0; i < n; ++i)
      wt.cache[i] = i == wt.arg ? wt.inv : e[i] < compute_type(0) ? compute_type(-1) : e[i] * wt.inv;
  }

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  // cp.async (sm_80+)""")
rep("    return x == -infinity<compute_type>() ? compute_type(-1) : exp_(x - wt.m) * wt.inv;",
    "    return x == -infinity<compute_type>() ? compute_type(-1) : exp_nonpositive(x - wt.m) * wt.inv;")
open(p, 'w').write(s)
