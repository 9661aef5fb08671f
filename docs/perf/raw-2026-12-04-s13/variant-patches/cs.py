# LanePairs N-state weight cache sized by the launch's uniform state count (at most 32).
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
n0=s.count("lane_weight_fields * "); s=s.replace("lane_weight_fields * ","(m_lane_cache + 3) * ")
assert n0==4, n0
n1=s.count("f[lane_cache_states"); s=s.replace("f[lane_cache_states","f[m_lane_cache"); assert n1==6,n1
n2=s.count("f, f, lane_cache_states)"); s=s.replace("f, f, lane_cache_states)","f, f, m_lane_cache)"); assert n2==2,n2
old="""      m_cache_states = s > 0 && s < max_cache_states ? static_cast<int>(s) : max_cache_states;"""
assert s.count(old)==1
s=s.replace(old,old+"""
      m_lane_cache = s > 0 && s < lane_cache_states ? static_cast<int>(s) : lane_cache_states;""")
old="""  int m_cache_states = 0;  // N-state forms on GPUs: see cache_states()"""
assert s.count(old)==1
s=s.replace(old,old+"\n  int m_lane_cache = lane_cache_states;")
open(p,'w').write(s)
