// MergeAttn::Impl: the 2-way merge kernel. One functor for every value type, layout and backend:
// a TeamPolicy over (token, head) pairs, each team thread owning one pair and computing its weights
// once, its vector lanes moving the head dimension in 16-byte packs (fast path: unit stride,
// aligned rows) or element by element through the Views (general path, any layout).
#ifndef MERGEATTN_IMPL_MERGEKERNEL_HPP
#define MERGEATTN_IMPL_MERGEKERNEL_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/impl/MergeAttn_ValueTraits.hpp>
#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace MergeAttn {
namespace Impl {

/// Stands in for the optional output_lse argument when it is not given.
struct NoOutputLse {};

/// What a (token, head) pair's output is made of.
enum class PairMode : int {
  weighted,     // wp * prefix + ws * suffix
  copy_prefix,  // suffix empty: prefix bit for bit, suffix not read
  copy_suffix,  // prefix empty: suffix bit for bit, prefix not read
  fill          // both empty (0) or a NaN LSE (NaN): neither side read
};

/// The bytes the fast path moves per load and store.
constexpr int pack_bytes = 16;

template <class ExecSpace, class OutputView, class PrefixView, class PrefixLseView,
          class SuffixView, class SuffixLseView, class OutputLseView, bool UsePacks>
class MergeStatesFunctor {
 public:
  using value_type = std::remove_cv_t<typename OutputView::value_type>;
  using traits = ValueTraits<value_type>;
  using compute_type = typename traits::compute_type;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr bool has_output_lse = !std::is_same<OutputLseView, NoOutputLse>::value;
  static constexpr int pack_size = pack_bytes / static_cast<int>(sizeof(value_type));
  static constexpr bool host_space =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

  struct alignas(pack_bytes) Pack {
    value_type v[pack_size];
  };

  MergeStatesFunctor(const OutputView& output, const PrefixView& prefix_output,
                     const PrefixLseView& prefix_lse, const SuffixView& suffix_output,
                     const SuffixLseView& suffix_lse, const OutputLseView& output_lse)
      : m_output(output),
        m_prefix(prefix_output),
        m_prefix_lse(prefix_lse),
        m_suffix(suffix_output),
        m_suffix_lse(suffix_lse),
        m_output_lse(output_lse),
        m_num_heads(static_cast<std::int64_t>(output.extent(1))),
        m_num_pairs(static_cast<std::int64_t>(output.extent(0)) *
                    static_cast<std::int64_t>(output.extent(1))),
        m_head_size(static_cast<int>(output.extent(2))),
        m_num_packs(UsePacks ? m_head_size / pack_size : 0),
        m_vector_iters(UsePacks ? m_num_packs + (m_head_size - m_num_packs * pack_size)
                                : m_head_size),
        m_pairs_fit_32_bits(m_num_pairs <= (std::int64_t(1) << 30)) {}

  /// Work items per pair for the vector lanes: packs plus tail elements, or elements.
  int vector_iterations() const { return m_vector_iters; }
  std::int64_t num_pairs() const { return m_num_pairs; }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t step =
        static_cast<std::int64_t>(team.league_size()) * static_cast<std::int64_t>(team.team_size());
    for (std::int64_t pair =
             static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
         pair < m_num_pairs; pair += step) {
      merge_pair(team, pair);
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t pair) const {
    // Token-major pairs: consecutive team threads own consecutive rows of the outputs (measured
    // faster on the H200 than head-major order, whose LSE reads coalesce but rows scatter).
    // 32-bit division when the pair index fits: a 64-bit one costs tens of GPU instructions.
    const std::int64_t t = m_pairs_fit_32_bits
                               ? static_cast<std::int64_t>(static_cast<std::uint32_t>(pair) /
                                                           static_cast<std::uint32_t>(m_num_heads))
                               : pair / m_num_heads;
    const std::int64_t h = pair - t * m_num_heads;

    // Every vector lane reads both LSEs before any lane writes (output_lse may be an input):
    // the lanes meet at the end of the vector loop below before the single write.
    const compute_type inf = infinity<compute_type>();
    compute_type p = static_cast<compute_type>(m_prefix_lse(h, t));
    compute_type s = static_cast<compute_type>(m_suffix_lse(h, t));
    if (p == inf) p = -inf;  // +inf marks an empty split (FlashAttention-2)
    if (s == inf) s = -inf;

    PairMode mode = PairMode::weighted;
    compute_type wp = 0, ws = 0, fill = 0, lse;
    if (Impl::isnan(p) || Impl::isnan(s)) {
      mode = PairMode::fill;
      fill = quiet_nan<compute_type>();
      lse = fill;
    } else if (p == -inf && s == -inf) {
      mode = PairMode::fill;
      lse = -inf;
    } else if (s == -inf) {
      mode = PairMode::copy_prefix;
      lse = p;
    } else if (p == -inf) {
      mode = PairMode::copy_suffix;
      lse = s;
    } else {
      const compute_type m = p > s ? p : s;
      const compute_type ep = Impl::exp(p - m);
      const compute_type es = Impl::exp(s - m);
      const compute_type sum = ep + es;  // in [1, 2]: no overflow, no division by zero
      wp = ep / sum;
      ws = es / sum;
      lse = Impl::log(sum) + m;
    }

    switch (mode) {  // uniform per pair: one branch, then a tight vector loop
      case PairMode::weighted:
        merge_row<PairMode::weighted>(team, t, h, wp, ws, fill);
        break;
      case PairMode::copy_prefix:
        merge_row<PairMode::copy_prefix>(team, t, h, wp, ws, fill);
        break;
      case PairMode::copy_suffix:
        merge_row<PairMode::copy_suffix>(team, t, h, wp, ws, fill);
        break;
      case PairMode::fill:
        merge_row<PairMode::fill>(team, t, h, wp, ws, fill);
        break;
    }

    if constexpr (has_output_lse) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        m_output_lse(h, t) = static_cast<typename OutputLseView::non_const_value_type>(lse);
      });
    }
  }

  // The vector lanes of the team thread move the row: on GPUs iteration i < m_num_packs moves
  // pack i (consecutive lanes, consecutive packs), then the tail elements; general path: one
  // element per iteration. Hosts: one SIMD loop over the contiguous row.
  template <PairMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_row(const member_type& team, const std::int64_t t,
                                        const std::int64_t h, const compute_type wp,
                                        const compute_type ws, const compute_type fill) const {
    if constexpr (host_space && UsePacks) {
      if (m_head_size > 0)
        merge_contiguous_row<Mode>(&m_output(t, h, 0), &m_prefix(t, h, 0), &m_suffix(t, h, 0), wp,
                                   ws, fill);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode>(t, h, i, wp, ws, fill);
        } else {
          const int d = UsePacks ? m_num_packs * pack_size + (i - m_num_packs) : i;
          merge_element<Mode>(t, h, d, wp, ws, fill);
        }
      });
    }
  }

  // Element d is read before it is written, so vectorising is safe with out == pre or suf.
  template <PairMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_contiguous_row(value_type* out, const value_type* pre,
                                                   const value_type* suf, const compute_type wp,
                                                   const compute_type ws,
                                                   const compute_type fill) const {
    const int n = m_head_size;
    if constexpr (Mode == PairMode::weighted) {
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#pragma omp simd
#endif
      for (int d = 0; d < n; ++d)
        traits::store(out[d], wp * traits::load(pre[d]) + ws * traits::load(suf[d]));
    } else if constexpr (Mode == PairMode::copy_prefix) {
      for (int d = 0; d < n; ++d) out[d] = pre[d];
    } else if constexpr (Mode == PairMode::copy_suffix) {
      for (int d = 0; d < n; ++d) out[d] = suf[d];
    } else {
      const value_type f = traits::from_compute(fill);
      for (int d = 0; d < n; ++d) out[d] = f;
    }
  }

  template <PairMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_element(const std::int64_t t, const std::int64_t h, const int d,
                                            const compute_type wp, const compute_type ws,
                                            const compute_type fill) const {
    if constexpr (Mode == PairMode::weighted) {
      m_output(t, h, d) = traits::from_compute(wp * traits::to_compute(m_prefix(t, h, d)) +
                                               ws * traits::to_compute(m_suffix(t, h, d)));
    } else if constexpr (Mode == PairMode::copy_prefix) {
      m_output(t, h, d) = m_prefix(t, h, d);
    } else if constexpr (Mode == PairMode::copy_suffix) {
      m_output(t, h, d) = m_suffix(t, h, d);
    } else {
      m_output(t, h, d) = traits::from_compute(fill);
    }
  }

  template <PairMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_pack(const std::int64_t t, const std::int64_t h, const int i,
                                         const compute_type wp, const compute_type ws,
                                         const compute_type fill) const {
    Pack* out = reinterpret_cast<Pack*>(&m_output(t, h, 0)) + i;
    if constexpr (Mode == PairMode::weighted) {
      const Pack x = reinterpret_cast<const Pack*>(&m_prefix(t, h, 0))[i];
      const Pack y = reinterpret_cast<const Pack*>(&m_suffix(t, h, 0))[i];
      Pack o;
      for (int k = 0; k < pack_size; ++k)
        traits::store(o.v[k], wp * traits::load(x.v[k]) + ws * traits::load(y.v[k]));
      *out = o;
    } else if constexpr (Mode == PairMode::copy_prefix) {
      *out = reinterpret_cast<const Pack*>(&m_prefix(t, h, 0))[i];
    } else if constexpr (Mode == PairMode::copy_suffix) {
      *out = reinterpret_cast<const Pack*>(&m_suffix(t, h, 0))[i];
    } else {
      Pack o;
      for (int k = 0; k < pack_size; ++k) traits::store(o.v[k], fill);
      *out = o;
    }
  }

  OutputView m_output;
  PrefixView m_prefix;
  PrefixLseView m_prefix_lse;
  SuffixView m_suffix;
  SuffixLseView m_suffix_lse;
  OutputLseView m_output_lse;
  std::int64_t m_num_heads;
  std::int64_t m_num_pairs;
  int m_head_size;
  int m_num_packs;
  int m_vector_iters;
  bool m_pairs_fit_32_bits;  // pair indices (and the grid-stride step) below 2^31
};

/// Team size and vector length for a backend: GPU-like spaces (memory not host accessible) get
/// vector lanes over the packs of a row and several pairs per team; host spaces one pair per team
/// with the row loop vectorised by the compiler.
struct LaunchShape {
  int team_size;
  int vector_length;
};

/// GPU mapping, from sweeps on the H200 (docs/perf/README.md): vector lanes over the 16-byte packs
/// of a row, each lane moving about 2 packs (16-bit types) or 4 (float, double), at least 8 lanes,
/// 128 threads per block, one (token, head) pair per team thread. Host spaces: one-thread teams.
template <class ExecSpace>
LaunchShape choose_launch_shape(const int value_size, const int vector_iters,
                                const std::int64_t num_pairs) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host_like) return {1, 1};
  const int per_lane = value_size >= 4 ? 4 : 2;
  // At least 8 lanes where the row has that many items: 4-lane teams measured 25 % slower.
  const int lanes_wanted =
      std::max((vector_iters + per_lane - 1) / per_lane, std::min(vector_iters, 8));
  int vector_length = 1;
  while (vector_length < lanes_wanted && vector_length < 32) vector_length *= 2;
  int team_size = 128 / vector_length;
  while (team_size > 1 && team_size / 2 >= num_pairs) team_size /= 2;
  return {team_size, vector_length};
}

template <bool UsePacks, class ExecSpace, class OutputView, class PrefixView, class PrefixLseView,
          class SuffixView, class SuffixLseView, class OutputLseView>
void launch_merge(const ExecSpace& exec, const OutputView& output, const PrefixView& prefix_output,
                  const PrefixLseView& prefix_lse, const SuffixView& suffix_output,
                  const SuffixLseView& suffix_lse, const OutputLseView& output_lse,
                  const LaunchShape* shape_override) {
  using functor_type = MergeStatesFunctor<ExecSpace, OutputView, PrefixView, PrefixLseView,
                                          SuffixView, SuffixLseView, OutputLseView, UsePacks>;
  const functor_type functor(output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                             output_lse);
  const LaunchShape shape = shape_override != nullptr
                                ? *shape_override
                                : choose_launch_shape<ExecSpace>(
                                      static_cast<int>(sizeof(typename functor_type::value_type)),
                                      functor.vector_iterations(), functor.num_pairs());
  // The league covers every pair once; beyond 2^30 teams the functor loops (64-bit pair index).
  const std::int64_t teams = (functor.num_pairs() + shape.team_size - 1) / shape.team_size;
  const int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));
  Kokkos::parallel_for(
      "MergeAttn::merge_attn_states",
      Kokkos::TeamPolicy<ExecSpace>(exec, league_size, shape.team_size, shape.vector_length),
      functor);
}

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_MERGEKERNEL_HPP
