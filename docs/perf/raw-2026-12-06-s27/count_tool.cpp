// A Kokkos Tools library that counts parallel_for begins (session 27: plans under Kokkos Tools).
#include <cstdint>
#include <cstdio>
static std::uint64_t g_fors = 0;
extern "C" void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) {
  std::printf("count_tool: loaded\n");
}
extern "C" void kokkosp_finalize_library() {
  std::printf("count_tool: %llu parallel_for launches seen\n", (unsigned long long)g_fors);
}
extern "C" void kokkosp_begin_parallel_for(const char*, const std::uint32_t, std::uint64_t* id) {
  *id = g_fors++;
}
extern "C" void kokkosp_end_parallel_for(const std::uint64_t) {}
