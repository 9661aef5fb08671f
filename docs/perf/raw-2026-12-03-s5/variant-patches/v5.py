import sys
p=sys.argv[1]
s=open(p).read()
old='''        wt.mode = RowMode::weighted;
        compute_type rest = 0;
        for (std::int64_t i = 0; i < wt.count; ++i) {
          const compute_type x = staged_lse(wt, i, t, h);
          const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
          rest += ei;
        }
        wt.inv = compute_type(1) / (compute_type(1) + rest);
        wt.lse = wt.m + log1p_(rest);
        if constexpr (weight_cache) {
          // One state per lane, from the staged LSEs. Kokkos ends each vector loop with the lanes
          // synchronised: the staged values were all written before the passes read them, and the
          // previous pair's row loop (the cache's readers) has ended before this one writes.
          const int n = static_cast<int>(wt.count < cache_states ? wt.count : cache_states);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](const int i) {
            wt.cache[i] = weight_from(wt, i, wt.staged[i]);
          });
        }
      }'''
new='''        wt.mode = RowMode::weighted;
        auto term = [&](const std::int64_t i, const compute_type x) {
          return (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
        };
        compute_type rest = 0;
        if constexpr (weight_cache) {
          const int n = static_cast<int>(wt.count < cache_states ? wt.count : cache_states);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                               [&](const int i) { wt.cache[i] = term(i, wt.staged[i]); });
          for (std::int64_t i = 0; i < wt.count; ++i)
            rest += i < cache_states ? wt.cache[i] : term(i, staged_lse(wt, i, t, h));
        } else {
          for (std::int64_t i = 0; i < wt.count; ++i) rest += term(i, staged_lse(wt, i, t, h));
        }
        wt.inv = compute_type(1) / (compute_type(1) + rest);
        wt.lse = wt.m + log1p_(rest);
        if constexpr (weight_cache) {
          const int n = static_cast<int>(wt.count < cache_states ? wt.count : cache_states);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](const int i) {
            wt.cache[i] = i == wt.arg                       ? wt.inv
                          : wt.staged[i] == -inf ? compute_type(-1)
                                                            : wt.cache[i] * wt.inv;
          });
        }
      }'''
assert old in s; s=s.replace(old,new)
open(p,'w').write(s)
