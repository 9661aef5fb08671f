# Session 19, prepared for the next GPU session (not run): variant k4small of Kokkos 3.4.01's
# Cuda/Kokkos_Cuda_KernelLaunch.hpp, the candidate for a supply patch (cmake/patches). Team kernels
# (prefer_shmem) whose blocks use no more shared memory than the driver reserves per block get the
# carveout for full occupancy (as k4 of run b: the 2-way kernels, 48 bytes); others keep Kokkos'
# cudaFuncCachePreferShared, or carveout 100 once the kernel had a smaller one set. Run b measured
# k4 for every kernel: the 2-way kernels gained (float 512/576), the N-state ones lost 1-4 points.
#   python3 kokkos-carveout-small.py <Kokkos install>/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp OUTDIR
import os, sys
K, outdir = sys.argv[1], sys.argv[2]
s = open(K).read()
old = '''      Impl::configure_shmem_preference<
          DriverType, Kokkos::LaunchBounds<MaxThreadsPerBlock, MinBlocksPerSM>>(
          base_t::get_kernel_func(), prefer_shmem);'''
assert s.count(old) == 1
new = '''      {
#pragma message("MERGEATTN VARIANT k4small")
        const cudaDeviceProp& p = cuda_instance->m_deviceProp;
        const cudaFuncAttributes a = get_cuda_func_attributes();
        static int cached = -1;  // the carveout last set, -1: none
        const bool small = size_t(shmem) + a.sharedSizeBytes <= p.reservedSharedMemPerBlock;
        if (prefer_shmem && (small || cached >= 0)) {
          int carveout = 100;
          if (small) {
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
            carveout = int((100 * need + p.sharedMemPerMultiprocessor - 1) / p.sharedMemPerMultiprocessor);
            if (carveout > 100) carveout = 100;
          }
          if (cached != carveout) {
            cached = carveout;
            CUDA_SAFE_CALL(cudaFuncSetAttribute(base_t::get_kernel_func(), cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
          }
        } else {
          Impl::configure_shmem_preference<
              DriverType, Kokkos::LaunchBounds<MaxThreadsPerBlock, MinBlocksPerSM>>(
              base_t::get_kernel_func(), prefer_shmem);
        }
      }'''
k = s.replace(old, new)
os.makedirs(f'{outdir}/k4small/Cuda', exist_ok=True)
open(f'{outdir}/k4small/Cuda/Kokkos_Cuda_KernelLaunch.hpp', 'w').write(k)
