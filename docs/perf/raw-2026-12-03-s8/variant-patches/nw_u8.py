import sys
p=sys.argv[1]; U=sys.argv[2] if len(sys.argv)>2 else "8"
s=open(p).read()
old="""      // Four states at a time, their loads issued before any is used: four round trips in flight
      // per lane instead of one (the sums keep the state order of the loop below).
      constexpr int u = 4;
      std::int64_t i = 0;
      for (; i + u <= wt.count; i += u) {
        compute_type w[u];
        Pack x[u];
        for (int j = 0; j < u; ++j) w[j] = weight(wt, i + j, t, h);
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))  // an empty state is not read
            x[j] = reinterpret_cast<const Pack*>(m_states.row(wt.first + i + j, t, h))[p];
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))
            for (int k = 0; k < pack_size; ++k) acc[k] += w[j] * traits::load(x[j].v[k]);
      }
"""
new="""      // Several states at a time, their loads issued before any is used: that many round trips in
      // flight per lane instead of one (the sums keep the state order of the loop below).
      std::int64_t i = 0;
      const auto states_at_once = [&](auto un) {
        constexpr int u = decltype(un)::value;
        compute_type w[u];
        Pack x[u];
        for (int j = 0; j < u; ++j) w[j] = weight(wt, i + j, t, h);
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))  // an empty state is not read
            x[j] = reinterpret_cast<const Pack*>(m_states.row(wt.first + i + j, t, h))[p];
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))
            for (int k = 0; k < pack_size; ++k) acc[k] += w[j] * traits::load(x[j].v[k]);
        i += u;
      };
      constexpr int wide = sizeof(value_type) == 2 ? UNROLL : 4;
      while (i + wide <= wt.count) states_at_once(std::integral_constant<int, wide>{});
      if constexpr (wide > 4)
        while (i + 4 <= wt.count) states_at_once(std::integral_constant<int, 4>{});
""".replace("UNROLL",U)
assert old in s
s=s.replace(old,new)
open(p,'w').write(s)
