import sys
p=sys.argv[1]; s=open(p).read()
old='''        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_num_packs),
                             [&](const int p) { lane_pair_packs<K>(t0, h, p, fields); });'''
new='''        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
          if (i < m_num_packs) {
            lane_pair_packs<K>(t0, h, i, fields);
          } else {
            const int d = m_num_packs * pack_size + (i - m_num_packs);
            lane_pair_elements<K>(t0, h, d, fields);
          }
        });'''
assert s.count(old)==1; s=s.replace(old,new)
old='''  // The row prefetch (CUDA prefetch hints'''
new='''  template <int K>
  KOKKOS_INLINE_FUNCTION void lane_pair_elements(const std::int64_t t0, const std::int64_t h,
                                                 const int d, const compute_type* fields) const {
    for (int k = 0; k < K; ++k) {
      const int code = static_cast<int>(fields[lane_pair_fields * k + 2]);
      const std::int64_t t = t0 + k;
      if (code == pair_weighted) {
        m_output(t, h, d) = traits::from_compute(
            fields[lane_pair_fields * k] * traits::to_compute(m_states.value(0, t, h, d)) +
            fields[lane_pair_fields * k + 1] * traits::to_compute(m_states.value(1, t, h, d)));
      } else if (code == pair_copy_0 || code == pair_copy_1) {
        m_output(t, h, d) = m_states.value(code == pair_copy_0 ? 0 : 1, t, h, d);
      } else if (code != pair_skip) {
        m_output(t, h, d) = traits::from_compute(code == pair_fill_nan ? quiet_nan<compute_type>()
                                                                       : compute_type(0));
      }
    }
  }
  // The row prefetch (CUDA prefetch hints'''
assert s.count(old)==1; s=s.replace(old,new)
open(p,'w').write(s)
