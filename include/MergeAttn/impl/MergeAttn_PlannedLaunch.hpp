// MergeAttn::Impl::PlannedLaunch: what a plan (MergeAttn::MergePlan) keeps of the merge call it was
// made from, and on CUDA the capture of that launch into a CUDA graph (MergeAttn::PlanLaunch).
#ifndef MERGEATTN_IMPL_PLANNEDLAUNCH_HPP
#define MERGEATTN_IMPL_PLANNEDLAUNCH_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/MergeAttn_Options.hpp>
#include <functional>
#include <string>
#include <utility>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#endif

namespace MergeAttn {
namespace Impl {

/// The launch a plan runs at each execute() (`launch`: Kokkos' launch of the planned kernel, or
/// the replay of its CUDA graph where `graph`), and the form the plan asked for (`wanted`).
struct PlannedLaunch {
  PlanLaunch wanted = PlanLaunch::kernel;
  std::function<void()> launch;
  bool graph = false;
};

#if defined(KOKKOS_ENABLE_CUDA)

/// Throws std::runtime_error "MergeAttn: <where>: <call>: <CUDA's message>" for a failed call.
inline void check_cuda(const cudaError_t err, const char* where, const char* call) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("MergeAttn: ") + where + ": " + call + ": " +
                             cudaGetErrorString(err));
}

/// An instantiated CUDA graph, destroyed with the last plan that holds it.
class CudaGraphExec {
 public:
  /// Instantiates `graph` (which the caller still owns).
  explicit CudaGraphExec(cudaGraph_t graph) {
    check_cuda(cudaGraphInstantiateWithFlags(&m_exec, graph, 0), "plan capture",
               "cudaGraphInstantiateWithFlags");
  }
  ~CudaGraphExec() { (void)cudaGraphExecDestroy(m_exec); }
  CudaGraphExec(const CudaGraphExec&) = delete;
  CudaGraphExec& operator=(const CudaGraphExec&) = delete;

  /// One replay on `stream`, after the work already submitted to it (asynchronous).
  void launch(cudaStream_t stream) const {
    check_cuda(cudaGraphLaunch(m_exec, stream), "MergePlan::execute", "cudaGraphLaunch");
  }

 private:
  cudaGraphExec_t m_exec = nullptr;
};

/// The Kokkos::Cuda instance, on a non-blocking stream of MergeAttn's own, on which plans capture
/// their launch. Made by the first capture in the process and kept until Kokkos::finalize (a
/// finalize hook destroys it, then its stream): making a Kokkos::Cuda instance allocates device
/// memory and destroying one frees it, and cudaFree synchronizes the device. The mutex serialises
/// the captures of all host threads.
struct CaptureSpace {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  std::unique_ptr<Kokkos::Cuda> space;
};

inline CaptureSpace& capture_space() {
  static CaptureSpace instance;
  return instance;
}

/// The graph of the one kernel that `enqueue(space)` launches on the capture space, to be replayed
/// on `exec`'s stream. Relaxed capture mode: what Kokkos does on the host around the launch (e.g.
/// copying its lock arrays to the device on a translation unit's first launch) runs as it would
/// and stays out of the graph. Anything but one kernel node in the graph (e.g. Kokkos passing the
/// functor through constant memory: a copy that a replay would repeat from a stale buffer) is
/// refused. Throws std::runtime_error naming what failed; the capture is then ended and nothing of
/// it is kept.
template <class Enqueue>
std::shared_ptr<const CudaGraphExec> capture_cuda_graph(const Kokkos::Cuda& exec,
                                                        const Enqueue& enqueue) {
  constexpr const char* where = "plan capture";
  CaptureSpace& cs = capture_space();
  const std::lock_guard<std::mutex> lock(cs.mutex);
  if (!cs.space) {
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), where,
               "cudaStreamCreateWithFlags");
    try {
      cs.space = std::make_unique<Kokkos::Cuda>(stream);
    } catch (...) {
      (void)cudaStreamDestroy(stream);
      throw;
    }
    cs.stream = stream;
    Kokkos::push_finalize_hook([] {
      CaptureSpace& c = capture_space();
      const std::lock_guard<std::mutex> hold(c.mutex);
      c.space.reset();
      if (c.stream != nullptr) (void)cudaStreamDestroy(c.stream);
      c.stream = nullptr;
    });
  }
  if (cs.space->cuda_device() != exec.cuda_device())
    throw std::runtime_error(std::string("MergeAttn: ") + where + ": the plan's device (" +
                             std::to_string(exec.cuda_device()) +
                             ") is not the capture stream's (" +
                             std::to_string(cs.space->cuda_device()) + ")");
  check_cuda(cudaStreamBeginCapture(cs.stream, cudaStreamCaptureModeRelaxed), where,
             "cudaStreamBeginCapture");
  cudaGraph_t graph = nullptr;
  const auto drop = [&graph] {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    graph = nullptr;
    (void)cudaGetLastError();  // a failed capture's error is not sticky: clear it
  };
  try {
    enqueue(*cs.space);
  } catch (...) {
    (void)cudaStreamEndCapture(cs.stream, &graph);
    drop();
    throw;
  }
  const cudaError_t ended = cudaStreamEndCapture(cs.stream, &graph);
  if (ended != cudaSuccess) {
    drop();
    check_cuda(ended, where, "cudaStreamEndCapture");
  }
  std::size_t count = 0;
  cudaError_t err = cudaGraphGetNodes(graph, nullptr, &count);
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  if (err == cudaSuccess && count == 1) {
    cudaGraphNode_t node = nullptr;
    err = cudaGraphGetNodes(graph, &node, &count);
    if (err == cudaSuccess) err = cudaGraphNodeGetType(node, &type);
  }
  if (err != cudaSuccess || count != 1 || type != cudaGraphNodeTypeKernel) {
    drop();
    check_cuda(err, where, "cudaGraphGetNodes");
    throw std::runtime_error(std::string("MergeAttn: ") + where + ": the launch captured " +
                             std::to_string(count) +
                             " graph nodes, not one kernel node (Kokkos' launch mechanism for "
                             "this functor is not a kernel argument)");
  }
  try {
    auto made = std::make_shared<const CudaGraphExec>(graph);
    drop();
    return made;
  } catch (...) {
    drop();
    throw;
  }
}

/// Gives `target` the replay of a CUDA graph of the planned launch (what `enqueue(space)` launches
/// on a Kokkos::Cuda instance `space`) where it asks for one (PlanLaunch): automatic leaves
/// Kokkos' launch where a Kokkos Tools library is loaded or the capture fails; cuda_graph throws
/// std::runtime_error instead (before capturing where a Kokkos Tools library is loaded).
template <class Enqueue>
void plan_cuda_graph(PlannedLaunch& target, const Kokkos::Cuda& exec, const Enqueue& enqueue) {
  if (target.wanted == PlanLaunch::kernel) return;
  const bool forced = target.wanted == PlanLaunch::cuda_graph;
  if (Kokkos::Tools::profileLibraryLoaded()) {
    if (!forced) return;
    // Kokkos fences the device before each launch to call the tool (cudaDeviceSynchronize), which
    // fails while a stream captures.
    throw std::runtime_error(
        "MergeAttn: plan capture: PlanLaunch::cuda_graph cannot be had with a Kokkos Tools library "
        "loaded (Kokkos fences the device before each launch to call the tool, which a CUDA graph "
        "capture does not allow); use PlanLaunch::automatic or PlanLaunch::kernel");
  }
  std::shared_ptr<const CudaGraphExec> graph;
  try {
    graph = capture_cuda_graph(exec, enqueue);
  } catch (const std::exception&) {
    if (forced) throw;
    return;
  }
  // The graph holds the kernel's arguments, not the Views they point to: the kernel launch (its
  // policy and functor, so the Views) stays in the replay's closure to keep the Views' allocations
  // alive as long as the plan; the plan's copy of `exec` keeps its stream alive.
  target.launch = [graph, exec, views = std::move(target.launch)] {
    graph->launch(exec.cuda_stream());
  };
  target.graph = true;
}

#endif  // KOKKOS_ENABLE_CUDA

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_PLANNEDLAUNCH_HPP
