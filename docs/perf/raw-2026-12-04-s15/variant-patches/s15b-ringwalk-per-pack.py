# Applied after s15a-ringwalk-flat.py: the sums of the RingWalk in a loop per pack (the store of a
# pack's sum after the loop over its states instead of inside the flat loop).
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
a="""      int slot = 0;
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
      }"""
b="""      int slot = 0;
      while (sum.p < packs) {  // a pack of a row: its non-empty states
        Pack* out = reinterpret_cast<Pack*>(&m_output(t0 + sum.k, h, 0)) + sum.p;
        compute_type acc[pack_size];
        for (int j = 0; j < pack_size; ++j) acc[j] = 0;
        do {
          const compute_type wi = sum.w[sum.i];
          cp_async_wait<Slots - 1>();  // the oldest group: this load
          const Pack x = slots[slot * threads];
          for (int j = 0; j < pack_size; ++j) acc[j] += wi * traits::load(x.v[j]);
          issue(slot);  // its slot refilled after the read above
          slot = slot + 1 == Slots ? 0 : slot + 1;
        } while (!advance(sum));
        Pack o;
        for (int j = 0; j < pack_size; ++j) traits::store(o.v[j], acc[j]);
        *out = o;
      }"""
assert s.count(a)==1; s=s.replace(a,b)
open(p,'w').write(s)
