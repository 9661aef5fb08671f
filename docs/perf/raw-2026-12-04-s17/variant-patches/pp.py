# pp: N-state weighted rows of exactly two packs per lane: each state step loads both of the lane's
# packs (p and p + vector_length), so a team thread reads its whole row of a state at once.
# PPMODE env at patch time: "A" = Batch/2 states x 2 packs in flight, "B" = Batch states x 2 packs.
import sys, os
p = sys.argv[1]; s = open(p).read()
mode = os.environ.get('PPMODE', 'A')
old = '''      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode, Prefetch, Batch>(t, h, i, wt);'''
new = '''      if constexpr (Mode == RowMode::weighted && fixed == 0 && UsePacks) {
        if (m_num_packs == m_vector_iters && m_num_packs == 2 * m_vector_length) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_length),
                               [&](const int i) { merge_pack2<Prefetch, Batch>(t, h, i, wt); });
          return;
        }
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode, Prefetch, Batch>(t, h, i, wt);'''
assert old in s; s = s.replace(old, new)
U = 'Batch / 2 < 1 ? 1 : Batch / 2' if mode == 'A' else 'Batch'
anchor = '''  // w0 * x + w1 * y, element by element in the compute type.'''
fn = '''  // Packs p and p + m_vector_length of a weighted N-state row, state by state.
  template <int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void merge_pack2(const std::int64_t t, const std::int64_t h, const int p,
                                          const Weights& wt) const {
    const int q = p + m_vector_length;
    compute_type acc0[pack_size], acc1[pack_size];
    for (int k = 0; k < pack_size; ++k) acc0[k] = acc1[k] = 0;
    constexpr int u = %s;
    const Pack* src = reinterpret_cast<const Pack*>(m_states.row(wt.first, t, h)) + p;
    const std::int64_t step = m_states.state_stride() / pack_size;
    const int dq = m_vector_length;
    std::int64_t i = 0;
    while (i + u <= wt.count) {
      if constexpr (Prefetch > 0)
        for (int j = 0; j < u; ++j)
          if (i + j + Prefetch < wt.count) {
            prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));
            prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step + dq));
          }
      compute_type w[u];
      Pack x[u], y[u];
      for (int j = 0; j < u; ++j) w[j] = weight(wt, i + j, t, h);
      for (int j = 0; j < u; ++j)
        if (w[j] >= compute_type(0)) {
          x[j] = src[j * step];
          y[j] = src[j * step + dq];
        }
      for (int j = 0; j < u; ++j)
        if (w[j] >= compute_type(0))
          for (int k = 0; k < pack_size; ++k) {
            acc0[k] += w[j] * traits::load(x[j].v[k]);
            acc1[k] += w[j] * traits::load(y[j].v[k]);
          }
      i += u;
      if (i < wt.count) src += u * step;
    }
    for (; i < wt.count; ++i) {
      const compute_type w = weight(wt, i, t, h);
      if (w >= compute_type(0)) {
        const Pack x = src[0];
        const Pack y = src[dq];
        for (int k = 0; k < pack_size; ++k) {
          acc0[k] += w * traits::load(x.v[k]);
          acc1[k] += w * traits::load(y.v[k]);
        }
      }
      if (i + 1 < wt.count) src += step;
    }
    Pack o0, o1;
    for (int k = 0; k < pack_size; ++k) {
      traits::store(o0.v[k], acc0[k]);
      traits::store(o1.v[k], acc1[k]);
    }
    Pack* out = reinterpret_cast<Pack*>(&m_output(t, h, 0));
    out[p] = o0;
    out[q] = o1;
  }

''' % U
assert anchor in s; s = s.replace(anchor, fn + anchor, 1)
open(p, 'w').write(s)
