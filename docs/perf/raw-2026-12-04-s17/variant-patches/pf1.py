# pf1: merge_pack's L2 row prefetch asked by the lane whose pack starts a 128-byte line only
# (one prefetch per line instead of one per 16-byte pack).
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('''            if (j < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + j * step + m_vector_length));''',
    '''            if (j < wt.count) {
              const std::uintptr_t a =
                  reinterpret_cast<std::uintptr_t>(src + j * step + m_vector_length);
              if ((a & 127u) < pack_bytes) prefetch_l2(a);
            }''')
rep('''            if (i + j + Prefetch < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));''',
    '''            if (i + j + Prefetch < wt.count) {
              const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step);
              if ((a & 127u) < pack_bytes) prefetch_l2(a);
            }''')
open(p, 'w').write(s)
