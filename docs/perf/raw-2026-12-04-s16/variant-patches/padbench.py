# Bench variant: N-way entries at token counts beside the powers of two (the states' stride off
# a power of two), built-in and forced prefetching forms.
import sys
p=sys.argv[1]
s=open(p).read()
a="""  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a)==1
s=s.replace(a,"""  for (std::int64_t tok : {4096, 4104, 4352, 16384, 16392})
    for (std::int64_t S : {8, 16}) {
      const Shape s{tok, 32, 128};
      register_nway_entry<T>(s, S, "auto", nullptr);
      for (const PrefetchForm& form : prefetch_forms) {
        if (form.pairs_per_thread != 8) continue;
        if ((form.narrow || form.ring) && sizeof(T) != 2) continue;
        MergeAttn::Impl::LaunchShape ls = builtin_nway_shape<T>(s, S);
        ls.pairs_per_thread = 8;
        ls.prefetch_rows = false;
        ls.prefetch_states = true;
        ls.narrow_state_batches = form.narrow;
        ls.state_ring = form.ring;
        register_with_shape(std::string("nway-pad/") + type_name<T>() + "/S" + std::to_string(S) +
                                "/" + shape_name(s) + "/" + shape_label(ls),
                            &ls, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                              bench_nway<T>(st, s, S, shape);
                            });
      }
    }
"""+a)
open(p,'w').write(s)
# Rule checks not measured before: head size 512 (32 vector lanes, the x576 rule) and 32 at 4096
# tokens: the built-in shape, and each form forced.
s=open(p).read()
a="""  for (std::int64_t tok : {4096, 4104, 4352, 16384, 16392})"""
s=s.replace(a,"""  for (std::int64_t d : {32, 512})
    for (std::int64_t S : {8, 16, 64}) {
      if (d == 512 && S == 64) continue;
      const Shape s{4096, 32, d};
      register_nway_entry<T>(s, S, "auto", nullptr);
      const MergeAttn::Impl::LaunchShape def = builtin_nway_shape<T>(s, S);
      for (int k : {1, 2, 8})
        for (const PrefetchForm& form : prefetch_forms) {
          if ((form.narrow || form.ring) && sizeof(T) != 2) continue;
          if (form.pairs_per_thread != 8 && (form.narrow || form.ring)) continue;
          if (k == 2 && form.pairs_per_thread == 8) continue;
          MergeAttn::Impl::LaunchShape ls = def;
          ls.pairs_per_thread = k == 2 ? 2 : form.pairs_per_thread;
          if (k != 2 && k != form.pairs_per_thread) continue;
          ls.prefetch_rows = false;
          ls.prefetch_states = k != 2;
          ls.narrow_state_batches = form.narrow;
          ls.state_ring = form.ring;
          register_with_shape(std::string("nway-rule/") + type_name<T>() + "/S" +
                                  std::to_string(S) + "/" + shape_name(s) + "/" + shape_label(ls),
                              &ls, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                                bench_nway<T>(st, s, S, shape);
                              });
        }
    }
"""+a)
open(p,'w').write(s)
