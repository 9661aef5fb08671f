# Variant "lsepf": the N-state prefetching forms with a capped league (env MA_TEAMS_PER_SM: teams
# per multiprocessor, 0 = every slot once) and an L2 prefetch of the next step's LSEs (env
# MA_LSEPF=1), issued after the current step's weights.
import sys
p=sys.argv[1]
s=open(p).read()
def rep(a,b,cnt=1):
    global s
    assert s.count(a)==cnt,(s.count(a),a)
    s=s.replace(a,b)
# lse_address in the three policies
rep("""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return i == 0 ? &prefix(t, h, 0) : &suffix(t, h, 0);
  }""","""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return i == 0 ? &prefix(t, h, 0) : &suffix(t, h, 0);
  }
  KOKKOS_INLINE_FUNCTION const void* lse_address(const std::int64_t i, const std::int64_t t,
                                                 const std::int64_t h, const bool th) const {
    return i == 0 ? (const void*)&lse_ref(prefix_lse, th, t, h) : (const void*)&lse_ref(suffix_lse, th, t, h);
  }""")
rep("""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return &states(i, t, h, 0);
  }""","""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return &states(i, t, h, 0);
  }
  KOKKOS_INLINE_FUNCTION const void* lse_address(const std::int64_t i, const std::int64_t t,
                                                 const std::int64_t h, const bool th) const {
    return th ? &states_lse(i, t, h) : &states_lse(i, h, t);
  }""")
rep("""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, std::int64_t,
                                               const std::int64_t h) const {
    return &states(i, h, 0);
  }""","""  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, std::int64_t,
                                               const std::int64_t h) const {
    return &states(i, h, 0);
  }
  KOKKOS_INLINE_FUNCTION const void* lse_address(const std::int64_t i, std::int64_t,
                                                 const std::int64_t h, const bool th) const {
    return th ? &states_lse(i, h) : &states_lse(h, i);
  }""")
rep("""  void set_prefetch_rows(const bool on) { m_prefetch_rows = on && fixed > 0; }""",
"""  void set_prefetch_rows(const bool on) { m_prefetch_rows = on && fixed > 0; }
  void set_lse_prefetch(const bool on) { m_lse_prefetch = on; }""")
rep("""  bool m_prefetch_rows = false;""","""  bool m_prefetch_rows = false;
  bool m_lse_prefetch = false;""")
# pair_runs: prefetch next pair's LSEs
rep("""      if (m_prefetch_rows)
        for (int j = 0; j < K; ++j)
          if (valid[j]) prefetch_rows(team, t[j], h[j]);""","""      if (m_prefetch_rows)
        for (int j = 0; j < K; ++j)
          if (valid[j]) prefetch_rows(team, t[j], h[j]);
      if constexpr (weight_cache && Prefetch > 0 && K == 1) {
        if (m_lse_prefetch && first + step < m_num_slots) {
          std::int64_t nt = 0, nh = 0;
          if (slot_pair(first + step, nt, nh)) {
            const std::int64_t c = m_states.count(nt);
            const int n = static_cast<int>(c < m_cache_states ? c : m_cache_states);
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](const int i) {
              prefetch_l2(reinterpret_cast<std::uintptr_t>(
                  m_states.lse_address(m_states.first(nt) + i, nt, nh, m_lse.tokens_heads())));
            });
          }
        }
      }""")
# for_lane_batches passes the next slot
rep("""      std::int64_t t0 = 0, h = 0;
      slot_pair(q, t0, h);
      f(t0, h);""","""      std::int64_t t0 = 0, h = 0;
      slot_pair(q, t0, h);
      f(t0, h, q + step);""")
rep("""      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          int code = pair_skip;""","""      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h, std::int64_t) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          int code = pair_skip;""")
rep("""      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          if (t >= m_num_tokens) {""","""      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h,
                                    const std::int64_t nq) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          if (t >= m_num_tokens) {""")
rep("""        // The state ring: the pairs whose rows it moves (weighted, all weights cached, whole
        // packs), all of them in one pass; the others after it, as merge_mode_row moves them.
        unsigned ring_rows = 0;""","""        if constexpr (Prefetch > 0) {
          if (m_lse_prefetch && nq < m_num_slots) {
            std::int64_t n0 = 0, nh = 0;
            slot_pair(nq, n0, nh);
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
              const std::int64_t t = n0 + k;
              if (t >= m_num_tokens) return;
              const std::int64_t c = m_states.count(t);
              const int n = static_cast<int>(c < cache ? c : cache);
              for (int i = 0; i < n; ++i)
                prefetch_l2(reinterpret_cast<std::uintptr_t>(
                    m_states.lse_address(m_states.first(t) + i, t, nh, m_lse.tokens_heads())));
            });
          }
        }
        // The state ring: the pairs whose rows it moves (weighted, all weights cached, whole
        // packs), all of them in one pass; the others after it, as merge_mode_row moves them.
        unsigned ring_rows = 0;""")
# launch: env
rep("""  const int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));""",
"""  int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value && functor_type::weight_cache) {
    static const int env_tps = [] { const char* e = std::getenv("MA_TEAMS_PER_SM"); return e ? std::atoi(e) : 0; }();
    static const bool env_pf = [] { const char* e = std::getenv("MA_LSEPF"); return e && std::atoi(e) != 0; }();
    if (shape.prefetch_states) {
      functor.set_lse_prefetch(env_pf);
      if (env_tps > 0) {
        const std::int64_t cap = std::int64_t(env_tps) * exec.cuda_device_prop().multiProcessorCount;
        if (cap < league_size) league_size = static_cast<int>(cap);
      }
    }
  }
#endif""")
rep("#include <algorithm>\n","#include <algorithm>\n#include <cstdlib>\n")
open(p,'w').write(s)
