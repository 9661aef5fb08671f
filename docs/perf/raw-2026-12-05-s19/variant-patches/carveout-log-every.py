import sys
p=sys.argv[1]; mode=sys.argv[2]
s=open(p).read()
old='''  static void set(const int percent) {
    if (cudaFuncSetAttribute(kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, percent) !=
        cudaSuccess)
      (void)cudaGetLastError();  // a hint: the launch goes on with Kokkos' preference
    applied().store(percent);
  }'''
assert s.count(old)==1
s=s.replace(old,'''  static void set(const int percent) {
    const cudaError_t e = cudaFuncSetAttribute(kernel(), cudaFuncAttributePreferredSharedMemoryCarveout, percent);
    if (e != cudaSuccess)
      (void)cudaGetLastError();  // a hint: the launch goes on with Kokkos' preference
    static int logged = 0;
    if (std::getenv("MA_CO_LOG") && logged < 3) {
      ++logged;
      cudaFuncAttributes r{};
      cudaFuncGetAttributes(&r, kernel());
      std::fprintf(stderr, "carveout set %d -> %s, read back %d (regs %d)\\n", percent, cudaGetErrorString(e), r.preferredShmemCarveout, r.numRegs);
    }
    applied().store(percent);
  }''')
s=s.replace('#include <atomic>','#include <atomic>\n#include <cstdio>\n#include <cstdlib>')
if mode=='every':
    o2='      if (applied().load() != percent) set(percent);'
    assert s.count(o2)==1
    s=s.replace(o2,'      set(percent);')
open(p,'w').write(s)
