# Variant u2: batches of 2 states for 16-bit values in the prefetching forms (the prefetch, 4 states
# ahead, covers two batches).
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""      constexpr int u = 4;"""
assert s.count(old)==1
s=s.replace(old,"""      constexpr int u = Prefetch > 0 && sizeof(value_type) == 2 ? 2 : 4;""")
open(p,'w').write(s)
