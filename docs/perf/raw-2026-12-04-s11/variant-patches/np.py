# Variant np: in LanePairs<8, true>, the next pair's rows (its first row_prefetch_distance states
# when weighted, its copied state when copied) are asked of L2 before this pair's row moves.
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""          merge_mode_row<Prefetch>(team, t, h, wt);
        }"""
assert s.count(old)==1
s=s.replace(old,"""          if constexpr (Prefetch > 0) {
            if (k + 1 < K && index[2 * k + 2] >= 0) {
              const std::int64_t tn = t0 + k + 1;
              const RowMode next = static_cast<RowMode>(index[2 * k + 2]);
              if (next == RowMode::weighted) {
                const std::int64_t n = m_states.count(tn);
                prefetch_state_rows(team, tn, h, m_states.first(tn), n < NP_STATES ? n : NP_STATES);
              } else if (next == RowMode::copy) {
                prefetch_state_rows(team, tn, h, m_states.first(tn) + index[2 * k + 3], 1);
              }
            }
          }
          merge_mode_row<Prefetch>(team, t, h, wt);
        }""")
old="""  // Latency-bound launches: while the LSEs are on their way, ask L2 for the pair's rows (the"""
assert s.count(old)==1
s=s.replace(old,"""  KOKKOS_INLINE_FUNCTION void prefetch_state_rows(const member_type& team, const std::int64_t t,
                                                  const std::int64_t h, const std::int64_t first,
                                                  const std::int64_t n) const {
    if constexpr (weight_cache && UsePacks) {
      if (n <= 0) return;
      const std::uintptr_t a0 = reinterpret_cast<std::uintptr_t>(m_states.row(first, t, h));
      const std::uintptr_t stride = std::uintptr_t(m_states.state_stride()) * sizeof(value_type);
      const int most_lines =
          static_cast<int>((std::int64_t(m_head_size) * sizeof(value_type) + 127) >> 7) + 1;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, most_lines), [&](const int j) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::uintptr_t a = a0 + std::uintptr_t(i) * stride;
          if (j < row_lines(a)) prefetch_l2(a + (std::uintptr_t(j) << 7));
        }
      });
    }
  }

""" + old)
import os
s=s.replace("NP_STATES", os.environ.get("NP_STATES","4"))
open(p,'w').write(s)
