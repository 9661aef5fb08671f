# Session 19, run b: writes the two variants of Kokkos 3.4.01's Cuda/Kokkos_Cuda_KernelLaunch.hpp
# into OUTDIR/nocfg/Cuda and OUTDIR/k4/Cuda; a bench built with -I OUTDIR/<variant> (ahead of
# Kokkos' -isystem include directory) launches its kernels through the variant.
#   python3 kokkos-carveout.py <Kokkos install>/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp OUTDIR
# nocfg: no cudaFuncSetCacheConfig call (the driver's default), as Kokkos >= 4 without a
#        DesiredOccupancy.
# k4:    cudaFuncAttributePreferredSharedMemoryCarveout = the shared memory of the blocks that fit
#        an SM (threads, registers, block limit), rounded up to 8 KB, in % of the SM's shared
#        memory, rounded up; set when it changes (as Kokkos >= 4 with DesiredOccupancy 100).
import os, sys
K, outdir = sys.argv[1], sys.argv[2]
s = open(K).read()
old = '''  static bool cache_config_preference_cached = set_cache_config();
  if (cache_config_preference_cached != prefer_shmem) {
    cache_config_preference_cached = set_cache_config();
  }
#else'''
assert s.count(old) == 1
n = s.replace(old, '''  (void)set_cache_config;
#pragma message("MERGEATTN VARIANT nocfg")
#else''')
os.makedirs(f'{outdir}/nocfg/Cuda', exist_ok=True)
open(f'{outdir}/nocfg/Cuda/Kokkos_Cuda_KernelLaunch.hpp', 'w').write(n)
old2 = '''      Impl::configure_shmem_preference<
          DriverType, Kokkos::LaunchBounds<MaxThreadsPerBlock, MinBlocksPerSM>>(
          base_t::get_kernel_func(), prefer_shmem);'''
assert s.count(old2) >= 1
new2 = '''      {
#pragma message("MERGEATTN VARIANT k4")
        (void)prefer_shmem;
        const cudaDeviceProp& p = cuda_instance->m_deviceProp;
        const cudaFuncAttributes a = get_cuda_func_attributes();
        const int threads = block.x * block.y * block.z;
        const int warps = (threads + 31) / 32;
        const int regs_warp = ((a.numRegs * 32 + 255) / 256) * 256;
        int blocks = p.maxThreadsPerMultiProcessor / threads;
        if (regs_warp > 0) {
          const int by_regs = (p.regsPerMultiprocessor / regs_warp) / warps;
          if (by_regs < blocks) blocks = by_regs;
        }
        if (blocks > p.maxBlocksPerMultiProcessor) blocks = p.maxBlocksPerMultiProcessor;
        if (blocks < 1) blocks = 1;
        const size_t per_block = size_t(shmem) + a.sharedSizeBytes + p.reservedSharedMemPerBlock;
        const size_t need = ((blocks * per_block + 8191) / 8192) * 8192;
        int carveout = int((100 * need + p.sharedMemPerMultiprocessor - 1) / p.sharedMemPerMultiprocessor);
        if (carveout > 100) carveout = 100;
        static int cached = -2;
        if (cached != carveout) {
          cached = carveout;
          CUDA_SAFE_CALL(cudaFuncSetAttribute(base_t::get_kernel_func(), cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
          if (std::getenv("MA_K4_LOG")) printf("k4 carveout %d (blocks %d, per block %zu, regs %d)\\n", carveout, blocks, per_block, a.numRegs);
        }
      }'''
k = s.replace(old2, new2).replace('#include <mutex>', '#include <mutex>\n#include <cstdlib>\n#include <cstdio>', 1)
assert '#include <cstdlib>' in k
os.makedirs(f'{outdir}/k4/Cuda', exist_ok=True)
open(f'{outdir}/k4/Cuda/Kokkos_Cuda_KernelLaunch.hpp', 'w').write(k)
