# Bench variant: bf16 N-way built-in shapes at points the session 16 rule was not fitted on
# ("nway-hold/"): x128 at 6656 / 9216 / 11264 / 14336 tokens, x64 at 9216 / 14336, x256 at 5632 /
# 6656 (32 heads), x128 with 8 heads (20480 / 28672 tokens) and 128 heads (1152 / 1792), S4/S8/S16.
import sys
p=sys.argv[1]
s=open(p).read()
a="""  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a)==1
s=s.replace(a,"""  if (sizeof(T) == 2) {
    const Shape hold[] = {{6656, 32, 128}, {9216, 32, 128},  {11264, 32, 128}, {14336, 32, 128},
                          {9216, 32, 64},  {14336, 32, 64},  {5632, 32, 256},  {6656, 32, 256},
                          {20480, 8, 128}, {28672, 8, 128},  {1152, 128, 128}, {1792, 128, 128}};
    for (const Shape& s : hold)
      for (std::int64_t S : {4, 8, 16})
        register_with_shape(std::string("nway-hold/") + type_name<T>() + "/S" + std::to_string(S) +
                                "/" + shape_name(s) + "/auto",
                            nullptr, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                              bench_nway<T>(st, s, S, shape);
                            });
  }
"""+a)
open(p,'w').write(s)
