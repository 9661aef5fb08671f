// Built twice: -DSIDE=Old (main's headers, namespace renamed) and -DSIDE=New (this session's).
#define MergeAttn MERGEATTN_NS
#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <cstdint>
template <class T>
using V = Kokkos::View<T***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using L = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define DEF(T, NAME)                                                                            \
  void CAT(merge_, CAT(NAME, SIDE))(void* o, void* p, float* pl, void* s, float* sl, float* ol, \
                                    long t, long h, long d) {                                   \
    MergeAttn::merge_attn_states(Kokkos::OpenMP(), V<T>((T*)o, t, h, d), V<T>((T*)p, t, h, d),  \
                                 L(pl, h, t), V<T>((T*)s, t, h, d), L(sl, h, t), L(ol, h, t));  \
  }
DEF(float, f)
DEF(MergeAttn::half_t, h)
DEF(MergeAttn::bfloat16_t, b)
