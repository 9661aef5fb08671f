# Bench variant: N-way built-in shapes with forced token groups G (nway-g/<type>/S<S>/<shape>/g<G>).
import sys
p = sys.argv[1].replace('include/MergeAttn/impl/MergeAttn_MergeKernel.hpp', 'perf/MergeAttnBench.cpp')
s = open(p).read()
a = """  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a) == 1
s = s.replace(a, """  {
    const Shape gs[] = {{4096, 32, 128}, {4096, 32, 64}, {4096, 32, 256}};
    for (const Shape& s : gs)
      for (int g : {1, 2, 4, 8}) {
        MergeAttn::Impl::LaunchShape ls = builtin_nway_shape<T>(s, 64);
        ls.tokens_per_group = g;
        register_with_shape(std::string("nway-g/") + type_name<T>() + "/S64/" + shape_name(s) +
                                "/g" + std::to_string(g) + "/" + shape_label(ls),
                            &ls,
                            [s](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                              bench_nway<T>(st, s, 64, shape);
                            });
      }
  }
""" + a)
open(p, 'w').write(s)
