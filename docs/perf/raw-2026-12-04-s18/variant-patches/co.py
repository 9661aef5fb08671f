# co: (experiment) the CUDA kernel's preferred shared-memory carveout set to what its resident
# teams need (so the rest of the 256 KB per SM is L1) before every launch, through Kokkos 3.4's
# launch internals. Measures whether a larger L1 changes anything.
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('''    Kokkos::parallel_for("MergeAttn::merge_attn_states", policy, functor);
  };''', '''#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      using Policy = std::decay_t<decltype(policy)>;
      using Driver = Kokkos::Impl::ParallelFor<functor_type, Policy>;
      using Launch = Kokkos::Impl::CudaParallelLaunch<Driver, typename Policy::launch_bounds>;
      const void* fn = reinterpret_cast<const void*>(Launch::get_kernel_func());
      const int threads = shape.team_size * shape.vector_length;
      const std::size_t dyn = scratch + sizeof(double) * (shape.team_size + 2);
      int blocks = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, dyn);
      const cudaDeviceProp& prop = exec.cuda_device_prop();
      cudaFuncAttributes attr;
      cudaFuncGetAttributes(&attr, fn);
      const std::size_t need =
          std::size_t(blocks) * (dyn + attr.sharedSizeBytes + prop.reservedSharedMemPerBlock);
      int pct = static_cast<int>((need * 100 + prop.sharedMemPerMultiprocessor - 1) /
                                 prop.sharedMemPerMultiprocessor);
      if (const char* e = std::getenv("MA_CARVEOUT")) pct = std::atoi(e);
      if (pct >= 0) cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, pct > 100 ? 100 : pct);
    }
#endif
    Kokkos::parallel_for("MergeAttn::merge_attn_states", policy, functor);
  };''')
if '#include <cstdlib>' not in s:
    s = s.replace('#include <cstdint>', '#include <cstdint>\n#include <cstdlib>', 1)
open(p, 'w').write(s)
