// Test support shared by every MergeAttn test: the enabled backends, Views of each layout, host
// data and its double-precision reference, and the comparison against it.
//
// Device code lives in functors here, never in test bodies (GoogleTest's TestBody is private, which
// CUDA extended lambdas do not allow).
#ifndef MERGEATTN_TEST_UTILS_HPP
#define MERGEATTN_TEST_UTILS_HPP

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "MergeAttnTolerance.hpp"

namespace MergeAttnTest {

// ---------------------------------------------------------------------------------------------
// Backends: every enabled execution space, in one list (Serial, OpenMP, Cuda).
template <class... Ts>
struct TypeList {};
template <class L, class T, bool Add>
struct Append;
template <class... Ts, class T>
struct Append<TypeList<Ts...>, T, true> {
  using type = TypeList<Ts..., T>;
};
template <class... Ts, class T>
struct Append<TypeList<Ts...>, T, false> {
  using type = TypeList<Ts...>;
};

struct NotEnabled;
#ifdef KOKKOS_ENABLE_SERIAL
using SerialSpace = Kokkos::Serial;
#else
using SerialSpace = NotEnabled;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
using OpenMPSpace = Kokkos::OpenMP;
#else
using OpenMPSpace = NotEnabled;
#endif
#ifdef KOKKOS_ENABLE_CUDA
using CudaSpace = Kokkos::Cuda;
#else
using CudaSpace = NotEnabled;
#endif

using BackendList = typename Append<
    typename Append<typename Append<TypeList<>, SerialSpace,
                                    !std::is_same<SerialSpace, NotEnabled>::value>::type,
                    OpenMPSpace, !std::is_same<OpenMPSpace, NotEnabled>::value>::type,
    CudaSpace, !std::is_same<CudaSpace, NotEnabled>::value>::type;

template <class L>
struct ToGTestTypes;
template <class... Ts>
struct ToGTestTypes<TypeList<Ts...>> {
  using type = ::testing::Types<Ts...>;
};
using Backends = typename ToGTestTypes<BackendList>::type;

/// Names the backend in test output.
struct BackendNames {
  template <class T>
  static std::string GetName(int) {
    return T::name();
  }
};

template <class Exec>
using DeviceMemory = typename Exec::memory_space;

// ---------------------------------------------------------------------------------------------
// Value types.
using ValueTypes = std::tuple<float, double, MergeAttn::half_t, MergeAttn::bfloat16_t>;

template <class T>
std::string value_type_name() {
  if (std::is_same<T, float>::value) return "float";
  if (std::is_same<T, double>::value) return "double";
  if (std::is_same<T, MergeAttn::half_t>::value) return "half_t";
  if (std::is_same<T, MergeAttn::bfloat16_t>::value) return "bfloat16_t";
  return "?";
}

template <class T>
double to_double(T v) {
  return static_cast<double>(MergeAttn::Impl::ValueTraits<T>::to_compute(v));
}

template <class T>
T from_double(double v) {
  using C = typename MergeAttn::Impl::ValueTraits<T>::compute_type;
  return MergeAttn::Impl::ValueTraits<T>::from_compute(static_cast<C>(v));
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// ---------------------------------------------------------------------------------------------
// Layouts. LayoutStride Views are sub-views of a larger allocation (a head range sliced out of a
// wider tensor, rows padded when the head size is not a multiple of 8), like a user's slice.
enum class Layout { right, left, stride };

inline const char* layout_name(Layout l) {
  return l == Layout::right ? "LayoutRight" : l == Layout::left ? "LayoutLeft" : "LayoutStride";
}

template <class F>
void with_layout(Layout l, F&& f) {
  switch (l) {
    case Layout::right:
      f(Kokkos::LayoutRight{});
      break;
    case Layout::left:
      f(Kokkos::LayoutLeft{});
      break;
    case Layout::stride:
      f(Kokkos::LayoutStride{});
      break;
  }
}

template <class T, class KokkosLayout, class Exec>
Kokkos::View<T***, KokkosLayout, DeviceMemory<Exec>> make_output_view(const std::string& label,
                                                                      std::int64_t n,
                                                                      std::int64_t h,
                                                                      std::int64_t d) {
  using V = Kokkos::View<T***, KokkosLayout, DeviceMemory<Exec>>;
  if constexpr (std::is_same<KokkosLayout, Kokkos::LayoutStride>::value) {
    const std::int64_t pad = d % 8 == 0 ? 0 : 1;
    Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>> parent(
        Kokkos::view_alloc(label + "_parent", Kokkos::WithoutInitializing), n, h + 2, d + pad);
    return V(Kokkos::subview(parent, Kokkos::ALL, std::make_pair(std::int64_t(1), h + 1),
                             std::make_pair(std::int64_t(0), d)));
  } else {
    return V(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), n, h, d);
  }
}

template <class L, class KokkosLayout, class Exec>
Kokkos::View<L**, KokkosLayout, DeviceMemory<Exec>> make_lse_view(const std::string& label,
                                                                  std::int64_t h, std::int64_t n) {
  using V = Kokkos::View<L**, KokkosLayout, DeviceMemory<Exec>>;
  if constexpr (std::is_same<KokkosLayout, Kokkos::LayoutStride>::value) {
    Kokkos::View<L**, Kokkos::LayoutRight, DeviceMemory<Exec>> parent(
        Kokkos::view_alloc(label + "_parent", Kokkos::WithoutInitializing), h + 1, n + 3);
    return V(Kokkos::subview(parent, std::make_pair(std::int64_t(1), h + 1),
                             std::make_pair(std::int64_t(0), n)));
  } else {
    return V(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), h, n);
  }
}

// Element-wise copies between Views of any layouts in one memory space.
template <class Dst, class Src>
struct CopyRank3 {
  Dst dst;
  Src src;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j, std::int64_t k) const {
    dst(i, j, k) = src(i, j, k);
  }
};
template <class Dst, class Src>
struct CopyRank2 {
  Dst dst;
  Src src;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t j) const {
    dst(i, j) = src(i, j);
  }
};

template <class Exec, class Dst, class Src>
void copy_elementwise(const Dst& dst, const Src& src) {
  if (dst.size() == 0) return;
  if constexpr (Dst::rank == 3) {
    Kokkos::parallel_for(
        "MergeAttnTest::copy3",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>, Kokkos::IndexType<std::int64_t>>(
            {0, 0, 0}, {std::int64_t(dst.extent(0)), std::int64_t(dst.extent(1)),
                        std::int64_t(dst.extent(2))}),
        CopyRank3<Dst, Src>{dst, src});
  } else {
    Kokkos::parallel_for(
        "MergeAttnTest::copy2",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
            {0, 0}, {std::int64_t(dst.extent(0)), std::int64_t(dst.extent(1))}),
        CopyRank2<Dst, Src>{dst, src});
  }
  Kokkos::fence();
}

/// Host data (row-major, [t][h][d] and [h][t]) into a device View of any layout.
template <class Exec, class View>
void upload(const View& dst, const std::vector<typename View::non_const_value_type>& host) {
  using T = typename View::non_const_value_type;
  if constexpr (View::rank == 3) {
    Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>> tmp(
        Kokkos::view_alloc("upload", Kokkos::WithoutInitializing), dst.extent(0), dst.extent(1),
        dst.extent(2));
    Kokkos::View<const T***, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        h(host.data(), dst.extent(0), dst.extent(1), dst.extent(2));
    Kokkos::deep_copy(tmp, h);
    copy_elementwise<Exec>(dst, tmp);
  } else {
    Kokkos::View<T**, Kokkos::LayoutRight, DeviceMemory<Exec>> tmp(
        Kokkos::view_alloc("upload", Kokkos::WithoutInitializing), dst.extent(0), dst.extent(1));
    Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        h(host.data(), dst.extent(0), dst.extent(1));
    Kokkos::deep_copy(tmp, h);
    copy_elementwise<Exec>(dst, tmp);
  }
}

/// A device View of any layout into host data (row-major).
template <class Exec, class View>
std::vector<typename View::non_const_value_type> download(const View& src) {
  using T = typename View::non_const_value_type;
  std::vector<T> host(src.size());
  if constexpr (View::rank == 3) {
    Kokkos::View<T***, Kokkos::LayoutRight, DeviceMemory<Exec>> tmp(
        Kokkos::view_alloc("download", Kokkos::WithoutInitializing), src.extent(0), src.extent(1),
        src.extent(2));
    copy_elementwise<Exec>(tmp, src);
    Kokkos::View<T***, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        h(host.data(), src.extent(0), src.extent(1), src.extent(2));
    Kokkos::deep_copy(h, tmp);
  } else {
    Kokkos::View<T**, Kokkos::LayoutRight, DeviceMemory<Exec>> tmp(
        Kokkos::view_alloc("download", Kokkos::WithoutInitializing), src.extent(0), src.extent(1));
    copy_elementwise<Exec>(tmp, src);
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        h(host.data(), src.extent(0), src.extent(1));
    Kokkos::deep_copy(h, tmp);
  }
  return host;
}

// ---------------------------------------------------------------------------------------------
// Host problems.

/// How a problem's LSEs are drawn.
struct LseRecipe {
  double lo = -8.0;  // finite LSEs uniform in [lo, hi] ...
  double hi = 8.0;
  double plus_inf_fraction = 0.0;  // ... except these fractions, per side
  double minus_inf_fraction = 0.0;
  double nan_fraction = 0.0;
};

template <class T>
struct HostProblem {
  std::int64_t tokens = 0, heads = 0, head_size = 0;
  std::vector<T> prefix, suffix;              // [t][h][d]
  std::vector<float> prefix_lse, suffix_lse;  // [h][t]

  std::int64_t out_index(std::int64_t t, std::int64_t h, std::int64_t d) const {
    return (t * heads + h) * head_size + d;
  }
  std::int64_t lse_index(std::int64_t h, std::int64_t t) const { return h * tokens + t; }
};

inline float draw_lse(std::mt19937_64& rng, const LseRecipe& r) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double x = u(rng);
  if (x < r.plus_inf_fraction) return std::numeric_limits<float>::infinity();
  if (x < r.plus_inf_fraction + r.minus_inf_fraction)
    return -std::numeric_limits<float>::infinity();
  if (x < r.plus_inf_fraction + r.minus_inf_fraction + r.nan_fraction)
    return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(r.lo + (r.hi - r.lo) * u(rng));
}

/// Random outputs in [-2, 2] (never all zeros) and LSEs drawn from `recipe`, deterministic in seed.
template <class T>
HostProblem<T> make_problem(std::int64_t tokens, std::int64_t heads, std::int64_t head_size,
                            std::uint64_t seed, const LseRecipe& recipe = LseRecipe{}) {
  HostProblem<T> p;
  p.tokens = tokens;
  p.heads = heads;
  p.head_size = head_size;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const std::size_t n = static_cast<std::size_t>(tokens * heads * head_size);
  p.prefix.resize(n);
  p.suffix.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.prefix[i] = from_double<T>(u(rng));
    p.suffix[i] = from_double<T>(u(rng));
  }
  p.prefix_lse.resize(static_cast<std::size_t>(heads * tokens));
  p.suffix_lse.resize(p.prefix_lse.size());
  for (std::size_t i = 0; i < p.prefix_lse.size(); ++i) {
    p.prefix_lse[i] = draw_lse(rng, recipe);
    p.suffix_lse[i] = draw_lse(rng, recipe);
  }
  return p;
}

/// The merge's result as host data.
template <class T>
struct HostResult {
  std::vector<T> output;
  std::vector<float> output_lse;  // empty when the merge had no output_lse
};

// ---------------------------------------------------------------------------------------------
// Running the merge on a backend.

enum class Alias { none, output_is_prefix, output_is_suffix };

struct RunOptions {
  Layout layout = Layout::right;
  bool with_output_lse = true;
  Alias alias = Alias::none;
  bool lse_in_place_prefix = false;  // output_lse is prefix_lse
  bool lse_in_place_suffix = false;  // output_lse is suffix_lse
  bool const_inputs = true;          // pass the inputs as Views of const values
};

inline std::string describe(const RunOptions& o) {
  std::ostringstream s;
  s << layout_name(o.layout) << (o.with_output_lse ? ", with output_lse" : ", no output_lse");
  if (o.alias == Alias::output_is_prefix) s << ", output==prefix_output";
  if (o.alias == Alias::output_is_suffix) s << ", output==suffix_output";
  if (o.lse_in_place_prefix) s << ", output_lse==prefix_lse";
  if (o.lse_in_place_suffix) s << ", output_lse==suffix_lse";
  return s.str();
}

/// Uploads `p`, poisons the output with NaN (and the LSE with NaN), merges on `Exec`, downloads.
template <class Exec, class T>
HostResult<T> run_merge(const HostProblem<T>& p, const RunOptions& o) {
  HostResult<T> result;
  with_layout(o.layout, [&](auto layout_tag) {
    using KL = decltype(layout_tag);
    auto prefix = make_output_view<T, KL, Exec>("prefix", p.tokens, p.heads, p.head_size);
    auto suffix = make_output_view<T, KL, Exec>("suffix", p.tokens, p.heads, p.head_size);
    auto plse = make_lse_view<float, KL, Exec>("prefix_lse", p.heads, p.tokens);
    auto slse = make_lse_view<float, KL, Exec>("suffix_lse", p.heads, p.tokens);
    upload<Exec>(prefix, p.prefix);
    upload<Exec>(suffix, p.suffix);
    upload<Exec>(plse, p.prefix_lse);
    upload<Exec>(slse, p.suffix_lse);

    auto output = o.alias == Alias::output_is_prefix ? prefix
                  : o.alias == Alias::output_is_suffix
                      ? suffix
                      : make_output_view<T, KL, Exec>("output", p.tokens, p.heads, p.head_size);
    if (o.alias == Alias::none)
      upload<Exec>(output, std::vector<T>(p.prefix.size(), from_double<T>(std::nan(""))));
    auto olse = o.lse_in_place_prefix ? plse
                : o.lse_in_place_suffix
                    ? slse
                    : make_lse_view<float, KL, Exec>("output_lse", p.heads, p.tokens);
    if (!o.lse_in_place_prefix && !o.lse_in_place_suffix)
      upload<Exec>(olse, std::vector<float>(p.prefix_lse.size(), std::nanf("")));

    using ConstView = Kokkos::View<const T***, KL, DeviceMemory<Exec>>;
    using ConstLse = Kokkos::View<const float**, KL, DeviceMemory<Exec>>;
    const Exec exec;
    if (o.const_inputs) {
      const ConstView cp = prefix, cs = suffix;
      const ConstLse cpl = plse, csl = slse;
      if (o.with_output_lse)
        MergeAttn::merge_attn_states(exec, output, cp, cpl, cs, csl, olse);
      else
        MergeAttn::merge_attn_states(exec, output, cp, cpl, cs, csl);
    } else {
      if (o.with_output_lse)
        MergeAttn::merge_attn_states(exec, output, prefix, plse, suffix, slse, olse);
      else
        MergeAttn::merge_attn_states(exec, output, prefix, plse, suffix, slse);
    }
    exec.fence();
    result.output = download<Exec>(output);
    if (o.with_output_lse) result.output_lse = download<Exec>(olse);
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The double-precision reference and the comparison.

enum class RefMode { weighted, copy_prefix, copy_suffix, zero, nan };

struct RefPair {
  RefMode mode;
  double wp, ws, lse;
};

inline RefPair reference_pair(float p_in, float s_in) {
  const double inf = std::numeric_limits<double>::infinity();
  double p = p_in, s = s_in;
  if (p == inf) p = -inf;
  if (s == inf) s = -inf;
  if (std::isnan(p) || std::isnan(s)) return {RefMode::nan, 0, 0, std::nan("")};
  if (p == -inf && s == -inf) return {RefMode::zero, 0, 0, -inf};
  if (s == -inf) return {RefMode::copy_prefix, 1, 0, p};
  if (p == -inf) return {RefMode::copy_suffix, 0, 1, s};
  const double m = std::max(p, s);
  const double ep = std::exp(p - m), es = std::exp(s - m);
  return {RefMode::weighted, ep / (ep + es), es / (ep + es), std::log(ep + es) + m};
}

/// Compares a result with the double reference of `p`. Returns the number of mismatches; reports
/// the first few through GoogleTest with `context`.
template <class T>
std::int64_t check_against_reference(const HostProblem<T>& p, const HostResult<T>& r,
                                     const std::string& context) {
  std::int64_t bad = 0;
  auto report = [&](const std::string& what) {
    if (++bad <= 5) ADD_FAILURE() << context << ": " << what;
  };
  for (std::int64_t t = 0; t < p.tokens; ++t) {
    for (std::int64_t h = 0; h < p.heads; ++h) {
      const RefPair ref =
          reference_pair(p.prefix_lse[p.lse_index(h, t)], p.suffix_lse[p.lse_index(h, t)]);
      for (std::int64_t d = 0; d < p.head_size; ++d) {
        const std::int64_t i = p.out_index(t, h, d);
        const T got = r.output[i];
        const double g = to_double(got);
        bool ok = true;
        double want = 0, tol = 0;
        switch (ref.mode) {
          case RefMode::copy_prefix:
            ok = same_bits(got, p.prefix[i]);
            want = to_double(p.prefix[i]);
            break;
          case RefMode::copy_suffix:
            ok = same_bits(got, p.suffix[i]);
            want = to_double(p.suffix[i]);
            break;
          case RefMode::zero:
            ok = g == 0.0 && !std::signbit(g);
            break;
          case RefMode::nan:
            ok = std::isnan(g);
            want = std::nan("");
            break;
          case RefMode::weighted: {
            const double x = to_double(p.prefix[i]), y = to_double(p.suffix[i]);
            want = ref.wp * x + ref.ws * y;
            tol = output_tolerance<T>(want, std::fabs(ref.wp * x) + std::fabs(ref.ws * y));
            ok = std::fabs(g - want) <= tol;
            break;
          }
        }
        if (!ok) {
          std::ostringstream s;
          s.precision(10);
          s << "output(" << t << "," << h << "," << d << ") = " << g << ", expected " << want
            << " (tolerance " << tol << ", LSEs " << p.prefix_lse[p.lse_index(h, t)] << ", "
            << p.suffix_lse[p.lse_index(h, t)] << ")";
          report(s.str());
        }
      }
      if (!r.output_lse.empty()) {
        const double g = r.output_lse[p.lse_index(h, t)];
        bool ok = true;
        switch (ref.mode) {
          case RefMode::copy_prefix:
            ok = g == static_cast<double>(p.prefix_lse[p.lse_index(h, t)]);
            break;
          case RefMode::copy_suffix:
            ok = g == static_cast<double>(p.suffix_lse[p.lse_index(h, t)]);
            break;
          case RefMode::zero:
            ok = g == -std::numeric_limits<double>::infinity();
            break;
          case RefMode::nan:
            ok = std::isnan(g);
            break;
          case RefMode::weighted:
            ok = std::fabs(g - ref.lse) <= lse_tolerance<float>(ref.lse);
            break;
        }
        if (!ok) {
          std::ostringstream s;
          s.precision(10);
          s << "output_lse(" << h << "," << t << ") = " << g << ", expected " << ref.lse
            << " (LSEs " << p.prefix_lse[p.lse_index(h, t)] << ", "
            << p.suffix_lse[p.lse_index(h, t)] << ")";
          report(s.str());
        }
      }
    }
  }
  if (bad > 5) ADD_FAILURE() << context << ": " << bad << " mismatches in all";
  return bad;
}

/// Compares two backends' results on the same problem: the same NaN pattern, bit-identical where
/// the reference copies or fills, and within twice the reference tolerance elsewhere.
template <class T>
std::int64_t check_backends_agree(const HostProblem<T>& p, const HostResult<T>& a,
                                  const HostResult<T>& b, const std::string& context) {
  std::int64_t bad = 0;
  for (std::int64_t t = 0; t < p.tokens; ++t) {
    for (std::int64_t h = 0; h < p.heads; ++h) {
      const RefPair ref =
          reference_pair(p.prefix_lse[p.lse_index(h, t)], p.suffix_lse[p.lse_index(h, t)]);
      for (std::int64_t d = 0; d < p.head_size; ++d) {
        const std::int64_t i = p.out_index(t, h, d);
        const double x = to_double(a.output[i]), y = to_double(b.output[i]);
        bool ok;
        if (ref.mode == RefMode::weighted) {
          const double mag = std::fabs(ref.wp * to_double(p.prefix[i])) +
                             std::fabs(ref.ws * to_double(p.suffix[i]));
          ok = std::fabs(x - y) <= 2.0 * output_tolerance<T>(x, mag);
        } else {
          ok = same_bits(a.output[i], b.output[i]) || (std::isnan(x) && std::isnan(y));
        }
        if (!ok && ++bad <= 5)
          ADD_FAILURE() << context << ": output(" << t << "," << h << "," << d << ") differs: " << x
                        << " vs " << y;
      }
      if (!a.output_lse.empty()) {
        const double x = a.output_lse[p.lse_index(h, t)], y = b.output_lse[p.lse_index(h, t)];
        const bool ok = x == y || (std::isnan(x) && std::isnan(y)) ||
                        std::fabs(x - y) <= 2.0 * lse_tolerance<float>(x);
        if (!ok && ++bad <= 5)
          ADD_FAILURE() << context << ": output_lse(" << h << "," << t << ") differs: " << x
                        << " vs " << y;
      }
    }
  }
  return bad;
}

/// Calls f(T{}) for each value type.
template <class F>
void for_each_value_type(F&& f) {
  f(float{});
  f(double{});
  f(MergeAttn::half_t{});
  f(MergeAttn::bfloat16_t{});
}

}  // namespace MergeAttnTest

#endif  // MERGEATTN_TEST_UTILS_HPP
