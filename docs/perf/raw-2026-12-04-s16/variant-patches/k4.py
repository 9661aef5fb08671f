# Variant "k4": the 16-bit N-state prefetching LanePairs forms also with K = 4 pairs per team
# thread (half the rows per step: finer work at launches of about one wave).
import sys
p=sys.argv[1]
s=open(p).read()
def rep(a,b,cnt=1):
    global s
    assert s.count(a)==cnt,(s.count(a),a)
    s=s.replace(a,b)
rep("""  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true, 4, true>&,
                                         const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance, 4, true>(team);
  }""","""  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true, 4, true>&,
                                         const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance, 4, true>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<4, true>&, const member_type& team) const {
    lane_weight_runs<4, row_prefetch_distance>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<4, true, 2>&,
                                         const member_type& team) const {
    lane_weight_runs<4, row_prefetch_distance, 2>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<4, true, 2, true>&,
                                         const member_type& team) const {
    lane_weight_runs<4, row_prefetch_distance, 2, true>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<4, true, 4, true>&,
                                         const member_type& team) const {
    lane_weight_runs<4, row_prefetch_distance, 4, true>(team);
  }""")
rep("""  if (std::is_same<Tag, LanePairs<8, true, 2>>::value ||
      std::is_same<Tag, LanePairs<8, true, 2, true>>::value)
    return 8;""","""  if (std::is_same<Tag, LanePairs<8, true, 2>>::value ||
      std::is_same<Tag, LanePairs<8, true, 2, true>>::value ||
      std::is_same<Tag, LanePairs<4, true, 2>>::value ||
      std::is_same<Tag, LanePairs<4, true, 2, true>>::value)
    return 8;""")
rep("""  bool narrow = two_byte && lane_k == 8 && shape.prefetch_states && shape.narrow_state_batches;
  bool ring = two_byte && lane_k == 8 && shape.prefetch_states && shape.state_ring;""",
"""  bool narrow = two_byte && lane_k >= 4 && shape.prefetch_states && shape.narrow_state_batches;
  bool ring = two_byte && lane_k >= 4 && shape.prefetch_states && shape.state_ring;""")
rep("""      if constexpr (two_byte) {
        if (narrow) return ring ? run(LanePairs<8, true, 2, true>{}) : run(LanePairs<8, true, 2>{});
        if (ring) return run(LanePairs<8, true, 4, true>{});
      }""","""      if constexpr (two_byte) {
        if (lane_k == 4) {
          if (narrow)
            return ring ? run(LanePairs<4, true, 2, true>{}) : run(LanePairs<4, true, 2>{});
          if (ring) return run(LanePairs<4, true, 4, true>{});
          return run(LanePairs<4, true>{});
        }
        if (narrow) return ring ? run(LanePairs<8, true, 2, true>{}) : run(LanePairs<8, true, 2>{});
        if (ring) return run(LanePairs<8, true, 4, true>{});
      }""")
open(p,'w').write(s)
