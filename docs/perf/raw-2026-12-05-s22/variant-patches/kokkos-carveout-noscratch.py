# Session 22: variant k4ns of Kokkos 3.4.01's Cuda/Kokkos_Cuda_KernelLaunch.hpp, session 19's
# k4small (../../raw-2026-12-05-s19/variant-patches/kokkos-carveout-small.py) with a narrower rule:
# only team kernels launched WITHOUT team scratch (dynamic shared memory 0) whose static shared
# memory fits what the driver reserves per block get the carveout for full occupancy. Session 22's
# run measured k4small: the 2-way float 512/576 entries 93.5-97.5 -> 102.6-105.2 % of copy, but
# MergeAttn's N-state kernels (team scratch of a few hundred bytes, so "small" too) 3-6 points
# slower at float x576 (S8 97.2 -> 91.6) and S4 16384x32x128 90.7 -> 89.0. The N-state kernels always
# ask for team scratch on CUDA, the 2-way kernels never (except the padded LanePairs launches, which
# are not small under either rule), so this rule gives the carveout to the 2-way kernels only.
#   python3 kokkos-carveout-noscratch.py <Kokkos install>/include/Cuda/Kokkos_Cuda_KernelLaunch.hpp OUTDIR
import os, sys
K, outdir = sys.argv[1], sys.argv[2]
s = open(K).read()
old = '''      Impl::configure_shmem_preference<
          DriverType, Kokkos::LaunchBounds<MaxThreadsPerBlock, MinBlocksPerSM>>(
          base_t::get_kernel_func(), prefer_shmem);'''
assert s.count(old) == 1
new = '''      {
#pragma message("MERGEATTN VARIANT k4ns")
        const cudaDeviceProp& p = cuda_instance->m_deviceProp;
        const cudaFuncAttributes a = get_cuda_func_attributes();
        static int cached = -1;  // the carveout last set, -1: none
        const bool small = shmem == 0 && a.sharedSizeBytes <= p.reservedSharedMemPerBlock;
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
os.makedirs(f'{outdir}/k4ns/Cuda', exist_ok=True)
open(f'{outdir}/k4ns/Cuda/Kokkos_Cuda_KernelLaunch.hpp', 'w').write(k)
