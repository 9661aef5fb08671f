# no narrow form in the built-in rule
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="shape.narrow_state_batches = shape.prefetch_states && value_size == 2 &&"
assert s.count(old)==1
s=s.replace(old,"shape.narrow_state_batches = false && shape.prefetch_states && value_size == 2 &&")
open(p,'w').write(s)
