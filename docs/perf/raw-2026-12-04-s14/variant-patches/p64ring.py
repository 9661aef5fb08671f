# Session 14 variant: the state ring (8 slots) in the one-pair prefetching form (PairsPerThread<1, true>) for 16-bit values
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
def rep(a,b):
    global s
    assert s.count(a)==1,a
    s=s.replace(a,b)
rep("""        cache = &sv(team.team_rank(), 0);
      }""","""        cache = &sv(team.team_rank(), 0);
      }
      Pack* ring = nullptr;
      if constexpr (weight_cache && Prefetch > 0 && sizeof(value_type) == 2 && UsePacks) {
        ring = static_cast<Pack*>(team.team_scratch(0).get_shmem_aligned(
            ring_bytes(team.team_size(), 8), sizeof(Pack)));
        if (ring != nullptr) ring += std::size_t(team.team_rank()) * m_vector_length;
      }
      (void)ring;""")
rep("""        if (valid[j]) merge_pair<Prefetch>(team, t[j], h[j], lse[j], cache);""",
"""        if (valid[j]) merge_pair<Prefetch>(team, t[j], h[j], lse[j], cache, ring);""")
rep("""                                         compute_type* cache) const {
    // Every vector lane reads all LSEs""","""                                         compute_type* cache, Pack* ring = nullptr) const {
    (void)ring;
    // Every vector lane reads all LSEs""")
rep("""      nway_weights<true>(team, wt, t, h);

    merge_mode_row<Prefetch>(team, t, h, wt);
""","""      nway_weights<true>(team, wt, t, h);

    bool ringed = false;
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
    if constexpr (weight_cache && Prefetch > 0 && sizeof(value_type) == 2 && UsePacks) {
      if (ring != nullptr && wt.mode == RowMode::weighted && wt.count <= wt.cap &&
          m_num_packs == m_vector_iters) {
        ring_weighted_rows<8>(team, t, h, wt.cache, 0, 1u, ring);
        ringed = true;
      }
    }
#endif
    if (!ringed) merge_mode_row<Prefetch>(team, t, h, wt);
""")
rep("""  std::size_t scratch =
      functor.scratch_bytes(shape.team_size, lane_k, ring ? functor_type::ring_slots(narrow) : 0);""",
"""  std::size_t scratch =
      functor.scratch_bytes(shape.team_size, lane_k, ring ? functor_type::ring_slots(narrow) : 0);
  if (two_byte && functor_type::weight_cache && shape.prefetch_states && lane_k == 0 && k == 1)
    scratch += functor.ring_bytes(shape.team_size, 8) + 16;""")
open(p,'w').write(s)
