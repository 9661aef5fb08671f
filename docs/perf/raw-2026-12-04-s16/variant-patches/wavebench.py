# Bench variant: bf16 N-way built-in shapes over token counts from 4096 to 16384 (32 heads), head
# sizes 64 / 128 / 256, S4 / S8 / S16 ("nway-wave/"), and float / bf16 head size 32 and 512.
import sys
p=sys.argv[1]
s=open(p).read()
a="""  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a)==1
s=s.replace(a,"""  for (std::int64_t d : {64, 128, 256})
    for (std::int64_t tok : {4096, 4352, 4608, 5120, 6144, 7168, 8192, 10240, 12288, 16384})
      for (std::int64_t S : {4, 8, 16}) {
        if (sizeof(T) != 2) continue;
        const Shape s{tok, 32, d};
        register_with_shape(std::string("nway-wave/") + type_name<T>() + "/S" + std::to_string(S) +
                                "/" + shape_name(s) + "/auto",
                            nullptr, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                              bench_nway<T>(st, s, S, shape);
                            });
      }
  for (std::int64_t d : {32, 512})
    for (std::int64_t S : {8, 16, 64}) {
      if (d == 512 && S == 64) continue;
      const Shape s{4096, 32, d};
      register_with_shape(std::string("nway-wave/") + type_name<T>() + "/S" + std::to_string(S) +
                              "/" + shape_name(s) + "/auto",
                          nullptr, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                            bench_nway<T>(st, s, S, shape);
                          });
    }
"""+a)
open(p,'w').write(s)
