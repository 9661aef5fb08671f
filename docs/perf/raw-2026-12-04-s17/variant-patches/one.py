# one: variants of the one-pair prefetching N-state kernel (PairsPerThread<1, true>) only.
# ONEMODE: pk2 / pk4 = pack pairs (both of a lane's packs per state step) with 2 / 4 states per
# batch; b8 = batches of 8 states; t8 = launch bounds of 8 teams for 16-bit values.
import sys, os
p = sys.argv[1]; s = open(p).read()
mode = os.environ['ONEMODE']
def rep(old, new, cnt=1):
    global s
    assert s.count(old) == cnt, old
    s = s.replace(old, new)
if mode == 't8':
    rep('''  if (IsNarrowLanePairs<Tag>::value) return nway_narrow_teams_per_sm;''',
        '''  if (IsNarrowLanePairs<Tag>::value) return nway_narrow_teams_per_sm;
  if (sizeof(ValueType) == 2 && std::is_same<Tag, PairsPerThread<1, true>>::value) return 8;''')
else:
    batch = {'pk2': -2, 'pk4': -4, 'b8': 8}[mode]
    rep('''    pair_runs<1, row_prefetch_distance>(team);''', '''    pair_runs<1, row_prefetch_distance, %d>(team);''' % batch)
    rep('''  template <int K, int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void pair_runs(''', '''  template <int K, int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void pair_runs(''')
    rep('''        if (valid[j]) merge_pair<Prefetch>(team, t[j], h[j], lse[j], cache);''',
        '''        if (valid[j]) merge_pair<Prefetch, Batch>(team, t[j], h[j], lse[j], cache);''')
    rep('''  template <int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void merge_pair(''', '''  template <int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void merge_pair(''')
    rep('''    merge_mode_row<Prefetch>(team, t, h, wt);

    if constexpr (has_output_lse) {''', '''    merge_mode_row<Prefetch, Batch>(team, t, h, wt);

    if constexpr (has_output_lse) {''')
    if batch < 0:
        rep('''      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode, Prefetch, Batch>(t, h, i, wt);''', '''      if constexpr (Batch < 0 && Mode == RowMode::weighted && fixed == 0 && UsePacks) {
        if (m_num_packs == m_vector_iters && m_num_packs == 2 * m_vector_length) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_length),
                               [&](const int i) { merge_pack2<Prefetch, -Batch>(t, h, i, wt); });
          return;
        }
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode, Prefetch, (Batch < 0 ? 4 : Batch)>(t, h, i, wt);''')
        # the pp.py merge_pack2 body with u = Batch
        pp = open('/tmp/s17/pp.py').read()
        fn = pp.split("fn = '''", 1)[1].split("''' % U", 1)[0] % 'Batch'
        rep('''  // w0 * x + w1 * y, element by element in the compute type.''', fn + '''  // w0 * x + w1 * y, element by element in the compute type.''')
open(p, 'w').write(s)
