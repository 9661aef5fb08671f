import sys, os
p=sys.argv[1]
s=open(p).read()
U=os.environ.get('ROWU','4')
def rep(a,b):
    global s
    assert s.count(a)==1, a
    s=s.replace(a,b)
rep('''      bool nan = wt.count < 0;
      std::int64_t live = 0;
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type x = lse_of(wt.first + i, t, h);
        if (Impl::isnan(x)) {
          nan = true;
        } else if (x != -inf) {
          ++live;
          if (x > wt.m) {
            wt.m = x;
            wt.arg = i;
          }
        }
      }''','''      bool nan = wt.count < 0;
      std::int64_t live = 0;
      constexpr int lse_batch = 8;
      for (std::int64_t i0 = 0; i0 < wt.count; i0 += lse_batch) {
        compute_type x[lse_batch];
        for (int j = 0; j < lse_batch; ++j)
          x[j] = i0 + j < wt.count ? lse_of(wt.first + i0 + j, t, h) : -inf;
        for (int j = 0; j < lse_batch; ++j) {
          const bool is_nan = Impl::isnan(x[j]);
          nan = nan || is_nan;
          live += (!is_nan && x[j] != -inf) ? 1 : 0;
          const bool larger = x[j] > wt.m;
          wt.arg = larger ? i0 + j : wt.arg;
          wt.m = larger ? x[j] : wt.m;
        }
      }''')
rep('''        compute_type rest = 0;
        for (std::int64_t i = 0; i < wt.count; ++i) {
          const compute_type x = lse_of(wt.first + i, t, h);
          const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
          rest += ei;
        }''','''        compute_type rest = 0;
        for (std::int64_t i0 = 0; i0 < wt.count; i0 += lse_batch) {
          compute_type x[lse_batch];
          for (int j = 0; j < lse_batch; ++j)
            x[j] = i0 + j < wt.count ? lse_of(wt.first + i0 + j, t, h) : -inf;
          for (int j = 0; j < lse_batch; ++j) {
            const compute_type ei =
                (i0 + j == wt.arg || x[j] == -inf) ? compute_type(0) : exp_(x[j] - wt.m);
            rest += ei;
          }
        }''')
rep('constexpr int u = 4;', 'constexpr int u = %s;' % U)
open(p,'w').write(s)
