import re
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
def rep(a,b,cnt=1):
    global s
    assert s.count(a)==cnt,(a,s.count(a))
    s=s.replace(a,b)
# ring_weighted_rows: one walk type for loads and sums
a=s.index("  // The state ring: the weighted rows of a step's pairs `rows`")
b=s.index("#endif\n\n  template <int Prefetch = 0>\n  KOKKOS_INLINE_FUNCTION void merge_pair(")
new='''  // The state ring: the weighted rows of a step's pairs `rows` (bit k: pair t0 + k; their weights
  // all cached, nf fields per pair from `fields`), of whole packs.
  // Vector lane l walks (RingWalk), pair after pair, packs l, l + V, ... and for each the non-empty
  // states in order (the same sums in the same order as merge_pack: the same bits). Two walks of
  // the same kind: the loads run Slots ahead of the sums, in flight through cp.async into the
  // lane's slots of the ring, holding no registers; each row is asked of L2 once (the L2 prefetch
  // of merge_pack asks twice).
  struct RingWalk {
    unsigned left;          // the ring rows after the current one
    int k;                  // the current pair: t0 + k
    int i, n;               // its state i (non-empty) of n
    int p;                  // the pack; >= the row's packs: the walk has ended
    const Pack* base;       // pack 0 of the pair's first state
    const compute_type* w;  // the pair's cached weights (< 0: an empty state)
  };
  template <int Slots>
  __device__ void ring_weighted_rows(const member_type& team, const std::int64_t t0,
                                     const std::int64_t h, const compute_type* fields, const int nf,
                                     const unsigned rows, Pack* ring) const {
    const int lanes = m_vector_length, threads = team.team_size() * m_vector_length;
    const int packs = m_num_packs;
    const std::int64_t step = m_states.state_stride() / pack_size;
    const auto first_live = [](const compute_type* w) {
      int i = 0;  // a weighted row has two or more non-empty states
      while (w[i] < compute_type(0)) ++i;
      return i;
    };
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int l) {
      Pack* slots = ring + l;
      // Walk c to its next row's first load (c.p >= packs: none left for this lane).
      const auto start_row = [&](RingWalk& c) {
        c.p = packs;
        if (c.left == 0 || l >= packs) return;
        c.k = __ffs(c.left) - 1;
        c.left &= c.left - 1;
        const std::int64_t t = t0 + c.k;
        c.w = fields + nf * c.k;
        c.n = static_cast<int>(m_states.count(t));
        c.base = reinterpret_cast<const Pack*>(m_states.row(m_states.first(t), t, h));
        c.i = first_live(c.w);
        c.p = l;
      };
      // Walk c to its next load: the next non-empty state, or the first of the next pack iteration
      // or row; true when the pack's sum is complete.
      const auto advance = [&](RingWalk& c) {
        do {
          if (++c.i == c.n) {
            c.i = first_live(c.w);
            c.p += lanes;
            if (c.p >= packs) start_row(c);
            return true;
          }
        } while (c.w[c.i] < compute_type(0));
        return false;
      };
      RingWalk sum;
      sum.left = rows;
      start_row(sum);
      RingWalk load = sum;
      const auto issue = [&](const int slot) {
        if (load.p < packs) {
          cp_async16(slots + slot * threads, load.base + load.i * step + load.p);
          advance(load);
        }
        cp_async_commit();  // empty groups too: one group per slot keeps wait_group's count
      };
      for (int r = 0; r < Slots; ++r) issue(r);
      int slot = 0;
      compute_type acc[pack_size];
      for (int j = 0; j < pack_size; ++j) acc[j] = 0;
      while (sum.p < packs) {
        const compute_type wi = sum.w[sum.i];
        cp_async_wait<Slots - 1>();  // the oldest group: this load
        const Pack x = slots[slot * threads];
        for (int j = 0; j < pack_size; ++j) acc[j] += wi * traits::load(x.v[j]);
        issue(slot);  // its slot refilled after the read above
        slot = slot + 1 == Slots ? 0 : slot + 1;
        const int k = sum.k, p = sum.p;
        if (advance(sum)) {
          Pack o;
          for (int j = 0; j < pack_size; ++j) {
            traits::store(o.v[j], acc[j]);
            acc[j] = 0;
          }
          reinterpret_cast<Pack*>(&m_output(t0 + k, h, 0))[p] = o;
        }
      }
      cp_async_wait<0>();  // nothing in flight into the ring when the next step's weights start
    });
  }
'''
s=s[:a]+new+s[b:]
open(p,'w').write(s)
