import sys
p=sys.argv[1]; s=open(p).read()
old='''      auto run = [&](auto tag) {'''
new='''      std::size_t pad = scratch;
      if (const char* e = std::getenv("MA_PAD")) pad = std::max<std::size_t>(pad, std::atoi(e));
      auto run = [&](auto tag) {'''
assert s.count(old)==1; s=s.replace(old,new)
s=s.replace('policy.set_scratch_size(0, Kokkos::PerTeam(scratch));\n        Kokkos::parallel_for("MergeAttn::merge_attn_states", policy, functor);\n      };','policy.set_scratch_size(0, Kokkos::PerTeam(pad));\n        Kokkos::parallel_for("MergeAttn::merge_attn_states", policy, functor);\n      };',1)
assert 'PerTeam(pad)' in s
old='''  if (k == 2) {
    Kokkos::TeamPolicy<ExecSpace, Bounds, PairsPerThread<2>> policy('''
new='''  std::size_t scratch2 = scratch;
  if (const char* e = std::getenv(functor_type::weight_cache ? "MA_PADN" : "MA_PAD2"))
    scratch2 = std::max<std::size_t>(scratch, std::atoi(e));
  if (k == 2) {
    Kokkos::TeamPolicy<ExecSpace, Bounds, PairsPerThread<2>> policy('''
assert s.count(old)==1; s=s.replace(old,new)
old='''    if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));'''
assert s.count(old)==2
s=s.replace(old,'''    if (scratch2 > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch2));''')
s=s.replace('#include <cstdint>','#include <cstdint>\n#include <cstdlib>',1)
open(p,'w').write(s)
