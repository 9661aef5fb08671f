# Variant d8: row prefetch distance 8 for 16-bit values.
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="row_prefetch_distance = sizeof(value_type) == 2 ? 4 : 2;"
assert s.count(old)==1
s=s.replace(old,"row_prefetch_distance = sizeof(value_type) == 2 ? 8 : 2;")
open(p,'w').write(s)
