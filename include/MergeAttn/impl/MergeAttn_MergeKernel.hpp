// MergeAttn::Impl: the 2-way merge kernel. One functor for every value type, layout and backend:
// a TeamPolicy over (token, head) pairs, each team thread owning one pair (or K pairs whose LSEs it
// loads together) and computing its weights once, its vector lanes moving the head dimension in
// 16-byte packs (fast path: unit stride, aligned rows) or element by element through the Views
// (general path, any layout).
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

/// Work tag: each team thread takes K pairs per step and loads their LSEs before any row.
template <int K>
struct PairsPerThread {};

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
        m_suffix(suffix_output),
        m_prefix_lse(prefix_lse),
        m_suffix_lse(suffix_lse),
        m_output_lse(output_lse),
        m_num_tokens(static_cast<std::int64_t>(output.extent(0))),
        m_num_heads(static_cast<std::int64_t>(output.extent(1))),
        m_head_size(static_cast<int>(output.extent(2))),
        m_num_packs(UsePacks ? m_head_size / pack_size : 0),
        m_vector_iters(UsePacks ? m_num_packs + (m_head_size - m_num_packs * pack_size)
                                : m_head_size) {
    set_tokens_per_group(1);
  }

  /// Work items per pair for the vector lanes: packs plus tail elements, or elements.
  int vector_iterations() const { return m_vector_iters; }
  std::int64_t num_tokens() const { return m_num_tokens; }
  std::int64_t num_pairs() const { return m_num_tokens * m_num_heads; }
  /// Pair slots the team threads walk (num_pairs() rounded up to whole token groups).
  std::int64_t num_slots() const { return m_num_slots; }

  /// Slot order: groups of G (a power of two) consecutive tokens of one head, then the heads, then
  /// the next G tokens. G = the team threads of one GPU warp, whose LSE loads and output_lse stores
  /// then share 32-byte sectors instead of touching one sector per pair; G = 1 is token-major.
  void set_prefetch_rows(const bool on) { m_prefetch_rows = on; }

  void set_tokens_per_group(const int g) {
    m_group_log2 = 0;
    while ((1 << (m_group_log2 + 1)) <= g) ++m_group_log2;
    const std::int64_t groups =
        (m_num_tokens + (std::int64_t(1) << m_group_log2) - 1) >> m_group_log2;
    m_num_slots = (groups * m_num_heads) << m_group_log2;
    m_slots_fit_32_bits = m_num_slots <= (std::int64_t(1) << 30);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const PairsPerThread<1>&, const member_type& team) const {
    pair_runs<1>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const PairsPerThread<2>&, const member_type& team) const {
    pair_runs<2>(team);
  }

 private:
  // Slot q -> (t, h); false for the slots past the last token of a partial group.
  KOKKOS_INLINE_FUNCTION bool slot_pair(const std::int64_t q, std::int64_t& t,
                                        std::int64_t& h) const {
    const std::int64_t j = q & ((std::int64_t(1) << m_group_log2) - 1);
    const std::int64_t r = q >> m_group_log2;  // group * num_heads + head
    // 32-bit division when the index fits: a 64-bit one costs tens of GPU instructions.
    const std::int64_t g = m_slots_fit_32_bits
                               ? static_cast<std::int64_t>(static_cast<std::uint32_t>(r) /
                                                           static_cast<std::uint32_t>(m_num_heads))
                               : r / m_num_heads;
    h = r - g * m_num_heads;
    t = (g << m_group_log2) + j;
    return t < m_num_tokens;
  }

  // Team thread r of team b takes slots (b * K + j) * team_size + r, j < K, then strides over the
  // league. The K LSE pairs are loaded before any row moves: K round trips in flight, not one.
  template <int K>
  KOKKOS_INLINE_FUNCTION void pair_runs(const member_type& team) const {
    const std::int64_t ts = team.team_size();
    const std::int64_t step = static_cast<std::int64_t>(team.league_size()) * ts * K;
    for (std::int64_t first =
             static_cast<std::int64_t>(team.league_rank()) * ts * K + team.team_rank();
         first < m_num_slots; first += step) {
      std::int64_t t[K], h[K];
      compute_type p[K], s[K];
      bool valid[K];
      for (int j = 0; j < K; ++j) {
        const std::int64_t q = first + j * ts;
        valid[j] = q < m_num_slots && slot_pair(q, t[j], h[j]);
        if (valid[j]) {
          p[j] = static_cast<compute_type>(m_prefix_lse(h[j], t[j]));
          s[j] = static_cast<compute_type>(m_suffix_lse(h[j], t[j]));
        }
      }
      // valid[j] depends on the team rank only: all vector lanes of the thread take the branch.
      if (m_prefetch_rows)
        for (int j = 0; j < K; ++j)
          if (valid[j]) prefetch_rows(team, t[j], h[j]);
      for (int j = 0; j < K; ++j)
        if (valid[j]) merge_pair(team, t[j], h[j], p[j], s[j]);
    }
  }

  // Latency-bound launches (few pairs): while the LSEs are on their way, ask L2 for the pair's two
  // rows (CUDA prefetch hints: no values reach registers, so an empty side's contents still never
  // matter), so the loads that follow the LSE-dependent branch wait on L2 instead of DRAM.
  KOKKOS_INLINE_FUNCTION void prefetch_rows(const member_type& team, const std::int64_t t,
                                            const std::int64_t h) const {
#if defined(__CUDA_ARCH__)
    if constexpr (UsePacks) {
      const std::uintptr_t bytes = std::uintptr_t(m_head_size) * sizeof(value_type);
      const std::uintptr_t pre = reinterpret_cast<std::uintptr_t>(&m_prefix(t, h, 0));
      const std::uintptr_t suf = reinterpret_cast<std::uintptr_t>(&m_suffix(t, h, 0));
      const int lines = static_cast<int>(((pre + bytes - 1) >> 7) - (pre >> 7) + 1);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, 2 * lines), [&](const int i) {
        const std::uintptr_t a = (i < lines ? pre : suf) + (std::uintptr_t(i % lines) << 7);
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
      });
    }
#else
    (void)team;
    (void)t;
    (void)h;
#endif
  }

  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,
                                         const std::int64_t h, compute_type p,
                                         compute_type s) const {
    // Every vector lane has read both LSEs before any lane writes (output_lse may be an input):
    // the lanes meet at the end of the vector loop below before the single write.
    const compute_type inf = infinity<compute_type>();
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
      // The larger LSE's term is e^0 = 1: one exponential, e = e^(min - max) in [0, 1].
      const bool p_larger = p > s;
      const compute_type m = p_larger ? p : s;
      const compute_type e = Impl::exp(p_larger ? s - p : p - s);
      const compute_type w_max = compute_type(1) / (compute_type(1) + e);
      const compute_type w_min = e * w_max;
      wp = p_larger ? w_max : w_min;
      ws = p_larger ? w_min : w_max;
      lse = m + Impl::log1p(e);
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
  SuffixView m_suffix;
  PrefixLseView m_prefix_lse;
  SuffixLseView m_suffix_lse;
  OutputLseView m_output_lse;
  std::int64_t m_num_tokens;
  std::int64_t m_num_heads;
  int m_head_size;
  int m_num_packs;
  int m_vector_iters;
  int m_group_log2 = 0;
  std::int64_t m_num_slots = 0;
  bool m_slots_fit_32_bits = true;  // slot indices (and the grid-stride step) below 2^31
  bool m_prefetch_rows = false;
};

/// How a launch maps pairs onto the hardware. GPU-like spaces (memory not host accessible): vector
/// lanes over the packs of a row, several pairs per team, token groups of one warp's team threads;
/// host spaces: one pair per one-thread team, the row loop vectorised by the compiler.
struct LaunchShape {
  int team_size;
  int vector_length;
  int tokens_per_group = 1;    // consecutive tokens of one head on consecutive team threads
  int pairs_per_thread = 1;    // pairs whose LSEs a team thread loads together: 1 or 2
  bool prefetch_rows = false;  // CUDA: L2 prefetch of both rows while the LSEs load
};

/// GPU mapping, from sweeps and profiles on the H200 (docs/perf/README.md): vector lanes over the
/// 16-byte packs of a row, each lane moving about 2 packs (16-bit types) or 4 (float, double), at
/// least 8 lanes, 128 threads per block; token groups as wide as the team threads of a warp (LSE
/// sectors shared: the profile showed L2, not DRAM, as the limit); for large launches two pairs per
/// thread or an L2 prefetch of the rows, by the work per lane.
template <class ExecSpace>
LaunchShape choose_launch_shape(const int value_size, const int vector_iters,
                                const std::int64_t num_tokens, const std::int64_t num_heads) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host_like) return {1, 1, 1, 1};
  const int per_lane = value_size >= 4 ? 4 : 2;
  // At least 8 lanes where the row has that many items: 4-lane teams measured 25 % slower.
  const int lanes_wanted =
      std::max((vector_iters + per_lane - 1) / per_lane, std::min(vector_iters, 8));
  LaunchShape shape{128, 1, 1, 1};
  while (shape.vector_length < lanes_wanted && shape.vector_length < 32) shape.vector_length *= 2;
  shape.team_size = 128 / shape.vector_length;
  const int warp_threads = 32 / shape.vector_length;
  while (shape.tokens_per_group < warp_threads && 2 * shape.tokens_per_group <= num_tokens)
    shape.tokens_per_group *= 2;
  const std::int64_t num_pairs = num_tokens * num_heads;
  while (shape.team_size > 1 && shape.team_size / 2 >= num_pairs) shape.team_size /= 2;
  // Enough pairs to fill the GPU (the sweeps' large shapes): one item per lane -> two pairs per
  // thread (bf16 65536x32x64: 70 -> 73 % of copy); two or three items per lane -> L2 prefetch of
  // the rows (bf16 65536x32x128: 92 -> 98 %, x576: 93 -> 102 %, float x64: 94 -> 100 %); four or
  // more items per lane hide the latency themselves (prefetch measured 5-7 % slower there).
  const int items_per_lane = (vector_iters + shape.vector_length - 1) / shape.vector_length;
  if (num_pairs >= (std::int64_t(1) << 17)) {
    if (items_per_lane <= 1)
      shape.pairs_per_thread = 2;
    else if (items_per_lane <= 3)
      shape.prefetch_rows = true;
  }
  return shape;
}

template <bool UsePacks, class ExecSpace, class OutputView, class PrefixView, class PrefixLseView,
          class SuffixView, class SuffixLseView, class OutputLseView>
void launch_merge(const ExecSpace& exec, const OutputView& output, const PrefixView& prefix_output,
                  const PrefixLseView& prefix_lse, const SuffixView& suffix_output,
                  const SuffixLseView& suffix_lse, const OutputLseView& output_lse,
                  const LaunchShape* shape_override) {
  using functor_type = MergeStatesFunctor<ExecSpace, OutputView, PrefixView, PrefixLseView,
                                          SuffixView, SuffixLseView, OutputLseView, UsePacks>;
  functor_type functor(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse);
  const LaunchShape shape = shape_override != nullptr
                                ? *shape_override
                                : choose_launch_shape<ExecSpace>(
                                      static_cast<int>(sizeof(typename functor_type::value_type)),
                                      functor.vector_iterations(), functor.num_tokens(),
                                      static_cast<std::int64_t>(output.extent(1)));
  functor.set_tokens_per_group(shape.tokens_per_group);
  functor.set_prefetch_rows(shape.prefetch_rows);
  // The league covers every slot once; beyond 2^30 teams the functor loops (64-bit index).
  const int k = shape.pairs_per_thread == 2 ? 2 : 1;
  const std::int64_t per_team = std::int64_t(shape.team_size) * k;
  const std::int64_t teams = (functor.num_slots() + per_team - 1) / per_team;
  const int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));
  if (k == 2) {
    Kokkos::parallel_for("MergeAttn::merge_attn_states",
                         Kokkos::TeamPolicy<ExecSpace, PairsPerThread<2>>(
                             exec, league_size, shape.team_size, shape.vector_length),
                         functor);
  } else {
    Kokkos::parallel_for("MergeAttn::merge_attn_states",
                         Kokkos::TeamPolicy<ExecSpace, PairsPerThread<1>>(
                             exec, league_size, shape.team_size, shape.vector_length),
                         functor);
  }
}

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_MERGEKERNEL_HPP
