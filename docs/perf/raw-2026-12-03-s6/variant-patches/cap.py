import sys
p=sys.argv[1]; s=open(p).read()
old='''  const int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));'''
new='''  int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));
  if (const char* e = std::getenv(functor_type::weight_cache ? "MA_NCAP" : "MA_CAP")) {
    const std::int64_t per_sm = std::atoi(e);
    const std::int64_t sms = exec.concurrency() / 2048;
    if (per_sm > 0 && league_size > per_sm * sms) league_size = static_cast<int>(per_sm * sms);
  }'''
assert s.count(old)==1; s=s.replace(old,new)
s=s.replace('#include <cstdint>','#include <cstdint>\n#include <cstdlib>',1)
open(p,'w').write(s)
