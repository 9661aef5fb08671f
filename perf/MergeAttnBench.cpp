// MergeAttn's main job: Google Benchmark timings of merge_attn_states on the default execution
// space, each next to a device copy (Kokkos::deep_copy) of the same number of bytes measured in the
// same run: the practical roofline.
//
//   merge_attn_bench [--grid=default|full|smoke] [Google Benchmark flags, e.g.
//   --benchmark_out=f.json]
//
// Bytes moved per merge: 2 reads + 1 write of [tokens][heads][head_size] values, plus 3 LSE arrays
// [heads][tokens] of float (prefix, suffix, output). GB/s = bytes / median time.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "PlainCudaMerge.hpp"

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

struct Shape {
  std::int64_t tokens, heads, head_size;
};

template <class T>
const char* type_name() {
  if (std::is_same<T, float>::value) return "float";
  if (std::is_same<T, MergeAttn::half_t>::value) return "half";
  return "bf16";
}

// Deterministic pseudo-random fill on the device (never zeros: zeros can hide unwritten output).
template <class V>
struct FillOutputs {
  V v;
  std::uint64_t salt;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t, const std::int64_t h) const {
    using Tr = MergeAttn::Impl::ValueTraits<typename V::value_type>;
    for (std::int64_t d = 0; d < std::int64_t(v.extent(2)); ++d) {
      std::uint64_t x = (std::uint64_t(t) * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t(h) << 20) ^
                        std::uint64_t(d) ^ salt;
      x ^= x >> 29;
      x *= 0xBF58476D1CE4E5B9ull;
      x ^= x >> 32;
      v(t, h, d) = Tr::from_compute(float(x % 2001) * 1e-3f - 1.0f);
    }
  }
};

template <class L>
struct FillLse {
  L v;
  float offset;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t h, const std::int64_t t) const {
    v(h, t) = offset + float((h * 31 + t * 17) % 97) * 0.05f;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median seconds of timed calls: whole (until the fence after the call returned) and the
// host part (until the call itself returned: argument checks and launch; on a GPU the kernel runs
// on after it, on the host backends the call is most or all of the time).
struct Timing {
  double total_s = 0.0;
  double host_s = 0.0;
};

// One timed call of f: its host part and the whole, fence included (the timer read between them
// adds the same few tens of nanoseconds to every timed call, the copy and plain kernel included).
template <class F>
void time_call(F& f, Kokkos::Timer& timer, std::vector<double>& total, std::vector<double>& host) {
  timer.reset();
  f();
  host.push_back(timer.seconds());
  Kokkos::fence();
  total.push_back(timer.seconds());
}

// Median of `reps` timed calls of f, after `warmup` untimed ones; fence before each read.
template <class F>
Timing time_median(F&& f, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) f();
  Kokkos::fence();
  std::vector<double> total, host;
  Kokkos::Timer timer;
  for (int i = 0; i < reps; ++i) time_call(f, timer, total, host);
  return {median(total), median(host)};
}

int reps_for(const double bytes) { return bytes > 1e8 ? 20 : bytes > 1e6 ? 50 : 200; }

// The roofline: median seconds of a device copy (Kokkos::deep_copy) of the same number of bytes
// (half read, half written).
double copy_seconds(const double bytes) {
  const std::int64_t copy_bytes = std::int64_t(bytes / 2);
  Kokkos::View<std::uint8_t*, Mem> src(Kokkos::view_alloc("csrc", Kokkos::WithoutInitializing),
                                       copy_bytes);
  Kokkos::View<std::uint8_t*, Mem> dst(Kokkos::view_alloc("cdst", Kokkos::WithoutInitializing),
                                       copy_bytes);
  Kokkos::deep_copy(src, std::uint8_t(1));
  return time_median([&] { Kokkos::deep_copy(Exec(), dst, src); }, 3, reps_for(bytes)).total_s;
}

// Google Benchmark's loop around f (manual time, fence before each timer read) after `warmup`
// untimed calls; returns the medians.
template <class F>
Timing timed_iterations(benchmark::State& state, F&& f, const int warmup = 3) {
  for (int i = 0; i < warmup; ++i) f();
  Kokkos::fence();
  std::vector<double> total, host;
  Kokkos::Timer timer;
  for (auto _ : state) {
    time_call(f, timer, total, host);
    state.SetIterationTime(total.back());
  }
  return {median(total), median(host)};
}

// Plans timed beside a call: where launch cost matters (calls under this many seconds).
constexpr double plan_time_limit_s = 50e-6;

// Makes one plan with `launch` (make(options) returns it) and times its execute(): counters
// <name>_make_us (the host time of making it, once per plan; a graph's capture included),
// <name>_us, <name>_host_us and <name>_graph (1 where it replays a CUDA graph).
template <class MakePlan>
Timing time_plan(benchmark::State& state, const std::string& name,
                 const MergeAttn::PlanLaunch launch, const int reps, const MakePlan& make) {
  MergeAttn::MergeOptions options;
  options.plan_launch = launch;
  Kokkos::Timer made;
  const auto plan = make(options);
  state.counters[name + "_make_us"] = made.seconds() * 1e6;
  const Timing t = time_median([&] { plan.execute(); }, 3, reps);
  state.counters[name + "_us"] = t.total_s * 1e6;
  state.counters[name + "_host_us"] = t.host_s * 1e6;
  state.counters[name + "_graph"] = plan.launch_mode() == MergeAttn::PlanLaunch::cuda_graph;
  return t;
}

// The plans of a merge under plan_time_limit_s, made by make(options): as users get it (on CUDA a
// graph replay: counters plan_*) and, on CUDA, with Kokkos' launch at every execute()
// (PlanLaunch::kernel: plan_kernel_*; zero Timing elsewhere).
template <class MakePlan>
std::pair<Timing, Timing> time_plans(benchmark::State& state, const int reps,
                                     const MakePlan& make) {
  std::pair<Timing, Timing> t;
  t.first = time_plan(state, "plan", MergeAttn::PlanLaunch::automatic, reps, make);
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value)
    t.second = time_plan(state, "plan_kernel", MergeAttn::PlanLaunch::kernel, reps, make);
#endif
  return t;
}

// The counters every merge reports.
void report(benchmark::State& state, const double bytes, const Timing merge, const double copy_s) {
  const double merge_s = merge.total_s;
  state.counters["bytes"] = bytes;
  state.counters["GB/s"] = bytes / merge_s * 1e-9;
  state.counters["copy_GB/s"] = bytes / copy_s * 1e-9;
  state.counters["pct_of_copy"] = 100.0 * copy_s / merge_s;
  state.counters["median_us"] = merge_s * 1e6;
  state.counters["host_us"] = merge.host_s * 1e6;
  state.SetBytesProcessed(std::int64_t(bytes) * std::int64_t(state.iterations()));
}

template <class T>
void bench_merge(benchmark::State& state, const Shape s,
                 const MergeAttn::Impl::LaunchShape* shape) {
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  V out(Kokkos::view_alloc("out", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  V pre(Kokkos::view_alloc("pre", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  V suf(Kokkos::view_alloc("suf", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  L pl("pl", s.heads, s.tokens), sl("sl", s.heads, s.tokens), ol("ol", s.heads, s.tokens);
  using P2 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("fill", P2({0, 0}, {s.tokens, s.heads}), FillOutputs<V>{pre, 1});
  Kokkos::parallel_for("fill", P2({0, 0}, {s.tokens, s.heads}), FillOutputs<V>{suf, 2});
  Kokkos::parallel_for("fill", P2({0, 0}, {s.heads, s.tokens}), FillLse<L>{pl, 0.0f});
  Kokkos::parallel_for("fill", P2({0, 0}, {s.heads, s.tokens}), FillLse<L>{sl, 0.7f});

  const double elements = double(s.tokens) * double(s.heads) * double(s.head_size);
  const double bytes =
      3.0 * elements * sizeof(T) + 3.0 * double(s.tokens * s.heads) * sizeof(float);

  const double copy_s = copy_seconds(bytes);

  const Exec exec;
  auto merge = [&] {
    if (shape == nullptr)
      MergeAttn::merge_attn_states(exec, out, pre, pl, suf, sl, ol);
    else  // a launch shape forced for tuning (--sweep)
      MergeAttn::Impl::merge_attn_states_impl(exec, out, pre, pl, suf, sl, ol, {}, shape);
  };
  const Timing merge_t = timed_iterations(state, merge);
  report(state, bytes, merge_t, copy_s);
  // The same merge through a plan (MergeAttn::MergePlan: checks, launch shape, functor and policy
  // made once; on CUDA by default a graph of the launch, replayed), where launch cost matters.
  const int reps = std::max(reps_for(bytes), int(state.iterations()));
  const auto make = [&](const MergeAttn::MergeOptions& options) {
    return MergeAttn::plan_merge_attn_states(exec, out, pre, pl, suf, sl, ol, options);
  };
  Timing plan_t, plan_kernel_t;
  if (shape == nullptr && merge_t.total_s < plan_time_limit_s)
    std::tie(plan_t, plan_kernel_t) = time_plans(state, reps, make);
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    // The plain-CUDA baseline on identical bytes, when its layout constraint holds.
    if (s.head_size % (16 / sizeof(T)) == 0) {
      const Timing plain = time_median(
          [&] {
            MergeAttnPerf::plain_merge<T, MergeAttn::Impl::ValueTraits<T>>(
                exec.cuda_stream(), out.data(), ol.data(), pre.data(), pl.data(), suf.data(),
                sl.data(), s.tokens, s.heads, int(s.head_size));
          },
          3, reps);
      state.counters["plain_us"] = plain.total_s * 1e6;
      state.counters["plain_host_us"] = plain.host_s * 1e6;
      state.counters["vs_plain"] = merge_t.total_s / plain.total_s;
      if (plan_t.total_s > 0) state.counters["plan_vs_plain"] = plan_t.total_s / plain.total_s;
      if (plan_kernel_t.total_s > 0)
        state.counters["plan_kernel_vs_plain"] = plan_kernel_t.total_s / plain.total_s;
    }
  }
#endif
}

std::string shape_name(const Shape& s);

// N-way: S states [S][tokens][heads][d] merged in one pass. Bytes: S reads + 1 write of the
// outputs, S + 1 LSE arrays. Reported against a copy of the same bytes and against folding the
// same states with S - 1 in-place 2-way merges (vs_fold = N-way time / fold time).
template <class T>
void bench_nway(benchmark::State& state, const Shape s, const std::int64_t S,
                const MergeAttn::Impl::LaunchShape* shape = nullptr) {
  using V4 = Kokkos::View<T****, Kokkos::LayoutRight, Mem>;
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L3 = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  V4 states(Kokkos::view_alloc("states", Kokkos::WithoutInitializing), S, s.tokens, s.heads,
            s.head_size);
  L3 lse("lse", S, s.heads, s.tokens);
  V out(Kokkos::view_alloc("out", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  L ol("ol", s.heads, s.tokens);
  using P2 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  for (std::int64_t i = 0; i < S; ++i) {
    const auto all = Kokkos::ALL;
    using SV = decltype(Kokkos::subview(states, i, all, all, all));
    using SL = decltype(Kokkos::subview(lse, i, all, all));
    Kokkos::parallel_for(
        "fill", P2({0, 0}, {s.tokens, s.heads}),
        FillOutputs<SV>{Kokkos::subview(states, i, all, all, all), std::uint64_t(i + 1)});
    Kokkos::parallel_for("fill", P2({0, 0}, {s.heads, s.tokens}),
                         FillLse<SL>{Kokkos::subview(lse, i, all, all), 0.3f * float(i % 7)});
  }
  const double elements = double(s.tokens) * double(s.heads) * double(s.head_size);
  const double bytes = double(S + 1) * (elements * sizeof(T) + double(s.tokens * s.heads) * 4.0);
  const double copy_s = copy_seconds(bytes);
  const Exec exec;
  const Timing merge_t = timed_iterations(state, [&] {
    MergeAttn::Impl::merge_attn_states_nway_impl(exec, out, states, lse, ol,
                                                 MergeAttn::MergeOptions{}, shape);
  });
  // The fold: acc = state 0 (not timed), then S - 1 in-place 2-way merges.
  const auto all = Kokkos::ALL;
  V acc(Kokkos::view_alloc("acc", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  L acc_lse(Kokkos::view_alloc("acc_lse", Kokkos::WithoutInitializing), s.heads, s.tokens);
  Kokkos::deep_copy(acc, Kokkos::subview(states, 0, all, all, all));
  Kokkos::deep_copy(acc_lse, Kokkos::subview(lse, 0, all, all));
  const double fold_s =
      time_median(
          [&] {
            for (std::int64_t i = 1; i < S; ++i)
              MergeAttn::merge_attn_states(exec, acc, acc, acc_lse,
                                           Kokkos::subview(states, i, all, all, all),
                                           Kokkos::subview(lse, i, all, all), acc_lse);
          },
          1, std::max(5, reps_for(bytes) / 4))
          .total_s;
  report(state, bytes, merge_t, copy_s);
  state.counters["states"] = double(S);
  state.counters["fold_us"] = fold_s * 1e6;
  state.counters["speedup_vs_fold"] = fold_s / merge_t.total_s;
  // Launches under 50 us (decode: few tokens, many splits) also through a plan, made as users get
  // it (on CUDA a graph replay) and on CUDA with Kokkos' launch: counters as in bench_merge, and
  // plan_vs_call / plan_kernel_vs_call (time / the call's).
  if (shape == nullptr && merge_t.total_s < plan_time_limit_s) {
    const int reps = std::max(reps_for(bytes), int(state.iterations()));
    const auto make = [&](const MergeAttn::MergeOptions& options) {
      return MergeAttn::plan_merge_attn_states(exec, out, states, lse, ol, options);
    };
    const auto [plan_t, kernel_t] = time_plans(state, reps, make);
    state.counters["plan_vs_call"] = plan_t.total_s / merge_t.total_s;
    if (kernel_t.total_s > 0)
      state.counters["plan_kernel_vs_call"] = kernel_t.total_s / merge_t.total_s;
  }
}

// Variable length (--sweep, "varlen-pairs/..." and "varlen-ragged/..."): S states for each token
// (ragged: token t has 1 + (5 t mod (2 S - 1)) states, S on average, 1 to 2 S - 1), packed
// [total states][heads][d] with LSEs [heads][total states] and offsets indptr (uniform: the N-way
// entry's bytes through the varlen form, whose count is not known on the host), check_indptr off
// (no host copy of the offsets, no fence: what a decode loop runs). No fold or plan timings.
template <class T>
void bench_varlen(benchmark::State& state, const Shape s, const std::int64_t S, const bool ragged,
                  const MergeAttn::Impl::LaunchShape* shape = nullptr) {
  using V = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Kokkos::View<std::int64_t*, Mem> indptr("indptr", s.tokens + 1);
  const auto offsets = Kokkos::create_mirror_view(Kokkos::HostSpace(), indptr);
  offsets(0) = 0;
  for (std::int64_t t = 0; t < s.tokens; ++t)
    offsets(t + 1) = offsets(t) + (ragged ? 1 + (5 * t) % (2 * S - 1) : S);
  const std::int64_t total = offsets(s.tokens);
  // Kokkos before 3.6.01 (unpatched) gives a View of three runtime extents and a multiple of 2^32
  // elements no memory (the merge's checks reject it; any shortfall is tested): reported as an
  // error, not timed.
  if (V::required_allocation_size(total, s.heads, s.head_size) <
      static_cast<std::size_t>(total * s.heads * s.head_size) * sizeof(T)) {
    state.SkipWithError("this Kokkos gives a View of 2^32 elements or more too little memory");
    return;
  }
  Kokkos::deep_copy(indptr, offsets);
  V states(Kokkos::view_alloc("states", Kokkos::WithoutInitializing), total, s.heads, s.head_size);
  L lse("lse", s.heads, total);
  V out(Kokkos::view_alloc("out", Kokkos::WithoutInitializing), s.tokens, s.heads, s.head_size);
  L ol("ol", s.heads, s.tokens);
  using P2 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("fill", P2({0, 0}, {total, s.heads}), FillOutputs<V>{states, 1});
  Kokkos::parallel_for("fill", P2({0, 0}, {s.heads, total}), FillLse<L>{lse, 0.0f});
  // The rows and LSEs read (every state's) and written (every token's).
  const double row_bytes = double(s.heads) * (double(s.head_size) * sizeof(T) + 4.0);
  const double bytes = double(total + s.tokens) * row_bytes;
  const double copy_s = copy_seconds(bytes);
  const Exec exec;
  MergeAttn::MergeOptions options;
  options.check_indptr = false;
  const Timing merge_t = timed_iterations(state, [&] {
    MergeAttn::Impl::merge_attn_states_varlen_impl(exec, out, states, lse, indptr, ol, options,
                                                   shape);
  });
  report(state, bytes, merge_t, copy_s);
  state.counters["states"] = double(S);
}

// The N-way entry "nway/<type>/S<S>/<shape>" (the built-in launch shape).
template <class T>
void register_nway_shape(const Shape& shape, const std::int64_t S) {
  const std::string name =
      std::string("nway/") + type_name<T>() + "/S" + std::to_string(S) + "/" + shape_name(shape);
  benchmark::RegisterBenchmark(name.c_str(),
                               [shape, S](benchmark::State& st) { bench_nway<T>(st, shape, S); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.05);
}

template <class T>
void register_nway(const std::string& grid_name) {
  const bool full = grid_name == "full";
  for (std::int64_t S :
       full ? std::vector<std::int64_t>{2, 4, 8, 16, 64} : std::vector<std::int64_t>{2, 8}) {
    // 64 states of 16384 tokens would be 2^32 elements (16 GiB of float): 4096 tokens there.
    const Shape shape = !full    ? Shape{1024, 32, 128}
                        : S > 16 ? Shape{4096, 32, 128}
                                 : Shape{16384, 32, 128};
    if (grid_name == "smoke" && S > 2) continue;
    register_nway_shape<T>(shape, S);
  }
  // The full grid: split-KV decode's launches too (few tokens, many states), where the launch
  // costs more than the bytes and plans are timed beside the call.
  if (full)
    for (std::int64_t S : {4, 16, 64})
      for (std::int64_t tokens : {1, 16, 64}) register_nway_shape<T>(Shape{tokens, 32, 128}, S);
}

std::vector<Shape> grid(const std::string& name) {
  std::vector<std::int64_t> tokens, heads, dims;
  if (name == "full") {
    tokens = {1, 16, 64, 256, 1024, 4096, 16384, 65536};
    heads = {8, 32, 128};
    dims = {64, 128, 256, 512, 576};
  } else if (name == "smoke") {
    tokens = {1, 256};
    heads = {8};
    dims = {128};
  } else {  // default: trimmed so that the host run takes about a minute on 2 cores
    tokens = {1, 64, 1024, 16384};
    heads = {32};
    dims = {128, 576};
  }
  std::vector<Shape> g;
  for (auto d : dims)
    for (auto h : heads)
      for (auto t : tokens) {
        // Keep each View under 2 GiB: the largest full-grid shapes exceed a host's patience.
        if (double(t) * h * d * 4 > 2.2e9) continue;
        g.push_back({t, h, d});
      }
  return g;
}

std::string shape_name(const Shape& s) {
  return std::to_string(s.tokens) + "x" + std::to_string(s.heads) + "x" +
         std::to_string(s.head_size);
}

template <class T>
void register_type(const std::vector<Shape>& g) {
  for (const Shape& s : g) {
    const std::string name = std::string("merge/") + type_name<T>() + "/" + shape_name(s);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [s](benchmark::State& st) { bench_merge<T>(st, s, nullptr); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.05);
  }
}

// Registers `name` running bench(state, shape) with a copy of the forced launch shape `ls` (or
// nullptr: the built-in choice).
template <class Bench>
void register_with_shape(const std::string& name, const MergeAttn::Impl::LaunchShape* ls,
                         Bench bench) {
  std::optional<MergeAttn::Impl::LaunchShape> copy;
  if (ls != nullptr) copy = *ls;
  // A forced shape this device cannot run (launch_merge refuses it before launching) is reported
  // as that benchmark's error; the others still run.
  benchmark::RegisterBenchmark(name.c_str(),
                               [bench, copy](benchmark::State& st) {
                                 try {
                                   bench(st, copy ? &*copy : nullptr);
                                 } catch (const std::invalid_argument& e) {
                                   st.SkipWithError(e.what());
                                 }
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.05);
}

// A forced launch shape's name in the sweep: team<T>xvec<V>_g<G>_k<K>[_pf][_ps[2]] (_ps2: the row
// prefetch with batches of 2 states).
std::string shape_label(const MergeAttn::Impl::LaunchShape& ls) {
  return "team" + std::to_string(ls.team_size) + "xvec" + std::to_string(ls.vector_length) + "_g" +
         std::to_string(ls.tokens_per_group) + "_k" + std::to_string(ls.pairs_per_thread) +
         (ls.prefetch_rows ? "_pf" : "") + (ls.prefetch_states ? "_ps" : "") +
         (ls.prefetch_states && ls.narrow_state_batches ? "2" : "") +
         (ls.prefetch_states && ls.state_ring ? "_r" : "");
}

// The --sweep N-way entry "nway-sweep/<type>/S<S>/<shape>/<label>" with launch shape ls (nullptr:
// the built-in one).
template <class T>
void register_nway_entry(const Shape& s, const std::int64_t S, const std::string& label,
                         const MergeAttn::Impl::LaunchShape* ls,
                         const std::string& prefix = "nway-sweep") {
  register_with_shape(
      prefix + "/" + type_name<T>() + "/S" + std::to_string(S) + "/" + shape_name(s) + "/" + label,
      ls, [s, S](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
        bench_nway<T>(st, s, S, shape);
      });
}

// `def` forced to one pair per team thread on `vec` vector lanes in teams of `threads` threads, its
// token groups as wide as a warp's team threads where `tokens` allows (choose_launch_shape's loop).
MergeAttn::Impl::LaunchShape one_pair_shape(MergeAttn::Impl::LaunchShape def, const int vec,
                                            const int threads, const std::int64_t tokens) {
  def.vector_length = vec;
  def.team_size = threads / vec;
  def.tokens_per_group = 1;
  while (def.tokens_per_group < 32 / vec && 2 * def.tokens_per_group <= tokens)
    def.tokens_per_group *= 2;
  def.pairs_per_thread = 1;
  return def;
}

// The built-in launch shape of an N-way merge of S states of shape s.
template <class T>
MergeAttn::Impl::LaunchShape builtin_nway_shape(const Shape& s, const std::int64_t S) {
  return MergeAttn::Impl::choose_launch_shape<Exec>(
      int(sizeof(T)), int(s.head_size / (16 / sizeof(T))), s.tokens, s.heads, S);
}

// The prefetching N-state forms a sweep entry forces: pairs per team thread (1, or 8 = LanePairs)
// and, for 16-bit LanePairs, batches of 2 states and the state ring.
struct PrefetchForm {
  int pairs_per_thread;
  bool narrow, ring;
};
constexpr PrefetchForm prefetch_forms[] = {
    {1, false, false}, {8, false, false}, {8, true, false}, {8, false, true}, {8, true, true}};

// --sweep, N-way: forced launch shapes for S states (lanes per row, pairs per team thread: 1, 2,
// or 8 = the LanePairs form; without the row prefetch), then the prefetching forms ("_ps": one
// pair per team thread, LanePairs with K = 8; "_ps2": 16-bit LanePairs in batches of 2 states;
// "_r": 16-bit LanePairs with the state ring); "auto" is the built-in choice. S = 15: on the H200
// 16-bit rows of 8 vector lanes with 15 states have no room for the ring in batches of 2, and the
// built-in shape takes it in batches of 4. Also split-KV decode's launches (below).
template <class T>
void register_nway_sweep() {
  for (std::int64_t S : {4, 8, 15, 16, 64}) {
    const Shape s = S > 16 ? Shape{4096, 32, 128} : Shape{16384, 32, 128};
    register_nway_entry<T>(s, S, "auto", nullptr);
    const MergeAttn::Impl::LaunchShape def = builtin_nway_shape<T>(s, S);
    for (int vec : {def.vector_length / 2, def.vector_length, def.vector_length * 2})
      for (int k : {1, 2, 8}) {
        if (vec < 1 || vec > 32) continue;
        MergeAttn::Impl::LaunchShape ls = def;
        ls.vector_length = vec;
        ls.team_size = 128 / vec;
        ls.tokens_per_group = 32 / vec;
        ls.pairs_per_thread = k;
        ls.prefetch_rows = false;  // 2-way forms only
        ls.prefetch_states = false;
        ls.narrow_state_batches = false;
        ls.state_ring = false;
        register_nway_entry<T>(s, S, shape_label(ls), &ls);
      }
    // The prefetching forms.
    for (const PrefetchForm& form : prefetch_forms) {
      if ((form.narrow || form.ring) && sizeof(T) != 2) continue;
      MergeAttn::Impl::LaunchShape ls = def;
      ls.pairs_per_thread = form.pairs_per_thread;
      ls.prefetch_rows = false;
      ls.prefetch_states = true;
      ls.narrow_state_batches = form.narrow;
      ls.state_ring = form.ring;
      register_nway_entry<T>(s, S, shape_label(ls), &ls);
    }
  }
  // "nway-pairs/...": from split-KV decode's launches (few tokens, many states: latency, not
  // bandwidth) up: 1 to 4096 tokens of 32 heads x 128 (head sizes 64 and 256: 1 to 256 tokens),
  // S 4, 16 and 64; one pair per team thread on 8, 16 or 32 vector lanes, teams of 128 or 32
  // threads, without and with the row prefetch. GPU-like spaces only (host teams have one thread).
  constexpr bool gpu_like = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  std::vector<Shape> pair_shapes;
  for (std::int64_t d : {128, 64, 256})
    for (std::int64_t tokens : {1, 16, 64, 256, 1024, 4096})
      if (d == 128 || tokens <= 256) pair_shapes.push_back({tokens, 32, d});
  for (std::int64_t S : {4, 16, 64})
    for (const Shape& s : gpu_like ? pair_shapes : std::vector<Shape>{}) {
      const std::int64_t tokens = s.tokens;
      register_nway_entry<T>(s, S, "auto", nullptr, "nway-pairs");
      const MergeAttn::Impl::LaunchShape def = builtin_nway_shape<T>(s, S);
      for (int vec : {8, 16, 32})
        for (int threads : {128, 32})
          for (bool prefetch : {false, true}) {
            MergeAttn::Impl::LaunchShape ls = one_pair_shape(def, vec, threads, tokens);
            ls.prefetch_rows = false;
            ls.prefetch_states = prefetch;
            ls.narrow_state_batches = false;
            ls.state_ring = false;
            register_nway_entry<T>(s, S, shape_label(ls), &ls, "nway-pairs");
          }
    }
  // "varlen-pairs/...": split-KV decode through the varlen form (1 to 1024 tokens x 32 x 128, S 4,
  // 16 and 64 per token; float also S 8, 12 and 32, and 512 and 2048 to 16384 tokens: where the
  // wide varlen rule's bounds lie), "varlen-ragged/...": the same with S states per token on
  // average (16 tokens and more): the built-in shape and one pair per team thread of 128 threads on
  // 8, 16 or 32 lanes. GPU-like spaces only.
  constexpr bool varlen_wide = std::is_same<T, float>::value;
  const std::vector<std::int64_t> varlen_counts =
      varlen_wide ? std::vector<std::int64_t>{4, 8, 12, 16, 32, 64}
                  : std::vector<std::int64_t>{4, 16, 64};
  const std::vector<std::int64_t> varlen_tokens =
      !gpu_like     ? std::vector<std::int64_t>{}
      : varlen_wide ? std::vector<std::int64_t>{1, 16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384}
                    : std::vector<std::int64_t>{1, 16, 64, 256, 1024};
  for (const bool ragged : {false, true})
    for (const std::int64_t S : varlen_counts)
      for (const std::int64_t tokens : varlen_tokens) {
        if (ragged && tokens == 1) continue;  // one token: one count
        const Shape s{tokens, 32, 128};
        const std::string base = std::string(ragged ? "varlen-ragged/" : "varlen-pairs/") +
                                 type_name<T>() + "/S" + std::to_string(S) + "/" + shape_name(s) +
                                 "/";
        const auto bench = [s, S, ragged](benchmark::State& st,
                                          const MergeAttn::Impl::LaunchShape* shape) {
          bench_varlen<T>(st, s, S, ragged, shape);
        };
        register_with_shape(base + "auto", nullptr, bench);
        const MergeAttn::Impl::LaunchShape def = builtin_nway_shape<T>(s, 0);
        for (int vec : {8, 16, 32}) {
          const MergeAttn::Impl::LaunchShape ls = one_pair_shape(def, vec, 128, tokens);
          register_with_shape(base + shape_label(ls), &ls, bench);
        }
      }
  // The built-in shape between 2^17 and 2^19 pairs, where the 16-bit form follows the waves of
  // teams (session 16): token counts of a fraction of a wave more than whole waves on the H200
  // (4352: 1.03 waves of 8 teams per SM; 7168: 2.26 waves of 6), head sizes 64 and 128; and head
  // sizes 32 and 512 at 4096 tokens.
  if constexpr (sizeof(T) == 2)
    for (std::int64_t d : {64, 128})
      for (std::int64_t tokens : {4352, 5120, 7168, 8192})
        for (std::int64_t S : {4, 8, 16})
          register_nway_entry<T>(Shape{tokens, 32, d}, S, "auto", nullptr);
  for (std::int64_t d : {32, 512})
    for (std::int64_t S : {8, 16, 64})
      if (d != 512 || S != 64) register_nway_entry<T>(Shape{4096, 32, d}, S, "auto", nullptr);
  // Other head sizes at 2^17 pairs (the prefetch rule's threshold; head size 128 for S8 and S16
  // beside the 2^19 pairs above): the built-in shape without the row prefetch, then with each
  // prefetching form of its pairs per team thread.
  for (std::int64_t d : {64, 128, 256, 576})
    for (std::int64_t S : {8, 16, 64}) {
      if (d == 576 && S == 64) continue;  // 4096x32x576 x 64 states: 19 GB of float states
      if (d == 128 && S == 64) continue;  // registered above
      const Shape s{4096, 32, d};
      register_nway_entry<T>(s, S, "auto", nullptr);
      MergeAttn::Impl::LaunchShape ls = builtin_nway_shape<T>(s, S);
      ls.prefetch_states = false;
      ls.narrow_state_batches = false;
      ls.state_ring = false;
      register_nway_entry<T>(s, S, shape_label(ls), &ls);
      for (const PrefetchForm& form : prefetch_forms) {
        if (form.pairs_per_thread != ls.pairs_per_thread) continue;
        if ((form.narrow || form.ring) && sizeof(T) != 2) continue;
        ls.prefetch_states = true;
        ls.narrow_state_batches = form.narrow;
        ls.state_ring = form.ring;
        register_nway_entry<T>(s, S, shape_label(ls), &ls);
      }
    }
}

// --sweep: the same merges with forced launch shapes (tuning the GPU mapping): "auto" is the
// built-in choice, "team<T>xvec<V>_g<G>_k<K>[_pf]" T team threads of V vector lanes, token groups
// of G, K pairs per thread, L2 row prefetch.
template <class T>
void register_sweep() {
  const Shape shapes[] = {{65536, 32, 128}, {16384, 32, 576}, {65536, 32, 64},  {16384, 32, 64},
                          {4096, 32, 64},   {16384, 8, 64},   {4096, 128, 576}, {1024, 32, 128},
                          {256, 32, 128},   {64, 32, 128},    {1, 32, 128}};
  for (const Shape& s : shapes) {
    const std::string base = std::string("sweep/") + type_name<T>() + "/" + shape_name(s) + "/";
    auto reg = [&](const std::string& name, const MergeAttn::Impl::LaunchShape* ls) {
      register_with_shape(base + name, ls,
                          [s](benchmark::State& st, const MergeAttn::Impl::LaunchShape* shape) {
                            bench_merge<T>(st, s, shape);
                          });
    };
    reg("auto", nullptr);
    const MergeAttn::Impl::LaunchShape def = MergeAttn::Impl::choose_launch_shape<Exec>(
        int(sizeof(T)), int(s.head_size / (16 / sizeof(T))), s.tokens, s.heads);
    // Token groups of 1 and of a warp's team threads (one value when a pair takes the whole warp).
    std::vector<int> groups{1};
    if (32 / def.vector_length > 1) groups.push_back(32 / def.vector_length);
    for (int g : groups)
      for (int k : {1, 2, 4, 8})
        for (bool pf : {false, true}) {
          MergeAttn::Impl::LaunchShape ls = def;
          ls.tokens_per_group = g;
          ls.pairs_per_thread = k;
          ls.prefetch_rows = pf;
          reg(shape_label(ls), &ls);
        }
    // The built-in LanePairs shape under other caps on the threads resident per multiprocessor
    // (0: none; the cap keeps prefetched rows in L2 on large launches, and can add a partial wave
    // to launches of a few waves).
    if (def.max_resident_threads > 0)
      for (int cap : {0, 768, 1024, 1280}) {
        MergeAttn::Impl::LaunchShape ls = def;
        ls.max_resident_threads = cap;
        reg(shape_label(ls) + "_cap" + std::to_string(cap), &ls);
      }
    // Other lane counts (twice the lanes: fewer dependent row loads per pair, the small launches'
    // latency chain; the packs per lane of the large launches) and teams of 256 threads, one or two
    // pairs per thread, with and without the prefetch. GPU-like spaces only: hosts run one-thread
    // teams.
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
      for (int v : {8, 16, 32}) {
        for (int threads : {128, 256}) {
          if (v == def.vector_length && threads == 128) continue;  // the loop above
          for (int k : {1, 2})
            for (bool pf : {false, true}) {
              MergeAttn::Impl::LaunchShape ls = def;
              ls.vector_length = v;
              ls.team_size = threads / v;
              while (ls.team_size > 1 && ls.team_size / 2 >= s.tokens * s.heads) ls.team_size /= 2;
              ls.tokens_per_group = std::min<std::int64_t>(def.tokens_per_group, 32 / v);
              ls.pairs_per_thread = k;
              ls.prefetch_rows = pf;
              ls.max_resident_threads = 0;
              reg(shape_label(ls), &ls);
            }
        }
      }
    }
  }
}

// --sweep also times empty launches: the floor under the small sizes (Kokkos TeamPolicy and
// RangePolicy, and on CUDA a raw kernel), each followed by a fence like the merges.
struct EmptyTeam {
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};
struct EmptyRange {
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {}
};

void register_launch() {
  auto reg = [](const char* name, auto f) {
    benchmark::RegisterBenchmark(name,
                                 [f](benchmark::State& st) {
                                   const Timing t = timed_iterations(st, f, 10);
                                   st.counters["median_us"] = t.total_s * 1e6;
                                   st.counters["host_us"] = t.host_s * 1e6;
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.05);
  };
  reg("launch/fence_only", [] {});
  reg("launch/kokkos_team_2_teams", [] {
    constexpr bool host_like = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
    // The merge's shapes: 16 x 8 threads per team on GPUs, one-thread teams on hosts.
    Kokkos::parallel_for("empty",
                         Kokkos::TeamPolicy<Exec>(Exec(), 2, host_like ? 1 : 16, host_like ? 1 : 8),
                         EmptyTeam{});
  });
  reg("launch/kokkos_range_256", [] {
    Kokkos::parallel_for("empty", Kokkos::RangePolicy<Exec>(Exec(), 0, 256), EmptyRange{});
  });
  {
    // merge_attn_states on 0 tokens: the argument checks alone (no launch).
    using V = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
    using L = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
    const V out("out", 0, 32, 128), pre("pre", 0, 32, 128), suf("suf", 0, 32, 128);
    const L pl("pl", 32, 0), sl("sl", 32, 0), ol("ol", 32, 0);
    reg("launch/merge_checks_only",
        [=] { MergeAttn::merge_attn_states(Exec(), out, pre, pl, suf, sl, ol); });
  }
#if defined(KOKKOS_ENABLE_CUDA)
  reg("launch/cuda_raw_2x128", [] { MergeAttnPerf::empty_launch(Exec().cuda_stream()); });
  // The same empty launch replayed from a CUDA graph, captured once as plans capture theirs.
  try {
    const auto graph = MergeAttn::Impl::capture_cuda_graph(Exec(), [](const Kokkos::Cuda& space) {
      MergeAttnPerf::empty_launch(space.cuda_stream());
    });
    reg("launch/cuda_graph_2x128", [graph] { graph->launch(Exec().cuda_stream()); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch/cuda_graph_2x128 skipped: %s\n", e.what());
  }
#endif
}

#ifndef MERGEATTN_BENCH_BUILD_TYPE
#define MERGEATTN_BENCH_BUILD_TYPE ""  // perf/CMakeLists.txt defines it
#endif

// The NVIDIA driver's version as /proc/driver/nvidia/version names it (its first dotted number,
// e.g. 580.159.04), or why it is not known.
[[maybe_unused]] std::string nvidia_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return "unknown (no /proc/driver/nvidia/version)";
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (w.find('.') != std::string::npos && w.find_first_not_of("0123456789.") == std::string::npos)
      return w;
  return "unknown (" + line + ")";
}

// The run's context, in the JSON and in Google Benchmark's console header: what ran where, so that
// a committed result names its machine (on CUDA the GPU, its driver and the CUDA versions).
void add_run_context(const std::string& grid_name) {
  const auto add = [](const char* key, const std::string& value) {
    benchmark::AddCustomContext(key, value);
  };
  add("mergeattn_execution_space", Exec::name());
  add("mergeattn_concurrency", std::to_string(Exec().concurrency()));
  add("mergeattn_hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  add("mergeattn_grid", grid_name);
  add("mergeattn_build_type",
      MERGEATTN_BENCH_BUILD_TYPE[0] ? MERGEATTN_BENCH_BUILD_TYPE : "(none)");
  add("kokkos_version", std::to_string(KOKKOS_VERSION / 10000) + "." +
                            std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                            std::to_string(KOKKOS_VERSION % 100));
#if defined(KOKKOS_ENABLE_CUDA)
  const auto version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  int device = 0, runtime = 0, driver_api = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
      cudaRuntimeGetVersion(&runtime) != cudaSuccess ||
      cudaDriverGetVersion(&driver_api) != cudaSuccess)
    throw std::runtime_error("merge_attn_bench: could not query the CUDA device");
  add("gpu", prop.name);
  add("gpu_multiprocessors", std::to_string(prop.multiProcessorCount));
  add("gpu_memory_gib", std::to_string(prop.totalGlobalMem >> 30));
  add("nvidia_driver", nvidia_driver_version());
  add("cuda_driver_api", version(driver_api));
  add("cuda_runtime", version(runtime));
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::string grid_name = "default";
  bool sweep = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--grid=", 7) == 0)
      grid_name = argv[i] + 7;
    else if (std::strcmp(argv[i], "--sweep") == 0)
      sweep = true;
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  Kokkos::ScopeGuard kokkos(n, args.data());
  benchmark::Initialize(&n, args.data());
  add_run_context(grid_name);
  const auto g = grid(grid_name);
  register_type<float>(g);
  register_type<MergeAttn::half_t>(g);
  register_type<MergeAttn::bfloat16_t>(g);
  register_nway<float>(grid_name);
  register_nway<MergeAttn::bfloat16_t>(grid_name);
  if (sweep) {
    register_sweep<float>();
    register_sweep<MergeAttn::bfloat16_t>();
    register_nway_sweep<float>();
    register_nway_sweep<MergeAttn::bfloat16_t>();
    register_launch();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  benchmark::ClearRegisteredBenchmarks();  // drops captured Views before Kokkos finalizes
  return 0;
}
