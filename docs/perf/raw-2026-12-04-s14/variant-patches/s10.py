# Session 14 variant: 10 ring slots in batches of 2 (8 in main)
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
a="static constexpr int ring_slots(const bool narrow_batches) { return narrow_batches ? 8 : 12; }"
assert s.count(a)==1
s=s.replace(a,a.replace("? 8 :","? 10 :"))
open(p,'w').write(s)
