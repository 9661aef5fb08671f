# Variant pc: the prefetching forms' row loop asks L2 for the states ahead in one stream over
# (pack iteration, state): past the row's last state, the first states of the lane's next pack
# iteration (p + vector_length).
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""          for (int j = 0; j < u; ++j)
            if (i + j + Prefetch < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));"""
assert s.count(old)==1
s=s.replace(old,"""          for (int j = 0; j < u; ++j) {
            const std::int64_t ahead = i + j + Prefetch;
            if (ahead < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));
            else if (ahead - wt.count < wt.count && p + m_lanes < m_num_packs)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j - wt.count) * step + m_lanes));
          }""")
old="""  bool m_prefetch_rows = false;
"""
assert s.count(old)==1
s=s.replace(old,"""  bool m_prefetch_rows = false;
 public:
  int m_lanes = 1;
 private:
""")
old="""  functor.set_prefetch_rows(shape.prefetch_rows);
"""
assert s.count(old)==1
s=s.replace(old,old+"  functor.m_lanes = shape.vector_length;\n")
open(p,'w').write(s)
