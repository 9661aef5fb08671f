# Variant h256: the prefetching N-state forms load their row packs with ld.global.L2::256B (the
# load also asks L2 for the 256-byte block around it: the lane's next pack iteration of that state).
p='/work/main/include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old="""            x[j] = src[j * step];"""
assert s.count(old)==1
s=s.replace(old,"""            x[j] = load_row_pack<Prefetch>(src + j * step);""")
old="""          const Pack x = *src;
          for (int k = 0; k < pack_size; ++k) acc[k] += w * traits::load(x.v[k]);"""
assert s.count(old)==1
s=s.replace(old,"""          const Pack x = load_row_pack<Prefetch>(src);
          for (int k = 0; k < pack_size; ++k) acc[k] += w * traits::load(x.v[k]);""")
old="""  static KOKKOS_INLINE_FUNCTION void prefetch_l2(const std::uintptr_t a) {"""
assert s.count(old)==1
s=s.replace(old,"""  template <int Prefetch>
  static KOKKOS_INLINE_FUNCTION Pack load_row_pack(const Pack* a) {
#if defined(__CUDA_ARCH__)
    if constexpr (Prefetch > 0 && sizeof(Pack) == 16) {
      unsigned r[4];
      asm("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
          : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
          : "l"(a));
      Pack x;
      memcpy(&x, r, 16);
      return x;
    }
#endif
    return *a;
  }
"""+old)
open(p,'w').write(s)
