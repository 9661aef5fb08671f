import sys, os, subprocess
p=sys.argv[1]
subprocess.check_call(['python3','/tmp/var/v1.py',p])
s=open(p).read()
def rep(a,b,n=1):
    global s
    assert s.count(a)==n, (a, s.count(a))
    s=s.replace(a,b)
# row strides
rep('''  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return &states(i, t, h, 0);
  }''','''  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return &states(i, t, h, 0);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t row_stride() const {
    return static_cast<std::int64_t>(states.stride(0));
  }''')
rep('''  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, std::int64_t,
                                               const std::int64_t h) const {
    return &states(i, h, 0);
  }''','''  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, std::int64_t,
                                               const std::int64_t h) const {
    return &states(i, h, 0);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t row_stride() const {
    return static_cast<std::int64_t>(states.stride(0));
  }''')
rep('''      compute_type acc[pack_size];
      for (int k = 0; k < pack_size; ++k) acc[k] = 0;''','''      compute_type acc[pack_size];
      for (int k = 0; k < pack_size; ++k) acc[k] = 0;
      const Pack* base = reinterpret_cast<const Pack*>(m_states.row(wt.first, t, h)) + p;
      const std::int64_t stride = m_states.row_stride() / pack_size;''')
rep('''            x[j] = reinterpret_cast<const Pack*>(m_states.row(wt.first + i + j, t, h))[p];''',
    '''            x[j] = base[(i + j) * stride];''')
rep('''        const Pack x = reinterpret_cast<const Pack*>(m_states.row(wt.first + i, t, h))[p];
        for (int k = 0; k < pack_size; ++k) acc[k] += w * traits::load(x.v[k]);''','''        const Pack x = base[i * stride];
        for (int k = 0; k < pack_size; ++k) acc[k] += w * traits::load(x.v[k]);''')
open(p,'w').write(s)
