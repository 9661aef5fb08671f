# Variant pa: in the prefetching forms, a pair whose states fit one batch (count <= 4) asks L2 for
# its states' packs of the lane's next pack iteration (p + vector_length) while it loads pack p.
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""      std::int64_t i = 0;
      while (i + u <= wt.count) {"""
assert s.count(old)==1
s=s.replace(old,"""      std::int64_t i = 0;
      if constexpr (Prefetch > 0)
        if (wt.count <= u && p + m_lanes < m_num_packs)
          for (int j = 0; j < u; ++j)
            if (j < wt.count) prefetch_l2(reinterpret_cast<std::uintptr_t>(src + j * step + m_lanes));
      while (i + u <= wt.count) {""")
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
