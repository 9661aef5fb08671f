import sys
p=sys.argv[1]
s=open(p).read()
def rep(a,b):
    global s
    assert s.count(a)==1, a
    s=s.replace(a,b)
rep('''    return weight_cache ? scratch_view::shmem_size(team_size, cache_states) : 0;''',
    '''    return weight_cache ? scratch_view::shmem_size(team_size, 2 * cache_states) : 0;''')
rep('''        const scratch_view sv(team.team_scratch(0), team.team_size(), cache_states);''',
    '''        const scratch_view sv(team.team_scratch(0), team.team_size(), 2 * cache_states);''')
rep('''    compute_type* cache;     // weight_cache: the first cache_states weights, -1 when empty
  };''','''    compute_type* cache;     // weight_cache: the first cache_states weights, -1 when empty
    compute_type* staged;    // weight_cache: the first cache_states LSEs (+inf read as -inf)
  };

  // N states: state i's LSE, staged in team scratch (first cache_states states) or loaded.
  KOKKOS_INLINE_FUNCTION compute_type staged_lse(const Weights& wt, const std::int64_t i,
                                                 const std::int64_t t, const std::int64_t h) const {
    if constexpr (weight_cache)
      if (i < cache_states) return wt.staged[i];
    return lse_of(wt.first + i, t, h);
  }''')
rep('''    wt.cache = cache;
    if constexpr (fixed == 2) {''','''    wt.cache = cache;
    wt.staged = cache + cache_states;
    if constexpr (fixed == 2) {''')
rep('''      bool nan = wt.count < 0;
      std::int64_t live = 0;
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type x = lse_of(wt.first + i, t, h);''','''      bool nan = wt.count < 0;
      std::int64_t live = 0;
      if constexpr (weight_cache) {
        // The first cache_states LSEs, one state per lane: their loads in flight together.
        const int n = static_cast<int>(wt.count < 0 ? 0 : wt.count < cache_states ? wt.count : cache_states);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                             [&](const int i) { wt.staged[i] = lse_of(wt.first + i, t, h); });
      }
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type x = staged_lse(wt, i, t, h);''')
rep('''        for (std::int64_t i = 0; i < wt.count; ++i) {
          const compute_type x = lse_of(wt.first + i, t, h);
          const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);''','''        for (std::int64_t i = 0; i < wt.count; ++i) {
          const compute_type x = staged_lse(wt, i, t, h);
          const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);''')
rep('''                               [&](const int i) { wt.cache[i] = weight_of(wt, i, t, h); });''','''                               [&](const int i) {
                                 const compute_type x = wt.staged[i];
                                 wt.cache[i] = i == wt.arg ? wt.inv
                                               : x == -inf ? compute_type(-1)
                                                           : exp_(x - wt.m) * wt.inv;
                               });''')
open(p,'w').write(s)
