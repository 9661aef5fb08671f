p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""          wt.fill = f[lane_cache_states + 2];
          merge_mode_row<Prefetch, Batch>(team, t, h, wt);
        }"""
new="""          wt.fill = f[lane_cache_states + 2];
          if constexpr (UsePacks && Prefetch > 0 && Batch == 4) {
            if (wt.mode == RowMode::weighted && wt.count <= 4 && k + 1 < K && m_vector_iters == m_num_packs &&
                index[2 * k + 2] == static_cast<std::int64_t>(RowMode::weighted)) {
              compute_type* g = fields + lane_weight_fields * (k + 1);
              Weights wb;
              start_weights(wb, t + 1, g, g, lane_cache_states);
              if (wb.count <= 4) {
                wb.mode = RowMode::weighted;
                wb.arg = index[2 * k + 3];
                wb.m = g[lane_cache_states];
                wb.inv = g[lane_cache_states + 1];
                wb.fill = g[lane_cache_states + 2];
                merge_two_rows<Prefetch>(team, t, h, wt, wb);
                ++k;
                continue;
              }
            }
          }
          merge_mode_row<Prefetch, Batch>(team, t, h, wt);
        }"""
assert s.count(old)==1; s=s.replace(old,new)
old="""  // The row of pair (t, h) as its mode says"""
new="""  // Two weighted pairs (t, h), (t + 1, h) of at most 4 states each: their loads issued together.
  template <int Prefetch>
  KOKKOS_INLINE_FUNCTION void merge_two_rows(const member_type& team, const std::int64_t t,
                                             const std::int64_t h, const Weights& wa,
                                             const Weights& wb) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
      merge_two_packs<Prefetch>(t, h, i, wa, wb);
    });
  }
  template <int Prefetch>
  KOKKOS_INLINE_FUNCTION void merge_two_packs(const std::int64_t t, const std::int64_t h,
                                              const int p, const Weights& wa,
                                              const Weights& wb) const {
    constexpr int u = 4;
    const std::int64_t step = m_states.state_stride() / pack_size;
    const Pack* sa = reinterpret_cast<const Pack*>(m_states.row(wa.first, t, h)) + p;
    const Pack* sb = reinterpret_cast<const Pack*>(m_states.row(wb.first, t + 1, h)) + p;
    if constexpr (Prefetch > 0)
      if (p + m_vector_length < m_num_packs)
        for (int j = 0; j < u; ++j) {
          if (j < wa.count)
            prefetch_l2(reinterpret_cast<std::uintptr_t>(sa + j * step + m_vector_length));
          if (j < wb.count)
            prefetch_l2(reinterpret_cast<std::uintptr_t>(sb + j * step + m_vector_length));
        }
    compute_type wa_[u], wb_[u];
    Pack xa[u], xb[u];
#pragma unroll
    for (int j = 0; j < u; ++j) {
      wa_[j] = j < wa.count ? wa.cache[j] : compute_type(-1);
      wb_[j] = j < wb.count ? wb.cache[j] : compute_type(-1);
    }
#pragma unroll
    for (int j = 0; j < u; ++j)
      if (wa_[j] >= compute_type(0)) xa[j] = sa[j * step];
#pragma unroll
    for (int j = 0; j < u; ++j)
      if (wb_[j] >= compute_type(0)) xb[j] = sb[j * step];
    store_sum(reinterpret_cast<Pack*>(&m_output(t, h, 0)) + p, wa_, xa);
    store_sum(reinterpret_cast<Pack*>(&m_output(t + 1, h, 0)) + p, wb_, xb);
  }
  static KOKKOS_FORCEINLINE_FUNCTION void store_sum(Pack* out, const compute_type (&w)[4],
                                                    const Pack (&x)[4]) {
    compute_type acc[pack_size];
#pragma unroll
    for (int k = 0; k < pack_size; ++k) acc[k] = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (w[j] >= compute_type(0))
#pragma unroll
        for (int k = 0; k < pack_size; ++k) acc[k] += w[j] * traits::load(x[j].v[k]);
    Pack o;
#pragma unroll
    for (int k = 0; k < pack_size; ++k) traits::store(o.v[k], acc[k]);
    *out = o;
  }

  // The row of pair (t, h) as its mode says"""
assert s.count(old)==1; s=s.replace(old,new)
open(p,'w').write(s)
