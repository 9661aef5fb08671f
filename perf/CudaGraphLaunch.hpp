// A CUDA graph captured from the work a callable puts on a stream, replayed with cudaGraphLaunch:
// the benchmark's measurement of what a graph launch costs the host against a kernel launch
// (Kokkos' launch path, a raw <<<>>> launch). Only built for CUDA; not part of the library.
#ifndef MERGEATTN_PERF_CUDAGRAPHLAUNCH_HPP
#define MERGEATTN_PERF_CUDAGRAPHLAUNCH_HPP

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace MergeAttnPerf {

/// The graph of what `enqueue()` puts on `stream` (which must not be the legacy default stream:
/// it cannot be captured), instantiated once; launch(s) replays it on stream s. Everything the
/// captured work allocates must be allocated before the capture (a Kokkos::Cuda instance on
/// `stream`, its Views): allocations are not allowed while a thread captures. Throws
/// std::runtime_error naming the CUDA call that failed (e.g. a launch path that synchronises).
class CapturedGraph {
 public:
  template <class Enqueue>
  CapturedGraph(cudaStream_t stream, Enqueue&& enqueue) {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      enqueue();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t made = cudaGraphInstantiate(&m_exec, graph, 0);
    cudaGraphDestroy(graph);
    check(made, "cudaGraphInstantiate");
  }
  ~CapturedGraph() {
    if (m_exec != nullptr) cudaGraphExecDestroy(m_exec);
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  /// One replay on `stream` (asynchronous).
  void launch(cudaStream_t stream) const {
    check(cudaGraphLaunch(m_exec, stream), "cudaGraphLaunch");
  }

 private:
  static void check(const cudaError_t err, const char* what) {
    if (err != cudaSuccess)
      throw std::runtime_error(std::string("CapturedGraph: ") + what + ": " +
                               cudaGetErrorString(err));
  }
  cudaGraphExec_t m_exec = nullptr;
};

/// A stream of its own (non-blocking) for captures, destroyed with the object.
class CaptureStream {
 public:
  CaptureStream() {
    const cudaError_t err = cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking);
    if (err != cudaSuccess)
      throw std::runtime_error(std::string("CaptureStream: ") + cudaGetErrorString(err));
  }
  ~CaptureStream() { cudaStreamDestroy(m_stream); }
  CaptureStream(const CaptureStream&) = delete;
  CaptureStream& operator=(const CaptureStream&) = delete;
  cudaStream_t get() const { return m_stream; }

 private:
  cudaStream_t m_stream = nullptr;
};

}  // namespace MergeAttnPerf

#endif  // KOKKOS_ENABLE_CUDA
#endif  // MERGEATTN_PERF_CUDAGRAPHLAUNCH_HPP
