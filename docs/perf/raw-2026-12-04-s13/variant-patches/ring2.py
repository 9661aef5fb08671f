# Variant "ring2" (session 13): session 10's cp.async ring (../../raw-2026-12-03-s10/variant-patches/
# ring.py) with each thread's slots lane-minor (slot r of the team's thread j at ring[r * threads +
# j]: no shared-memory bank conflicts), for the prefetching LanePairs forms only, on session 12's
# kernel. RING=<slots> as in ring.py.
import os
here = os.path.dirname(os.path.abspath(__file__))
s = open(os.path.join(here, '../../raw-2026-12-03-s10/variant-patches/ring.py')).read()
edits = [
    ("""          merge_mode_row(team, t, h, wt);\"\"\",\"\"\"""",
     """          merge_mode_row<Prefetch, Batch>(team, t, h, wt);\"\"\",\"\"\""""),
    ("""#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
          if (UsePacks && wt.mode""", """#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
          if (Prefetch > 0 && UsePacks && wt.mode"""),
    ("""          merge_mode_row(team, t, h, wt);\"\"\")""",
     """          merge_mode_row<Prefetch, Batch>(team, t, h, wt);\"\"\")"""),
    ("""      ring += std::size_t(team.team_rank()) * m_lanes * ring_slots;""",
     """      ring += std::size_t(team.team_rank()) * m_lanes;"""),
    ("""                                    const std::int64_t h, const Weights& wt, Pack* ring) const {
    const int V = m_lanes,""", """                                    const std::int64_t h, const Weights& wt, Pack* ring) const {
    const int T = team.team_size() * m_lanes;
    const int V = m_lanes,"""),
    ("""      Pack* slots = ring + l * ring_slots;""", """      Pack* slots = ring + l;"""),
    ("""          cp_async16(slots + slot, base + ii * step + ip);""",
     """          cp_async16(slots + slot * T, base + ii * step + ip);"""),
    ("""          const Pack x = slots[slot];""", """          const Pack x = slots[slot * T];"""),
    ('''rep("""  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""","""#if defined''',
     '''rep("""  template <int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""","""#if defined'''),
    ('''#endif

  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""")''',
     '''#endif

  template <int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""")'''),
]
for old, new in edits:
    assert s.count(old) == 1, old
    s = s.replace(old, new)
exec(compile(s, 'ring2', 'exec'))
