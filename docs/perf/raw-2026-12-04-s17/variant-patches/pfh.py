# pfh: merge_pack's steady-state L2 row prefetch for the first half of each batch's states only
# (the L2 traffic of the prefetch: one request per prefetched sector and one per load).
import sys
p = sys.argv[1]; s = open(p).read()
old = '''          for (int j = 0; j < u; ++j)
            if (i + j + Prefetch < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));'''
new = '''          for (int j = 0; j < (u + 1) / 2; ++j)
            if (i + j + Prefetch < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));'''
assert s.count(old) == 1
s = s.replace(old, new)
open(p, 'w').write(s)
