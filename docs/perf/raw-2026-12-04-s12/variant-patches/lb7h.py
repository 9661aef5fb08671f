# Variant lb7h: launch bounds of 7 teams (72 registers) for the prefetching N-state forms, 16-bit only.
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""  return sizeof(ValueType) == 2 && IsLanePairs<Tag>::value ? 6 : nway_min_teams_per_sm;"""
assert s.count(old)==1
s=s.replace(old,"""  if (std::is_same<Tag, LanePairs<8, true>>::value || std::is_same<Tag, PairsPerThread<1, true>>::value)
    return sizeof(ValueType) == 2 ? 7 : nway_min_teams_per_sm;
  return sizeof(ValueType) == 2 && IsLanePairs<Tag>::value ? 6 : nway_min_teams_per_sm;""")
open(p,'w').write(s)
