#include <MergeAttn.hpp>
#include <cstdio>
#include <exception>
using Mem = Kokkos::CudaSpace;
using Shape = MergeAttn::Impl::LaunchShape;
template <class T>
void two(const char* tn, int d) {
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  V a("a", 37, 5, d), b("b", 37, 5, d), o("o", 37, 5, d);
  L la("la", 5, 37), lb("lb", 5, 37), lo("lo", 5, 37);
  const Shape shapes[] = {{16, 8, 4, 8},
                          {16, 8, 4, 8, true},
                          {16, 8, 4, 8, true, 640},
                          {4, 32, 1, 4, true},
                          {4, 32, 1, 4, true, 256},
                          {16, 8, 4, 8, true, 768},
                          {16, 8, 4, 8, true, 1024}};
  for (const Shape& s : shapes) {
    try {
      MergeAttn::Impl::merge_attn_states_impl(Kokkos::Cuda(), o, a, la, b, lb, lo, {}, &s);
      Kokkos::fence();
      std::printf("2way %s d=%d team %d vec %d k %d res %d: ok\n", tn, d, s.team_size,
                  s.vector_length, s.pairs_per_thread, s.max_resident_threads);
    } catch (const std::exception& e) {
      std::printf("2way %s d=%d team %d vec %d k %d res %d: %s\n", tn, d, s.team_size,
                  s.vector_length, s.pairs_per_thread, s.max_resident_threads, e.what());
    }
  }
}
template <class T>
void many(const char* tn, int S, int d) {
  using V4 = Kokkos::View<T****, Kokkos::LayoutRight, Mem>;
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L3 = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  V4 st("st", S, 37, 3, d);
  L3 ls("ls", S, 3, 37);
  V o("o", 37, 3, d);
  L lo("lo", 3, 37);
  const Shape shapes[] = {{16, 8, 1, 1}, {16, 8, 4, 8}, {4, 32, 1, 4}, {2, 16, 2, 8},
                          {8, 16, 1, 8}, {8, 8, 1, 8},  {16, 8, 1, 4}};
  for (const Shape& s : shapes) {
    try {
      MergeAttn::Impl::merge_attn_states_nway_impl(Kokkos::Cuda(), o, st, ls, lo, {}, &s);
      Kokkos::fence();
      std::printf("nway %s S=%d d=%d team %d vec %d k %d: ok\n", tn, S, d, s.team_size,
                  s.vector_length, s.pairs_per_thread);
    } catch (const std::exception& e) {
      std::printf("nway %s S=%d d=%d team %d vec %d k %d: %s\n", tn, S, d, s.team_size,
                  s.vector_length, s.pairs_per_thread, e.what());
    }
  }
}
int main(int argc, char** argv) {
  Kokkos::ScopeGuard g(argc, argv);
  const auto& p = Kokkos::Cuda().cuda_device_prop();
  std::printf("smem/SM %zu smem/block %zu reserved %zu optin %zu regs/SM %d\n",
              (size_t)p.sharedMemPerMultiprocessor, (size_t)p.sharedMemPerBlock,
              (size_t)p.reservedSharedMemPerBlock, (size_t)p.sharedMemPerBlockOptin,
              p.regsPerMultiprocessor);
  two<float>("float", 8);
  two<float>("float", 128);
  two<double>("double", 8);
  two<MergeAttn::bfloat16_t>("bf16", 64);
  many<float>("float", 1, 36);
  many<float>("float", 5, 64);
  many<double>("double", 5, 64);
  many<MergeAttn::bfloat16_t>("bf16", 5, 64);
  return 0;
}
