import sys
p=sys.argv[1]
s=open(p).read()
old="""        for (int k = 0; k < K; ++k) {
          if (index[2 * k] < 0) continue;  // past the last token: the same for all lanes
          const std::int64_t t = t0 + k;
          compute_type* f = fields + lane_weight_fields * k;"""
new="""        const auto pf = [&](const int k) {
          if (k >= K || index[2 * k] != static_cast<std::int64_t>(RowMode::weighted)) return;
          const std::int64_t t = t0 + k;
          const compute_type* f = fields + lane_weight_fields * k;
          const std::int64_t n = m_states.count(t) < cache_states ? m_states.count(t) : cache_states;
          const int lmax = static_cast<int>((std::int64_t(m_head_size) * sizeof(value_type)) >> 7) + 2;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, int(n) * lmax), [&](const int q) {
            const int i = q / lmax, j = q - i * lmax;
            if (f[i] < compute_type(0)) return;
            const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(m_states.row(m_states.first(t) + i, t, h));
            if (j < row_lines(a)) prefetch_l2((a & ~std::uintptr_t(127)) + (std::uintptr_t(j) << 7));
          });
        };
        pf(0);
        for (int k = 0; k < K; ++k) {
          if (index[2 * k] < 0) continue;  // past the last token: the same for all lanes
          pf(k + 1);
          const std::int64_t t = t0 + k;
          compute_type* f = fields + lane_weight_fields * k;"""
assert old in s
s=s.replace(old,new)
open(p,'w').write(s)
