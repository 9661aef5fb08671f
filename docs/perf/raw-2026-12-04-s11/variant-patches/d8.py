p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="static constexpr int row_prefetch_distance = sizeof(value_type) == 2 ? 4 : 2;"
assert s.count(old)==1
s=s.replace(old,"static constexpr int row_prefetch_distance = sizeof(value_type) == 2 ? 8 : 2;")
open(p,'w').write(s)
