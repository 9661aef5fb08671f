# Session 14 variant: N states with the row prefetch run one pair per team thread where the rule had two (bf16 x64 S64)
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
a="""    shape.state_ring = shape.prefetch_states && value_size == 2"""
assert s.count(a)==1
s=s.replace(a,"""    if (shape.prefetch_states && shape.pairs_per_thread == 2) shape.pairs_per_thread = 1;
"""+a)
open(p,'w').write(s)
