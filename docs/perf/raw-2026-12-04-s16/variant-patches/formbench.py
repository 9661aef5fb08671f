# Bench variant: bf16 N-way at 4096-16384 x 32 x 64/128, S8/S16: the built-in shape and the four
# 16-bit prefetching LanePairs forms forced (batches of 4 / 2, with / without the ring).
import sys
p=sys.argv[1]
s=open(p).read()
a="""  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16"""
assert s.count(a)==1
s=s.replace(a,"""  if (sizeof(T) == 2)
    for (std::int64_t d : {64, 128})
      for (std::int64_t tok : {4096, 5120, 6144, 7168, 8192, 10240, 12288, 16384})
        for (std::int64_t S : {4, 8, 16}) {
          const Shape s{tok, 32, d};
          const auto reg = [&](const std::string& label, const MergeAttn::Impl::LaunchShape* ls) {
            register_with_shape(std::string("nway-form/") + type_name<T>() + "/S" +
                                    std::to_string(S) + "/" + shape_name(s) + "/" + label,
                                ls, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                                  bench_nway<T>(st, s, S, shape);
                                });
          };
          reg("auto", nullptr);
          for (const PrefetchForm& form : prefetch_forms) {
            if (form.pairs_per_thread != 8) continue;
            MergeAttn::Impl::LaunchShape ls = builtin_nway_shape<T>(s, S);
            ls.pairs_per_thread = 8;
            ls.prefetch_rows = false;
            ls.prefetch_states = true;
            ls.narrow_state_batches = form.narrow;
            ls.state_ring = form.ring;
            reg(shape_label(ls), &ls);
          }
        }
"""+a)
open(p,'w').write(s)
