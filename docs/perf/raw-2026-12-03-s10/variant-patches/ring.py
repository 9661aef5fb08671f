# Variant "ring": N-state LanePairs weighted rows through a per-lane cp.async ring in team scratch
# (CUDA sm_80+), RING slots of 16 bytes per vector lane.
import os
R = os.environ.get('RING', '8')
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
def rep(old,new):
    global s
    assert s.count(old)==1, old
    s=s.replace(old,new)
rep("""  static constexpr int lane_weight_fields = lane_cache_states + 3;""",
"""  static constexpr int lane_weight_fields = lane_cache_states + 3;
  // The N-state LanePairs<K> form on CUDA sm_80+: ring_slots 16-byte slots per vector lane in team
  // scratch, the loads of its weighted rows in flight through cp.async.
  static constexpr int ring_slots = %s;""" % R)
rep("""  std::size_t scratch_bytes(const int team_size, const int lane_pairs_per_thread) const {
    if (lane_pairs && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size, lane_pair_fields * lane_pairs_per_thread);
    if (weight_cache && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size, lane_weight_fields * lane_pairs_per_thread) +
             index_scratch_view::shmem_size(team_size, 2 * lane_pairs_per_thread);""",
"""  std::size_t scratch_bytes(const int team_size, const int lane_pairs_per_thread) const {
    if (lane_pairs && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size, lane_pair_fields * lane_pairs_per_thread);
    if (weight_cache && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size, lane_weight_fields * lane_pairs_per_thread) +
             index_scratch_view::shmem_size(team_size, 2 * lane_pairs_per_thread) +
             ring_bytes(team_size);""")
rep("""  /// States whose LSEs and weights""","""  KOKKOS_INLINE_FUNCTION std::size_t ring_bytes(const int team_size) const {
    return std::size_t(team_size) * m_lanes * ring_slots * sizeof(Pack) + sizeof(Pack);
  }
  void set_lanes(const int lanes) { m_lanes = lanes; }
  /// States whose LSEs and weights""")
rep("""  int m_cache_states = 0;  // N-state forms on GPUs: see cache_states()""","""  int m_cache_states = 0;  // N-state forms on GPUs: see cache_states()
  int m_lanes = 1;""")
rep("""      const index_scratch_view iv(team.team_scratch(0), team.team_size(), 2 * K);
      compute_type* fields = &sv(team.team_rank(), 0);""","""      const index_scratch_view iv(team.team_scratch(0), team.team_size(), 2 * K);
      Pack* ring = static_cast<Pack*>(
          team.team_scratch(0).get_shmem_aligned(ring_bytes(team.team_size()) - sizeof(Pack), 16));
      ring += std::size_t(team.team_rank()) * m_lanes * ring_slots;
      compute_type* fields = &sv(team.team_rank(), 0);""")
rep("""          wt.m = f[lane_cache_states];
          wt.inv = f[lane_cache_states + 1];
          wt.fill = f[lane_cache_states + 2];
          merge_mode_row(team, t, h, wt);""","""          wt.m = f[lane_cache_states];
          wt.inv = f[lane_cache_states + 1];
          wt.fill = f[lane_cache_states + 2];
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
          if (UsePacks && wt.mode == RowMode::weighted && wt.count <= wt.cap &&
              m_num_packs == m_vector_iters) {
            ring_weighted_row(team, t, h, wt, ring);
            continue;
          }
#endif
          merge_mode_row(team, t, h, wt);""")
rep("""  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""","""#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  static __device__ void cp_async16(Pack* dst, const Pack* src) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
  }
  static __device__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
  template <int N>
  static __device__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
  }
  // A weighted N-state row whose weights are all cached (wt.count <= wt.cap), rows of whole packs:
  // vector lane l walks packs l, l + V, ... and for each the non-empty states in order (the same
  // sums in the same order as merge_pack), ring_slots loads in flight through cp.async into its
  // ring (no registers held while they are in flight).
  __device__ void ring_weighted_row(const member_type& team, const std::int64_t t,
                                    const std::int64_t h, const Weights& wt, Pack* ring) const {
    const int V = m_lanes, P = m_num_packs, n = static_cast<int>(wt.count);
    const Pack* base = reinterpret_cast<const Pack*>(m_states.row(wt.first, t, h));
    const std::int64_t step = m_states.state_stride() / pack_size;
    const compute_type* w = wt.cache;
    int first_live = 0;
    while (w[first_live] < compute_type(0)) ++first_live;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, V), [&](const int l) {
      Pack* slots = ring + l * ring_slots;
      int ip = l, ii = first_live;  // the next load to issue: pack ip, state ii
      const auto issue = [&](const int slot) {
        if (ip < P) {
          cp_async16(slots + slot, base + ii * step + ip);
          do {
            if (++ii == n) {
              ii = first_live;
              ip += V;
              break;
            }
          } while (w[ii] < compute_type(0));
        }
        cp_async_commit();
      };
      for (int r = 0; r < ring_slots; ++r) issue(r);
      int slot = 0;
      for (int p = l; p < P; p += V) {
        compute_type acc[pack_size];
        for (int k = 0; k < pack_size; ++k) acc[k] = 0;
        for (int i = first_live; i < n; ++i) {
          const compute_type wi = w[i];
          if (wi < compute_type(0)) continue;  // an empty state: not read
          cp_async_wait<ring_slots - 1>();
          const Pack x = slots[slot];
          for (int k = 0; k < pack_size; ++k) acc[k] += wi * traits::load(x.v[k]);
          issue(slot);
          slot = slot + 1 == ring_slots ? 0 : slot + 1;
        }
        Pack o;
        for (int k = 0; k < pack_size; ++k) traits::store(o.v[k], acc[k]);
        reinterpret_cast<Pack*>(&m_output(t, h, 0))[p] = o;
      }
      cp_async_wait<0>();
    });
  }
#endif

  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,""")
rep("""  functor.set_prefetch_rows(shape.prefetch_rows);""","""  functor.set_prefetch_rows(shape.prefetch_rows);
  functor.set_lanes(shape.vector_length);""")
open(p,'w').write(s)
