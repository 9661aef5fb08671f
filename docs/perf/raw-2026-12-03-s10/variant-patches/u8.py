p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""      constexpr int u = 4;
      // State first"""
assert s.count(old)==1
s=s.replace(old,"""      constexpr int u = sizeof(value_type) == 2 ? 8 : 4;
      // State first""")
open(p,'w').write(s)
