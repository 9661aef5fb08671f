# Variant B: eager row loads in the 2-way PairsPerThread<1> path (whole packs, GPU).
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old='''      for (int j = 0; j < K; ++j)
        if (valid[j]) merge_pair(team, t[j], h[j], lse[j], cache);
    }
  }'''
new='''      if constexpr (K == 1 && lane_pairs) {
        if (valid[0] && m_num_packs == m_vector_iters && !m_prefetch_rows) {
          eager_pair(team, t[0], h[0], lse[0]);
          continue;
        }
      }
      for (int j = 0; j < K; ++j)
        if (valid[j]) merge_pair(team, t[j], h[j], lse[j], cache);
    }
  }

  KOKKOS_INLINE_FUNCTION void eager_pair(const member_type& team, const std::int64_t t,
                                         const std::int64_t h,
                                         const compute_type (&lse)[cached]) const {
    if constexpr (lane_pairs) {
      const Pack* x0 = reinterpret_cast<const Pack*>(m_states.row(0, t, h));
      const Pack* y0 = reinterpret_cast<const Pack*>(m_states.row(1, t, h));
      Pack* o = reinterpret_cast<Pack*>(&m_output(t, h, 0));
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_num_packs), [&](const int p) {
        const Pack x = x0[p];
        const Pack y = y0[p];
        Weights wt;
        wt.w[0] = 0;
        wt.w[1] = 0;
        wt.fill = 0;
        two_state_weights(wt, empty_as_minus_inf(lse[0]), empty_as_minus_inf(lse[1]));
        o[p] = code_pack(pair_code(wt), wt.w[0], wt.w[1], x, y);
      });
      if constexpr (has_output_lse) {
        Kokkos::single(Kokkos::PerThread(team), [&]() {
          Weights wt;
          wt.fill = 0;
          two_state_weights(wt, empty_as_minus_inf(lse[0]), empty_as_minus_inf(lse[1]));
          lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
              static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
        });
      }
    }
  }'''
assert old in s; s=s.replace(old,new); open(p,'w').write(s)
