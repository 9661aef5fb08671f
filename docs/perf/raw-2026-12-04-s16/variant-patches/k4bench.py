# Bench variant for k4: bf16 N-way at 4096 / 4352 / 5120 / 8192 / 16384 x 32 x 128, S4 / S8 / S16,
# the built-in shape and the prefetching LanePairs forms with K = 8 and K = 4 forced; x32 forms.
import sys
p=sys.argv[1]
s=open(p).read()
a="""  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a)==1
s=s.replace(a,"""  if (sizeof(T) == 2)
    for (std::int64_t tok : {4096, 4352, 5120, 8192, 16384})
      for (std::int64_t S : {4, 8, 16}) {
        const Shape s{tok, 32, 128};
        register_nway_entry<T>(s, S, "auto", nullptr);
        for (int k : {4, 8})
          for (const PrefetchForm& form : prefetch_forms) {
            if (form.pairs_per_thread != 8) continue;
            MergeAttn::Impl::LaunchShape ls = builtin_nway_shape<T>(s, S);
            ls.pairs_per_thread = k;
            ls.prefetch_rows = false;
            ls.prefetch_states = true;
            ls.narrow_state_batches = form.narrow;
            ls.state_ring = form.ring;
            register_with_shape(std::string("nway-k4/") + type_name<T>() + "/S" +
                                    std::to_string(S) + "/" + shape_name(s) + "/" + shape_label(ls),
                                &ls,
                                [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                                  bench_nway<T>(st, s, S, shape);
                                });
          }
      }
"""+a)
open(p,'w').write(s)
