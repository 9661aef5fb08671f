// MergeAttn::Impl: the merge kernel. One functor for every value type, layout, backend and form of
// the merge (2-way, masked 2-way, N-way, variable length): a TeamPolicy over (token, head) pairs,
// each team thread owning one pair (or K pairs whose LSEs it loads together) and computing its
// weights once, its vector lanes moving the head dimension in 16-byte packs (fast path: unit
// stride, aligned rows) or element by element through the Views (general path, any layout). The
// forms differ only in where a pair's states come from: a States policy (TwoStates, StackedStates,
// VarlenStates) says how many there are and where their LSEs and rows are.
#ifndef MERGEATTN_IMPL_MERGEKERNEL_HPP
#define MERGEATTN_IMPL_MERGEKERNEL_HPP

#include <Kokkos_Core.hpp>
#include <MergeAttn/impl/MergeAttn_HostRows.hpp>
#include <MergeAttn/impl/MergeAttn_PlannedLaunch.hpp>
#include <MergeAttn/impl/MergeAttn_ValueTraits.hpp>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace MergeAttn {
namespace Impl {

/// Stands in for the optional output_lse argument when it is not given.
struct NoOutputLse {};
/// Stands in for the mask of the masked 2-way merge when there is none.
struct NoMask {};

/// How LSE Views are indexed and in which base their values are.
struct LseConvention {
  bool tokens_heads = false;  // [num_tokens][num_heads] instead of [num_heads][num_tokens]
  bool base2 = false;         // log2-sum-exp2 instead of natural log-sum-exp
  bool is_default() const { return !tokens_heads && !base2; }
};

/// The kernel's LSE convention: read at run time (uniform branches)... The layout of output_lse is
/// a flag of its own (the same value): one flag for the inputs and the output kept a register live
/// through each pair and cost the float N-way kernel 2 registers (74 instead of 72: 37.5 % instead
/// of 43.75 % occupancy, 88 -> 83 % of copy on the H200).
struct RuntimeLse {
  bool m_tokens_heads;
  bool m_base2;
  bool m_output_tokens_heads;
  explicit RuntimeLse(const LseConvention& c)
      : m_tokens_heads(c.tokens_heads), m_base2(c.base2), m_output_tokens_heads(c.tokens_heads) {}
  KOKKOS_INLINE_FUNCTION bool tokens_heads() const { return m_tokens_heads; }
  KOKKOS_INLINE_FUNCTION bool output_tokens_heads() const { return m_output_tokens_heads; }
  KOKKOS_INLINE_FUNCTION bool base2() const { return m_base2; }
};

/// ... or the defaults (natural log, [heads][tokens]) as compile-time constants: the 2-way fast
/// path on GPUs takes this instantiation for default options (the run-time flags cost an
/// exponential in both bases and a flag load per pair: bf16 65536x32x64 on the H200 70 -> 73 %
/// of copy, x128 98.6 -> 100.5 %).
struct DefaultLse {
  explicit DefaultLse(const LseConvention&) {}
  static KOKKOS_INLINE_FUNCTION constexpr bool tokens_heads() { return false; }
  static KOKKOS_INLINE_FUNCTION constexpr bool output_tokens_heads() { return false; }
  static KOKKOS_INLINE_FUNCTION constexpr bool base2() { return false; }
};

template <class LseView>
KOKKOS_FORCEINLINE_FUNCTION typename LseView::reference_type lse_ref(const LseView& v,
                                                                     const bool tokens_heads,
                                                                     const std::int64_t t,
                                                                     const std::int64_t h) {
  return tokens_heads ? v(t, h) : v(h, t);
}

// ---------------------------------------------------------------------------------------------
// Where a pair's states come from. Every policy provides value_type, fixed_count (> 0: the same
// number of states for every token, known at compile time; 0: per token), first(t) and count(t)
// (states first(t) .. first(t) + count(t) - 1; a negative count marks malformed offsets),
// uniform_count() (on the host: the states of every token, 0 when it varies), mean_count() (on the
// host: the states per token on average, rounded down), active(t), and for a
// state index i: lse(i, t, h, tokens_heads) (in the layout the flag says), row(i, t, h) (the
// contiguous row, fast path only) and value(i, t, h, d).

/// The 2-way merge: state 0 is the prefix, state 1 the suffix; optionally a per-token mask.
template <class PrefixView, class PrefixLseView, class SuffixView, class SuffixLseView,
          class MaskView = NoMask>
struct TwoStates {
  using value_type = std::remove_cv_t<typename PrefixView::value_type>;
  static constexpr int fixed_count = 2;
  static constexpr bool has_mask = !std::is_same<MaskView, NoMask>::value;
  PrefixView prefix;
  PrefixLseView prefix_lse;
  SuffixView suffix;
  SuffixLseView suffix_lse;
  MaskView mask;

  KOKKOS_INLINE_FUNCTION std::int64_t first(std::int64_t) const { return 0; }
  KOKKOS_INLINE_FUNCTION std::int64_t count(std::int64_t) const { return 2; }
  std::int64_t uniform_count() const { return 2; }
  std::int64_t mean_count() const { return uniform_count(); }
  KOKKOS_INLINE_FUNCTION bool active(const std::int64_t t) const {
    if constexpr (has_mask) {
      return mask(t) != 0;
    } else {
      (void)t;
      return true;
    }
  }
  template <class C>
  KOKKOS_INLINE_FUNCTION C lse(const std::int64_t i, const std::int64_t t, const std::int64_t h,
                               const bool tokens_heads) const {
    return i == 0 ? static_cast<C>(lse_ref(prefix_lse, tokens_heads, t, h))
                  : static_cast<C>(lse_ref(suffix_lse, tokens_heads, t, h));
  }
  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return i == 0 ? &prefix(t, h, 0) : &suffix(t, h, 0);
  }
  KOKKOS_INLINE_FUNCTION value_type value(const std::int64_t i, const std::int64_t t,
                                          const std::int64_t h, const int d) const {
    return i == 0 ? prefix(t, h, d) : suffix(t, h, d);
  }
};

/// The N-way merge: states [num_states][num_tokens][num_heads][head_size], LSEs
/// [num_states][num_heads][num_tokens] (or [num_states][num_tokens][num_heads]).
template <class StatesView, class StatesLseView>
struct StackedStates {
  using value_type = std::remove_cv_t<typename StatesView::value_type>;
  static constexpr int fixed_count = 0;
  // merge_pack's last batch of a pair's states: whole batches, then one state at a time (session
  // 38: the partial batch below was not shown to help the N-way kernels, where every pair has the
  // same count, and may have cost the float ones 1-2.5 points of copy at 4 and 8 states).
  static constexpr bool partial_batches = false;
  StatesView states;
  StatesLseView states_lse;

  KOKKOS_INLINE_FUNCTION std::int64_t first(std::int64_t) const { return 0; }
  KOKKOS_INLINE_FUNCTION std::int64_t count(std::int64_t) const {
    return static_cast<std::int64_t>(states.extent(0));
  }
  std::int64_t uniform_count() const { return static_cast<std::int64_t>(states.extent(0)); }
  std::int64_t mean_count() const { return uniform_count(); }
  KOKKOS_INLINE_FUNCTION bool active(std::int64_t) const { return true; }
  template <class C>
  KOKKOS_INLINE_FUNCTION C lse(const std::int64_t i, const std::int64_t t, const std::int64_t h,
                               const bool tokens_heads) const {
    return static_cast<C>(tokens_heads ? states_lse(i, t, h) : states_lse(i, h, t));
  }
  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, const std::int64_t t,
                                               const std::int64_t h) const {
    return &states(i, t, h, 0);
  }
  // Elements from a state's row to the next state's row of the same pair.
  KOKKOS_INLINE_FUNCTION std::int64_t state_stride() const {
    return static_cast<std::int64_t>(states.stride(0));
  }
  KOKKOS_INLINE_FUNCTION value_type value(const std::int64_t i, const std::int64_t t,
                                          const std::int64_t h, const int d) const {
    return states(i, t, h, d);
  }
};

/// The variable-length merge: token t owns packed states indptr(t) .. indptr(t + 1) - 1 of
/// [total_states][num_heads][head_size], LSEs [num_heads][total_states] (or
/// [total_states][num_heads]).
template <class PackedView, class PackedLseView, class IndptrView>
struct VarlenStates {
  using value_type = std::remove_cv_t<typename PackedView::value_type>;
  static constexpr int fixed_count = 0;
  // merge_pack's last batch may be partial: its loads issued together (session 38, H100: ragged
  // counts 5-14 % faster, uniform 10 and 11 states 2-4 %).
  static constexpr bool partial_batches = true;
  PackedView states;
  PackedLseView states_lse;
  IndptrView indptr;

  KOKKOS_INLINE_FUNCTION std::int64_t first(const std::int64_t t) const {
    return static_cast<std::int64_t>(indptr(t));
  }
  // Offsets outside [0, total_states] or decreasing: -1, and the token's outputs become NaN.
  KOKKOS_INLINE_FUNCTION std::int64_t count(const std::int64_t t) const {
    const std::int64_t b = static_cast<std::int64_t>(indptr(t));
    const std::int64_t e = static_cast<std::int64_t>(indptr(t + 1));
    const std::int64_t total = static_cast<std::int64_t>(states.extent(0));
    return (b < 0 || e < b || e > total) ? -1 : e - b;
  }
  std::int64_t uniform_count() const { return 0; }
  // The packed states over the tokens: from the extents alone (no copy of the offsets to the host),
  // so states past the last token's offsets count too.
  std::int64_t mean_count() const {
    const std::int64_t tokens = static_cast<std::int64_t>(indptr.extent(0)) - 1;
    return tokens > 0 ? static_cast<std::int64_t>(states.extent(0)) / tokens : 0;
  }
  KOKKOS_INLINE_FUNCTION bool active(std::int64_t) const { return true; }
  template <class C>
  KOKKOS_INLINE_FUNCTION C lse(const std::int64_t i, std::int64_t, const std::int64_t h,
                               const bool tokens_heads) const {
    return static_cast<C>(tokens_heads ? states_lse(i, h) : states_lse(h, i));
  }
  KOKKOS_INLINE_FUNCTION const value_type* row(const std::int64_t i, std::int64_t,
                                               const std::int64_t h) const {
    return &states(i, h, 0);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t state_stride() const {
    return static_cast<std::int64_t>(states.stride(0));
  }
  KOKKOS_INLINE_FUNCTION value_type value(const std::int64_t i, std::int64_t, const std::int64_t h,
                                          const int d) const {
    return states(i, h, d);
  }
};

// ---------------------------------------------------------------------------------------------

/// What a (token, head) pair's output is made of.
enum class RowMode : int {
  weighted,  // sum over the non-empty states of w_i * state_i
  copy,      // exactly one non-empty state: that state bit for bit, the others not read
  fill       // no non-empty state (0) or a NaN LSE / malformed offsets (NaN): nothing read
};

/// The bytes the fast path moves per load and store.
constexpr int pack_bytes = 16;

/// Work tag: each team thread takes K pairs per step and loads their LSEs before any row. Prefetch
/// (N-state forms on GPU-like spaces, the 16-byte fast path): the row loop asks L2 for the pack of
/// the state row_prefetch_distance states ahead beside each load.
template <int K, bool Prefetch = false>
struct PairsPerThread {};
/// Work tag, GPU-like spaces: each team thread takes K consecutive tokens of one head per step; its
/// vector lanes compute the K pairs' weights (one pair per lane) into team scratch, then move the
/// K rows (two states: the loads of up to four pairs issued before any is used; N states: one pair
/// after the other). Batch (N states): the states whose row loads the row loop issues together (2:
/// the 16-bit form with the row prefetch and launch bounds of 8 teams, see nway_min_teams). Ring
/// (16-bit N states with the prefetch, CUDA sm_80+): the weighted rows through the state ring
/// (LaunchShape::state_ring), kernels of their own so that the others keep their registers.
template <int K, bool Prefetch = false, int Batch = 4, bool Ring = false>
struct LanePairs {};

template <class ExecSpace, class OutputView, class OutputLseView, class States, bool UsePacks,
          class Lse = RuntimeLse>
class MergeFunctor {
 public:
  using value_type = std::remove_cv_t<typename OutputView::value_type>;
  using traits = ValueTraits<value_type>;
  using compute_type = typename traits::compute_type;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr bool has_output_lse = !std::is_same<OutputLseView, NoOutputLse>::value;
  static constexpr int pack_size = pack_bytes / static_cast<int>(sizeof(value_type));
  static constexpr bool host_space =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  static constexpr int fixed = States::fixed_count;
  static_assert(fixed == 0 || fixed == 2,
                "MergeAttn::Impl::MergeFunctor: a States policy has 2 states or a per-token count");
  static constexpr int cached = fixed > 0 ? fixed : 1;  // LSEs and weights kept in registers
  // N-state forms on GPUs: each team thread keeps the LSEs and the weights of a pair's first
  // cache_states() states in team scratch (loaded and computed once, one state per vector lane)
  // instead of every lane reloading them and recomputing an exponential per state and pack; later
  // states are reloaded and recomputed, and their row loads wait on an LSE load first (H200,
  // 4096x32x128 S64 with 32 cached states: bf16 56 % of copy, float 68 %; with all 64: 73 and 84).
  // As many as the launch's states (any count when it varies per token), at most
  // max_cache_states: 1 KB per team thread (16 KB per team of 16 threads).
  static constexpr bool weight_cache = fixed == 0 && !host_space;
  // N states: Weights can hold the first cap states' LSEs (staged) and weights (cache): in team
  // scratch on GPU-like spaces (weight_cache), on the stack in the host runs (host_state_run);
  // cap = 0: every LSE loaded and every weight computed where it is used.
  static constexpr bool staged_weights = fixed == 0;
  // The N-state row prefetch's distance in states (PairsPerThread<1, true>, LanePairs<8, true>):
  // with batches of 4 states, 2 asks for the second half of this batch and the first half of the
  // next, 4 for the next batch (H200, 3 rounds, S 8-64, % of copy: float 2 ~ 4, S16 92.6 / 92.0,
  // S64 87.8 / 87.9; bf16 4 best: S8 85.1 against 80.6 at 8, S16 88.2 / 85.5, S64 84.0 / 82.0,
  // and 3-4 points above 2).
  static constexpr int row_prefetch_distance = sizeof(value_type) == 2 ? 4 : 2;
  static constexpr int max_cache_states = 512 / static_cast<int>(sizeof(compute_type));
  // The LanePairs<K> form's weight cache per pair (K of them per team thread; chosen for up to 16
  // states); with the state ring as many as the launch's states where fewer (lane_cache()): room
  // for the ring in shared memory.
  static constexpr int lane_cache_states = 32;
  using scratch_view =
      Kokkos::View<compute_type**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // The LanePairs<K> form keeps lane_pair_fields values per pair in team scratch.
  static constexpr int lane_pair_fields = 3;  // weight 0, weight 1, PairCode
  static constexpr bool lane_pairs = fixed == 2 && !host_space && UsePacks;
  // The N-state LanePairs<K> form keeps per pair the first lane_cache_states weights (lane_cache()
  // with the state ring) and m, inv, fill (compute type) and the RowMode and arg (64-bit).
  KOKKOS_INLINE_FUNCTION int lane_weight_fields(const bool ring) const {
    return lane_weights(ring) + 3;
  }
  // The weights per pair of that cache.
  KOKKOS_INLINE_FUNCTION int lane_weights(const bool ring) const {
    return ring ? m_lane_cache : lane_cache_states;
  }
  // The state ring (CUDA sm_80+, 16-bit LanePairs<8, true, B>; LaunchShape::state_ring): 16-byte
  // slots per vector lane in team scratch, 8 for batches of 2 states (narrow_state_batches: launch
  // bounds of 8 teams), 12 for batches of 4 (6 teams).
  static constexpr int ring_slots(const bool narrow_batches) { return narrow_batches ? 8 : 12; }
  using index_scratch_view =
      Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  /// Team scratch of a launch with `team_size` team threads, `lane_pairs_per_thread` > 0 for the
  /// LanePairs<K> form, `ring_slots` > 0 for its state ring (set_vector_length first: a slot per
  /// vector lane).
  std::size_t scratch_bytes(const int team_size, const int lane_pairs_per_thread,
                            const int ring_slots = 0) const {
    if (lane_pairs && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size, lane_pair_fields * lane_pairs_per_thread);
    if (weight_cache && lane_pairs_per_thread > 0)
      return scratch_view::shmem_size(team_size,
                                      lane_weight_fields(ring_slots > 0) * lane_pairs_per_thread) +
             index_scratch_view::shmem_size(team_size, 2 * lane_pairs_per_thread) +
             (ring_slots > 0 ? ring_bytes(team_size, ring_slots) + sizeof(Pack) : 0);  // + align
    return weight_cache ? scratch_view::shmem_size(team_size, 2 * m_cache_states) : 0;
  }
  /// The state ring: `slots` packs per vector lane of each team thread.
  KOKKOS_INLINE_FUNCTION std::size_t ring_bytes(const int team_size, const int slots) const {
    return std::size_t(team_size) * m_vector_length * slots * sizeof(Pack);
  }
  /// States whose LSEs and weights a team thread of the other N-state forms keeps in team scratch.
  int cache_states() const { return m_cache_states; }
  /// States whose weights the LanePairs<K> form with the state ring keeps per pair in team scratch.
  int lane_cache() const { return m_lane_cache; }

  struct alignas(pack_bytes) Pack {
    value_type v[pack_size];
  };

  MergeFunctor(const OutputView& output, const OutputLseView& output_lse, const States& states,
               const LseConvention& conv)
      : m_output(output),
        m_output_lse(output_lse),
        m_states(states),
        m_num_tokens(static_cast<std::int64_t>(output.extent(0))),
        m_num_heads(static_cast<std::int64_t>(output.extent(1))),
        m_head_size(static_cast<int>(output.extent(2))),
        m_num_packs(UsePacks ? m_head_size / pack_size : 0),
        m_vector_iters(UsePacks ? m_num_packs + (m_head_size - m_num_packs * pack_size)
                                : m_head_size),
        m_lse(conv) {
    if constexpr (host_space) m_row_isa = host_row_isa();
    if constexpr (weight_cache) {
      const std::int64_t s = states.uniform_count();
      m_cache_states = s > 0 && s < max_cache_states ? static_cast<int>(s) : max_cache_states;
      m_lane_cache = s > 0 && s < lane_cache_states ? static_cast<int>(s) : lane_cache_states;
    }
    set_tokens_per_group(1);
  }

  /// Work items per pair for the vector lanes: packs plus tail elements, or elements.
  int vector_iterations() const { return m_vector_iters; }
  /// Whole packs per row (fast path).
  int num_packs() const { return m_num_packs; }
  std::int64_t num_tokens() const { return m_num_tokens; }
  std::int64_t num_pairs() const { return m_num_tokens * m_num_heads; }
  /// Pair slots the team threads walk (num_pairs() rounded up to whole token groups).
  std::int64_t num_slots() const { return m_num_slots; }

  void set_prefetch_rows(const bool on) { m_prefetch_rows = on && fixed > 0; }
  /// The launch's vector length (the stride of a vector lane's pack iterations).
  void set_vector_length(const int lanes) { m_vector_length = lanes; }

  /// Host spaces, one pair per step (PairsPerThread<1>): each team thread takes host_span
  /// consecutive slots.
  static constexpr int host_span = 64;
  /// Slots one team covers per league step with `pairs_per_thread` pairs per step (PairsPerThread
  /// or LanePairs).
  static std::int64_t slots_per_team(const int team_size, const int pairs_per_thread) {
    return std::int64_t(team_size) *
           (host_space && pairs_per_thread == 1 ? host_span : pairs_per_thread);
  }

  /// Slot order: groups of G (a power of two) consecutive tokens of one head, then the heads, then
  /// the next G tokens. G = the team threads of one GPU warp, whose LSE loads and output_lse stores
  /// then share 32-byte sectors instead of touching one sector per pair; G = 1 is token-major.
  void set_tokens_per_group(const int g) {
    m_group_log2 = 0;
    while ((1 << (m_group_log2 + 1)) <= g) ++m_group_log2;
    const std::int64_t groups =
        (m_num_tokens + (std::int64_t(1) << m_group_log2) - 1) >> m_group_log2;
    m_num_slots = (groups * m_num_heads) << m_group_log2;
    m_slots_fit_32_bits = m_num_slots <= (std::int64_t(1) << 30);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const PairsPerThread<1>&, const member_type& team) const {
    if constexpr (host_space)
      host_runs(team);
    else
      pair_runs<1>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const PairsPerThread<2>&, const member_type& team) const {
    pair_runs<2>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<4>&, const member_type& team) const {
    if constexpr (weight_cache)
      lane_weight_runs<4>(team);
    else
      lane_pair_runs<4>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8>&, const member_type& team) const {
    if constexpr (weight_cache)
      lane_weight_runs<8>(team);
    else
      lane_pair_runs<8>(team);
  }
  // The N-state forms with the row prefetch (launched for weight_cache functors only): kernels of
  // their own, so that the forms without it keep their registers.
  KOKKOS_INLINE_FUNCTION void operator()(const PairsPerThread<1, true>&,
                                         const member_type& team) const {
    pair_runs<1, row_prefetch_distance>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true>&, const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true, 2>&,
                                         const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance, 2>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true, 2, true>&,
                                         const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance, 2, true>(team);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const LanePairs<8, true, 4, true>&,
                                         const member_type& team) const {
    lane_weight_runs<8, row_prefetch_distance, 4, true>(team);
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

  // +inf (an empty split, FlashAttention-2) read as -inf.
  static KOKKOS_INLINE_FUNCTION compute_type empty_as_minus_inf(const compute_type x) {
    const compute_type inf = infinity<compute_type>();
    return x == inf ? -inf : x;
  }
  // A state's LSE in the compute type, +inf read as -inf.
  KOKKOS_INLINE_FUNCTION compute_type lse_of(const std::int64_t i, const std::int64_t t,
                                             const std::int64_t h) const {
    return empty_as_minus_inf(m_states.template lse<compute_type>(i, t, h, m_lse.tokens_heads()));
  }

  KOKKOS_INLINE_FUNCTION compute_type exp_(const compute_type x) const {
    return m_lse.base2() ? Impl::exp2(x) : Impl::exp(x);
  }
  // log(1 + x) in the LSE's base.
  KOKKOS_INLINE_FUNCTION compute_type log1p_(const compute_type x) const {
    return m_lse.base2() ? Impl::log1p(x) * compute_type(1.4426950408889634) : Impl::log1p(x);
  }
  // The 2-way weights' e^x, x = min - max <= 0, and log(1 + e), e in [0, 1], in the LSE's base:
  // on host spaces in float the branch-free functions of MergeAttn_HostRows.hpp (about 1 ulp,
  // inlined; the C library's calls cost about 10 ns per pair), elsewhere the math library.
  KOKKOS_INLINE_FUNCTION compute_type exp_nonpositive(const compute_type x) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (host_space && std::is_same<compute_type, float>::value)
      return host_exp_nonpositive(x, m_lse.base2());
#endif
    return exp_(x);
  }
  KOKKOS_INLINE_FUNCTION compute_type log1p_unit(const compute_type e) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (host_space && std::is_same<compute_type, float>::value)
      return host_log1p_unit(e, m_lse.base2());
#endif
    return log1p_(e);
  }

  // Team thread r of team b takes slots (b * K + j) * team_size + r, j < K, then strides over the
  // league. The LSEs of its K pairs (of a fixed-count form) are loaded before any row moves: K
  // round trips in flight, not one.
  template <int K, int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void pair_runs(const member_type& team) const {
    const std::int64_t ts = team.team_size();
    const std::int64_t step = static_cast<std::int64_t>(team.league_size()) * ts * K;
    for (std::int64_t first =
             static_cast<std::int64_t>(team.league_rank()) * ts * K + team.team_rank();
         first < m_num_slots; first += step) {
      compute_type* cache = nullptr;
      if constexpr (weight_cache) {
        const scratch_view sv(team.team_scratch(0), team.team_size(), 2 * m_cache_states);
        cache = &sv(team.team_rank(), 0);
      }
      std::int64_t t[K], h[K];
      compute_type lse[K][cached];
      bool valid[K];
      for (int j = 0; j < K; ++j) {
        const std::int64_t q = first + j * ts;
        valid[j] = q < m_num_slots && slot_pair(q, t[j], h[j]) && m_states.active(t[j]);
        if (valid[j])
          for (int i = 0; i < fixed; ++i)
            lse[j][i] = m_states.template lse<compute_type>(i, t[j], h[j], m_lse.tokens_heads());
      }
      // valid[j] depends on the team rank only: all vector lanes of the thread take the branch.
      // Nothing above uses the LSE values: the row prefetch is issued while they are on their way
      // (an early use, even the +inf test of lse_of, stalls the thread until they arrive and cost
      // 7-10 % on large 16-bit launches of the H200).
      if (m_prefetch_rows)
        for (int j = 0; j < K; ++j)
          if (valid[j]) prefetch_rows(team, t[j], h[j]);
      for (int j = 0; j < K; ++j)
        if (valid[j]) merge_pair<Prefetch>(team, t[j], h[j], lse[j], cache);
    }
  }

  // Host spaces: team thread r of team b takes slots [(b * team_size + r) * host_span, + host_span)
  // (then strides over the league): token-major slots walked in order, so the rows stream through
  // memory, and (t, h) stepped instead of divided per pair. Loading the LSEs of several pairs
  // before their rows (to vectorise their weights) measured up to 45 % slower for float rows of
  // 128: one pair at a time, its weights from the branch-free float functions of
  // MergeAttn_HostRows.hpp (the C library's exp and log1p cost about 10 ns per pair).
  KOKKOS_INLINE_FUNCTION void host_runs(const member_type& team) const {
#if !defined(__CUDA_ARCH__)
    const std::int64_t span = host_span;
    const std::int64_t step = std::int64_t(team.league_size()) * team.team_size() * span;
    for (std::int64_t begin =
             (std::int64_t(team.league_rank()) * team.team_size() + team.team_rank()) * span;
         begin < m_num_slots; begin += step) {
      const std::int64_t end = begin + span < m_num_slots ? begin + span : m_num_slots;
      std::int64_t t = 0, h = 0;
      bool in_range = slot_pair(begin, t, h);
      for (std::int64_t q = begin; q < end;) {
        std::int64_t n = 1;  // the pairs this step takes
        if (in_range && m_states.active(t)) {
          compute_type lse[cached] = {};
          if constexpr (fixed == 2) {
            lse[0] = m_states.template lse<compute_type>(0, t, h, m_lse.tokens_heads());
            lse[1] = m_states.template lse<compute_type>(1, t, h, m_lse.tokens_heads());
          }
          n = host_run_length(t, h, end - q);
          if (n > 1)
            host_state_run(team, t, h, static_cast<int>(n));
          else
            merge_pair(team, t, h, lse, nullptr);
        }
        q += n;
        if (q < end) {  // the next slot: token-major order steps through the heads
          if (m_group_log2 == 0) {
            h += n;
            if (h == m_num_heads) {
              h = 0;
              ++t;
            }
            in_range = t < m_num_tokens;
          } else {
            in_range = slot_pair(q, t, h);
          }
        }
      }
    }
#else
    (void)team;
#endif
  }

  // Host spaces, N states: pairs (t, h0) .. (t, h0 + n - 1), consecutive heads of one token, their
  // weights first, then their rows host_run_states states at a time: for each pair of the run the
  // rows of those states, then the next states. A state's rows of the run are adjacent in memory
  // ([state][token][head][dim], and the packed varlen states alike), so at most host_run_states
  // sequential streams are read at a time, whatever the number of states; one pair at a time, 16
  // or 64 states made as many interleaved streams of 256-512 bytes each, more than the hardware
  // prefetchers follow. Each pair's LSEs are staged and its weights cached on the stack
  // (nway_weights, as in GPU team scratch): the LSEs of one token's heads lie num_tokens apart
  // ([state][head][token]), each in another cache line and page, and one pair at a time loaded
  // them three times (two passes and the weight). A run takes at most host_run_values / count
  // pairs (the weights' room), so a token of more than host_run_values / 2 states keeps one pair
  // at a time, as does one of at most host_run_min_states states (2-core VM, 16384x32x128, 3
  // alternating passes, % of the host copy: float S8 64.8 -> 61.3, bf16 S8 56 -> 48 in runs;
  // S16 float 37.5 -> 54.4, bf16 32.1 -> 38.3; 4096 tokens S64 float 29.0 -> 59.1, bf16 22.7
  // -> 41.3). The sums are those of merge_contiguous_row (state order, the compute type): the
  // same bits.
  static constexpr int host_run_min_states = 8;
  static constexpr int host_run_states = 4;
  static constexpr int host_run_values = 4096;  // the run's sums: 16 KB of floats
  static constexpr int host_run_max = 64;
  /// The pairs a host run takes from pair (t, h), `left` slots left in the team thread's span (1:
  /// one pair at a time): the rest of the token's heads, at most host_run_max, and room for their
  /// sums (head size) and their weights (the token's states).
  KOKKOS_INLINE_FUNCTION std::int64_t host_run_length(const std::int64_t t, const std::int64_t h,
                                                      const std::int64_t left) const {
    if constexpr (host_space && fixed == 0 && UsePacks) {
      const std::int64_t count = m_states.count(t);
      if (m_group_log2 != 0 || m_head_size <= 0 || count <= host_run_min_states) return 1;
      std::int64_t n = left < m_num_heads - h ? left : m_num_heads - h;
      if (n > host_run_max) n = host_run_max;
      if (n > host_run_values / m_head_size) n = host_run_values / m_head_size;
      if (n > host_run_values / count) n = host_run_values / count;
      return n > 1 ? n : 1;  // over host_run_values states: none fit, one pair at a time
    }
    (void)t;
    (void)h;
    (void)left;
    return 1;
  }
  KOKKOS_INLINE_FUNCTION void host_state_run(const member_type& team, const std::int64_t t,
                                             const std::int64_t h0, const int n) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (host_space && fixed == 0 && UsePacks) {
      Weights wt[host_run_max];
      compute_type acc[host_run_values];  // the run's sums
      compute_type lw[host_run_values];   // each pair's LSEs, then its weights (count each)
      const int dim = m_head_size;
      const int count = static_cast<int>(m_states.count(t));
      bool any = false;
      for (int g = 0; g < n; ++g) {
        start_weights(wt[g], t, lw + g * count, lw + g * count, count);
        nway_weights<false>(team, wt[g], t, h0 + g);
        if (wt[g].mode == RowMode::weighted) {
          any = true;
          for (int d = 0; d < dim; ++d) acc[g * dim + d] = 0;
        }
      }
      if (any) {
        const std::int64_t first = m_states.first(t);
        for (int i0 = 0; i0 < count; i0 += host_run_states) {
          const int i1 = i0 + host_run_states < count ? i0 + host_run_states : count;
          for (int g = 0; g < n; ++g) {
            if (wt[g].mode != RowMode::weighted) continue;
            for (int i = i0; i < i1; ++i) {
              const compute_type w = wt[g].cache[i];
              if (w < compute_type(0)) continue;  // an empty state: not read
              host_accumulate_row(m_row_isa, acc + g * dim, w, m_states.row(first + i, t, h0 + g),
                                  dim);
            }
          }
        }
      }
      for (int g = 0; g < n; ++g) {
        const std::int64_t h = h0 + g;
        if (wt[g].mode == RowMode::weighted)
          host_store_row(m_row_isa, &m_output(t, h, 0), acc + g * dim, dim);
        else if (wt[g].mode == RowMode::copy)
          merge_contiguous_row<RowMode::copy>(&m_output(t, h, 0), t, h, wt[g]);
        else
          merge_contiguous_row<RowMode::fill>(&m_output(t, h, 0), t, h, wt[g]);
        if constexpr (has_output_lse)
          lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
              static_cast<typename OutputLseView::non_const_value_type>(wt[g].lse);
      }
      return;
    }
#endif
    (void)team;
    (void)t;
    (void)h0;
    (void)n;
  }

  // LanePairs<K>: team thread r of team b takes slots [(b * team_size + r) * K, + K) (then strides
  // over the league), K consecutive tokens t0 .. t0 + K - 1 of one head (the token groups are K
  // times as wide): f(t0, h) for each such step.
  template <int K, class F>
  KOKKOS_INLINE_FUNCTION void for_lane_batches(const member_type& team, const F& f) const {
    const std::int64_t ts = team.team_size();
    const std::int64_t step = static_cast<std::int64_t>(team.league_size()) * ts * K;
    for (std::int64_t q =
             (static_cast<std::int64_t>(team.league_rank()) * ts + team.team_rank()) * K;
         q < m_num_slots; q += step) {
      std::int64_t t0 = 0, h = 0;
      slot_pair(q, t0, h);
      f(t0, h);
    }
  }

  // LanePairs<K>, two states (for_lane_batches' steps). Lane k loads pair k's LSEs, computes its
  // weights (the same two_state_weights as the other forms: the same bits) and writes its output
  // LSE; then each lane moves its packs of all K rows. The per-pair work (slot division, LSEs,
  // exponential, logarithm) is done once per pair instead of once per lane and pair: at one pack
  // per lane it was most of the instructions.
  template <int K>
  KOKKOS_INLINE_FUNCTION void lane_pair_runs(const member_type& team) const {
    if constexpr (lane_pairs) {
      const scratch_view sv(team.team_scratch(0), team.team_size(), lane_pair_fields * K);
      compute_type* fields = &sv(team.team_rank(), 0);
      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          int code = pair_skip;
          Weights wt;
          wt.w[0] = 0;
          wt.w[1] = 0;
          if (t < m_num_tokens && m_states.active(t)) {
            const compute_type p =
                m_states.template lse<compute_type>(0, t, h, m_lse.tokens_heads());
            const compute_type s =
                m_states.template lse<compute_type>(1, t, h, m_lse.tokens_heads());
            if (m_prefetch_rows) prefetch_lane_rows(t, h);  // before the LSEs are used
            wt.fill = 0;
            two_state_weights(wt, empty_as_minus_inf(p), empty_as_minus_inf(s));
            code = pair_code(wt);
            if constexpr (has_output_lse)
              lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
                  static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
          }
          fields[lane_pair_fields * k] = wt.w[0];
          fields[lane_pair_fields * k + 1] = wt.w[1];
          fields[lane_pair_fields * k + 2] = static_cast<compute_type>(code);
        });
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_num_packs),
                             [&](const int p) { lane_pair_packs<K>(t0, h, p, fields); });
      });
    } else {
      (void)team;
    }
  }

  // Pack p of the K rows of a LanePairs step: the loads of four pairs issued before any is used
  // (all loads of a pair precede its store; a pair's output is at most its own state 0: in place).
  template <int K>
  KOKKOS_INLINE_FUNCTION void lane_pair_packs(const std::int64_t t0, const std::int64_t h,
                                              const int p, const compute_type* fields) const {
    // Batches of 4 pairs (8 loads in flight per lane): bf16 65536x32x64 on the H200 101 % of copy
    // against 91 % with batches of 2 (the same run, K = 8 with the row prefetch).
    constexpr int B = K < 4 ? K : 4;
    for (int kb = 0; kb < K; kb += B) {
      int code[B];
      Pack x[B], y[B];
      for (int j = 0; j < B; ++j) {
        code[j] = static_cast<int>(fields[lane_pair_fields * (kb + j) + 2]);
        const std::int64_t t = t0 + kb + j;
        if (code_reads(code[j], 0)) x[j] = reinterpret_cast<const Pack*>(m_states.row(0, t, h))[p];
        if (code_reads(code[j], 1)) y[j] = reinterpret_cast<const Pack*>(m_states.row(1, t, h))[p];
      }
      for (int j = 0; j < B; ++j) {
        if (code[j] == pair_skip) continue;
        reinterpret_cast<Pack*>(&m_output(t0 + kb + j, h, 0))[p] =
            code_pack(code[j], fields[lane_pair_fields * (kb + j)],
                      fields[lane_pair_fields * (kb + j) + 1], x[j], y[j]);
      }
    }
  }

  // N states, LanePairs<K> (for_lane_batches' steps, as the 2-way form): lane k computes pair k's
  // weights (the same nway_weights as merge_pair, one lane instead of the vector lanes: the same
  // bits) into team scratch and writes its output LSE; then the vector lanes move the K rows one
  // pair after the other.
  template <int K, int Prefetch = 0, int Batch = 4, bool Ring = false>
  KOKKOS_INLINE_FUNCTION void lane_weight_runs(const member_type& team) const {
    if constexpr (weight_cache) {
      const int cache = lane_weights(Ring);  // weights cached per pair
      const int nf = lane_weight_fields(Ring);
      const scratch_view sv(team.team_scratch(0), team.team_size(), nf * K);
      const index_scratch_view iv(team.team_scratch(0), team.team_size(), 2 * K);
      compute_type* fields = &sv(team.team_rank(), 0);
      // The state ring: slot r of team thread j's lane l at ring[r * threads + j * lanes + l]
      // (consecutive lanes, consecutive 16 bytes: no shared-memory bank conflicts).
      // Null (the rows as merge_pack moves them) in the other forms.
      Pack* ring = nullptr;
      if constexpr (Ring && sizeof(value_type) == 2 && Prefetch > 0) {
        ring = static_cast<Pack*>(team.team_scratch(0).get_shmem_aligned(
            ring_bytes(team.team_size(), ring_slots(Batch == 2)), sizeof(Pack)));
        if (ring != nullptr) ring += std::size_t(team.team_rank()) * m_vector_length;
      }
      (void)ring;  // used by device code for sm_80+ only
      std::int64_t* index = &iv(team.team_rank(), 0);
      for_lane_batches<K>(team, [&](const std::int64_t t0, const std::int64_t h) {
        // Kokkos ends each vector loop with the lanes synchronised: the fields are written before
        // any lane reads them, and read (previous step) before they are written again.
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int k) {
          const std::int64_t t = t0 + k;
          if (t >= m_num_tokens) {
            index[2 * k] = -1;
            return;
          }
          compute_type* f = fields + nf * k;
          Weights wt;
          start_weights(wt, t, f, f, cache);
          nway_weights<false>(team, wt, t, h);
          f[cache] = wt.m;
          f[cache + 1] = wt.inv;
          f[cache + 2] = wt.fill;
          index[2 * k] = static_cast<std::int64_t>(wt.mode);
          index[2 * k + 1] = wt.arg;
          if constexpr (has_output_lse)
            lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
                static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
        });
        // The state ring: the pairs whose rows it moves (weighted, all weights cached, whole
        // packs), all of them in one pass; the others after it, as merge_mode_row moves them.
        unsigned ring_rows = 0;
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
        if constexpr (Ring && sizeof(value_type) == 2 && Prefetch > 0 && UsePacks) {
          if (ring != nullptr && m_num_packs == m_vector_iters) {
            for (int k = 0; k < K; ++k)
              if (index[2 * k] == static_cast<std::int64_t>(RowMode::weighted) &&
                  m_states.count(t0 + k) <= cache)
                ring_rows |= 1u << k;
            if (ring_rows != 0)
              ring_weighted_rows<ring_slots(Batch == 2)>(team, t0, h, fields, nf, ring_rows, ring);
          }
        }
#endif
        for (int k = 0; k < K; ++k) {
          if (index[2 * k] < 0) continue;  // past the last token: the same for all lanes
          if ((ring_rows >> k) & 1u) continue;
          const std::int64_t t = t0 + k;
          compute_type* f = fields + nf * k;
          Weights wt;
          start_weights(wt, t, f, f, cache);
          wt.mode = static_cast<RowMode>(index[2 * k]);
          wt.arg = index[2 * k + 1];
          wt.m = f[cache];
          wt.inv = f[cache + 1];
          wt.fill = f[cache + 2];
          merge_mode_row<Prefetch, Batch>(team, t, h, wt);
        }
      });
    } else {
      (void)team;
    }
  }

  // The row prefetch (CUDA prefetch hints: no values reach registers, so an empty state's
  // contents still never matter). A row starting at address a covers row_lines(a) 128-byte lines;
  // a + 128 * j lies in its line j.
  KOKKOS_INLINE_FUNCTION int row_lines(const std::uintptr_t a) const {
    const std::uintptr_t bytes = std::uintptr_t(m_head_size) * sizeof(value_type);
    return bytes == 0 ? 0 : static_cast<int>(((a + bytes - 1) >> 7) - (a >> 7) + 1);
  }
  static KOKKOS_INLINE_FUNCTION void prefetch_l2(const std::uintptr_t a) {
#if defined(__CUDA_ARCH__)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
#else
    (void)a;
#endif
  }

  // LanePairs, one lane: every line of pair (t, h)'s two rows.
  KOKKOS_INLINE_FUNCTION void prefetch_lane_rows(const std::int64_t t, const std::int64_t h) const {
    for (int i = 0; i < 2; ++i) {
      const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(m_states.row(i, t, h));
      const int lines = row_lines(a);
      for (int j = 0; j < lines; ++j) prefetch_l2(a + (std::uintptr_t(j) << 7));
    }
  }

  // Latency-bound launches: while the LSEs are on their way, ask L2 for the pair's rows (the
  // vector lanes over the lines of both), so the loads that follow the LSE-dependent branch wait
  // on L2 instead of DRAM.
  KOKKOS_INLINE_FUNCTION void prefetch_rows(const member_type& team, const std::int64_t t,
                                            const std::int64_t h) const {
    if constexpr (UsePacks && fixed == 2) {
      const std::uintptr_t a0 = reinterpret_cast<std::uintptr_t>(m_states.row(0, t, h));
      const std::uintptr_t a1 = reinterpret_cast<std::uintptr_t>(m_states.row(1, t, h));
      const int lines0 = row_lines(a0);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lines0 + row_lines(a1)),
                           [&](const int i) {
                             prefetch_l2(i < lines0 ? a0 + (std::uintptr_t(i) << 7)
                                                    : a1 + (std::uintptr_t(i - lines0) << 7));
                           });
    } else {
      (void)team;
      (void)t;
      (void)h;
    }
  }

  // The pair's weights: max LSE m (state `arg`, the first to reach it), rest = sum over the other
  // non-empty states of e^(lse_i - m) (in the LSE's base), 1 / (1 + rest) for the maximum and
  // e^(lse_i - m) / (1 + rest) for the others, output LSE m + log(1 + rest). With two states this
  // is one exponential; N states take two passes over the LSEs, none over the rows.
  struct Weights {
    RowMode mode;
    std::int64_t first, count, arg;
    compute_type m, inv, fill, lse;
    compute_type w[cached];  // two states: both weights
    compute_type* cache;     // staged_weights: the first cap weights, -1 when empty
    compute_type* staged;    // staged_weights: the first cap LSEs (+inf read as -inf)
    int cap;                 // staged_weights: the states cache and staged hold
  };

  // N states: state i's LSE, staged (team scratch or a host run's stack: the first wt.cap states)
  // or loaded.
  KOKKOS_INLINE_FUNCTION compute_type staged_lse(const Weights& wt, const std::int64_t i,
                                                 const std::int64_t t, const std::int64_t h) const {
    if constexpr (staged_weights)
      if (i < wt.cap) return wt.staged[i];
    return lse_of(wt.first + i, t, h);
  }

  // A Weights before its computation: pair (t, h)'s states, nothing found yet; cache, staged and
  // cap as Weights describes them.
  KOKKOS_INLINE_FUNCTION void start_weights(Weights& wt, const std::int64_t t, compute_type* cache,
                                            compute_type* staged, const int cap) const {
    wt.first = m_states.first(t);
    wt.count = fixed > 0 ? fixed : m_states.count(t);
    wt.arg = -1;
    wt.m = -infinity<compute_type>();
    wt.inv = 0;
    wt.fill = 0;
    wt.cache = cache;
    wt.staged = staged;
    wt.cap = cap;
  }

  // N states on GPUs: pairs of more states than this find their maximum by a reduction across
  // the vector lanes, the others one lane each (H100, 1-64 tokens x 32 x 128 against one lane, 4
  // alternating passes, time: 64 states 0.82-0.87, 16 states 0.93-0.98, 4 states 1.02-1.04; the
  // tree's steps cost more than walking 4 states. With this rule, session 31: 64 states 0.83-0.90
  // on an H100 and 0.82-0.89 on an H200, 16 states 0.89-0.99).
  static constexpr int serial_max_pass_states = 8;
  // The first pass over a pair's LSEs by the vector lanes (nway_weights): a Kokkos reducer of
  // the NaN flag, the non-empty states, their maximum and the first state reaching it (equal
  // maxima: the smaller index, so the result does not depend on the order of the joins).
  struct MaxPassValue {
    compute_type m;
    int nan;
    std::int64_t arg;
    std::int64_t live;
  };
  struct MaxPass {
    using reducer = MaxPass;
    using value_type = MaxPassValue;
    using result_view_type = Kokkos::View<value_type, Kokkos::AnonymousSpace>;
    value_type* m_value;
    KOKKOS_INLINE_FUNCTION explicit MaxPass(value_type& v) : m_value(&v) {}
    KOKKOS_INLINE_FUNCTION value_type& reference() const { return *m_value; }
    KOKKOS_INLINE_FUNCTION result_view_type view() const { return result_view_type(m_value); }
    KOKKOS_INLINE_FUNCTION static void init(value_type& v) {
      v.m = -infinity<compute_type>();
      v.nan = 0;
      v.arg = -1;
      v.live = 0;
    }
    KOKKOS_INLINE_FUNCTION static void join(value_type& dest, const value_type& src) {
      dest.nan |= src.nan;
      dest.live += src.live;
      if (src.arg >= 0 &&
          (dest.arg < 0 || src.m > dest.m || (src.m == dest.m && src.arg < dest.arg))) {
        dest.m = src.m;
        dest.arg = src.arg;
      }
    }
    // State i of LSE x into v, the states in increasing order: the first reaching the maximum.
    KOKKOS_INLINE_FUNCTION static void step(value_type& v, const std::int64_t i,
                                            const compute_type x) {
      if (Impl::isnan(x)) {
        v.nan = 1;
      } else if (x != -infinity<compute_type>()) {
        ++v.live;
        if (x > v.m) {
          v.m = x;
          v.arg = i;
        }
      }
    }
  };

  // Calls f(i) for i < n: Lanes, the vector lanes of the team thread (one i per lane); otherwise
  // the calling lane alone.
  template <bool Lanes, class F>
  KOKKOS_INLINE_FUNCTION void for_states(const member_type& team, const int n, const F& f) const {
    if constexpr (Lanes) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), f);
    } else {
      (void)team;
      for (int i = 0; i < n; ++i) f(i);
    }
  }

  // N states: the modes, weights and output LSE of pair (t, h) into wt (begun by start_weights).
  // Lanes: the vector lanes of the team thread stage the LSEs and fill the weight cache
  // (merge_pair); otherwise one lane does it all (LanePairs), staged and cache then being the same
  // slots.
  template <bool Lanes>
  KOKKOS_INLINE_FUNCTION void nway_weights(const member_type& team, Weights& wt,
                                           const std::int64_t t, const std::int64_t h) const {
    const compute_type inf = infinity<compute_type>();
    const int n = static_cast<int>(!staged_weights || wt.count < 0 ? 0
                                   : wt.count < wt.cap             ? wt.count
                                                                   : wt.cap);
    if constexpr (staged_weights) {
      // The first wt.cap LSEs into team scratch: their loads in flight together, and the
      // passes below read them from there (loading them state by state in each pass left the
      // thread waiting on every load: 22 % of the stall samples of bf16 S = 8 on the H200; staged:
      // float S4-S16 79 -> 88-91 % of copy, bf16 57-61 -> 61-74 %).
      if constexpr (Lanes) {
        for_states<true>(team, n, [&](const int i) { wt.staged[i] = lse_of(wt.first + i, t, h); });
      } else {
        constexpr int batch = 8;  // one lane: eight loads issued before their stores
        for (int i0 = 0; i0 < n; i0 += batch) {
          compute_type x[batch];
          for (int j = 0; j < batch; ++j)
            if (i0 + j < n) x[j] = lse_of(wt.first + i0 + j, t, h);
          for (int j = 0; j < batch; ++j)
            if (i0 + j < n) wt.staged[i0 + j] = x[j];
        }
      }
    }
    // The first pass: NaN, the non-empty states, their maximum and the first state reaching it.
    MaxPassValue pass;
    const auto one_lane = [&] {
      MaxPass::init(pass);
      for (std::int64_t i = 0; i < wt.count; ++i) MaxPass::step(pass, i, staged_lse(wt, i, t, h));
    };
    if constexpr (weight_cache && Lanes) {
      if (wt.count > serial_max_pass_states) {
        // By the vector lanes, each over its states (those it staged), then one reduction across
        // them: one lane walking all states was a third of the instructions of a decode pair at
        // 64 states (ncu, H100, bf16 1x32x128).
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, wt.count),
            [&](const std::int64_t i, MaxPassValue& v) {
              MaxPass::step(v, i, staged_lse(wt, i, t, h));
            },
            MaxPass(pass));
      } else {
        one_lane();
      }
    } else {
      one_lane();
    }
    const bool nan = wt.count < 0 || pass.nan != 0;
    const std::int64_t live = pass.live;
    wt.m = pass.m;
    wt.arg = pass.arg;
    if (nan) {
      wt.mode = RowMode::fill;
      wt.fill = quiet_nan<compute_type>();
      wt.lse = wt.fill;
    } else if (live == 0) {
      wt.mode = RowMode::fill;
      wt.lse = -inf;
    } else if (live == 1) {
      wt.mode = RowMode::copy;
      wt.lse = wt.m;
    } else {
      wt.mode = RowMode::weighted;
      compute_type rest = 0;
      std::int64_t i0 = 0;  // the first state whose term the loop below computes
      if constexpr (staged_weights && Lanes) {
        // The staged states' terms computed by the vector lanes (one state per lane) into the
        // weight cache, then summed by each lane in state order: the terms and the order of the
        // loop below, without an exponential in each step of the sum.
        for_states<true>(team, n, [&](const int i) {
          const compute_type x = wt.staged[i];
          wt.cache[i] = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
        });
        for (int i = 0; i < n; ++i) rest += wt.cache[i];
        i0 = n;
      }
      for (std::int64_t i = i0; i < wt.count; ++i) {
        const compute_type x = staged_lse(wt, i, t, h);
        const compute_type ei = (i == wt.arg || x == -inf) ? compute_type(0) : exp_(x - wt.m);
        rest += ei;
      }
      wt.inv = compute_type(1) / (compute_type(1) + rest);
      wt.lse = wt.m + log1p_(rest);
      if constexpr (staged_weights && Lanes) {
        // The weights from the terms (weight_from's values: e^(x - m) * inv, inv for the maximum,
        // -1 when empty), written over the staged LSEs, which then become the cache: the terms
        // are not written while other lanes may still be summing them. Kokkos ends each vector
        // loop with the lanes synchronised, and every loop gives state i to the same lane: the
        // staged values and the terms were all written before the passes read them, and the
        // previous pair's row loop (the readers of its weights, in this pair's staging slots) has
        // ended before this pair's LSEs are staged.
        for_states<true>(team, n, [&](const int i) {
          const compute_type x = wt.staged[i];
          wt.staged[i] = i == wt.arg ? wt.inv : x == -inf ? compute_type(-1) : wt.cache[i] * wt.inv;
        });
        compute_type* const weights = wt.staged;
        wt.staged = wt.cache;
        wt.cache = weights;
      } else if constexpr (staged_weights) {
        // From the staged LSEs (in place when staged and cache are the same slots: state i only
        // reads its own).
        for_states<Lanes>(team, n,
                          [&](const int i) { wt.cache[i] = weight_from(wt, i, wt.staged[i]); });
      }
    }
  }

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  // cp.async (sm_80+): 16 bytes from global memory into shared memory, L2 only, without holding a
  // register while in flight; commit closes a group of them, wait_group<N> waits until at most N
  // groups of this thread are in flight (and makes their data visible to it).
  static __device__ void cp_async16(Pack* dst, const Pack* src) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
  }
  static __device__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
  template <int N>
  static __device__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
  }
  // The state ring: the weighted rows of a step's pairs `rows` (bit k: pair t0 + k; their weights
  // all cached, nf fields per pair from `fields`), of whole packs. Vector lane l walks, pair after
  // pair, packs l, l + V, ... and for each the non-empty states in order (the same sums in the same
  // order as merge_pack: the same bits); its next Slots loads (across states, pack iterations and
  // pairs) are in flight through cp.async into its slots of the ring, holding no registers, and
  // each row is asked of L2 once (the L2 prefetch of merge_pack asks twice).
  template <int Slots>
  __device__ void ring_weighted_rows(const member_type& team, const std::int64_t t0,
                                     const std::int64_t h, const compute_type* fields, const int nf,
                                     const unsigned rows, Pack* ring) const {
    const int lanes = m_vector_length, threads = team.team_size() * m_vector_length;
    const int packs = m_num_packs;
    const std::int64_t step = m_states.state_stride() / pack_size;
    const auto first_live = [](const compute_type* w) {
      int i = 0;  // a weighted row has two or more non-empty states
      while (w[i] < compute_type(0)) ++i;
      return i;
    };
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int l) {
      Pack* slots = ring + l;
      // The next load to issue: pack ip of state ii (of in) of the row at ib, weights iw; left: the
      // pairs after it. ip >= packs: nothing left to issue.
      unsigned left = rows;
      int ii = 0, in = 0, ip = packs;
      const Pack* ib = nullptr;
      const compute_type* iw = nullptr;
      const auto next_row = [&] {
        ip = packs;
        if (left == 0 || l >= packs) return;
        const int k = __ffs(left) - 1;
        left &= left - 1;
        const std::int64_t t = t0 + k;
        iw = fields + nf * k;
        in = static_cast<int>(m_states.count(t));
        ib = reinterpret_cast<const Pack*>(m_states.row(m_states.first(t), t, h));
        ii = first_live(iw);
        ip = l;
      };
      next_row();
      const auto issue = [&](const int slot) {
        if (ip < packs) {
          cp_async16(slots + slot * threads, ib + ii * step + ip);
          do {  // the next non-empty state, or the first of the next pack iteration or row
            if (++ii == in) {
              ii = first_live(iw);
              ip += lanes;
              if (ip >= packs) next_row();
              break;
            }
          } while (iw[ii] < compute_type(0));
        }
        cp_async_commit();  // empty groups too: one group per slot keeps wait_group's count
      };
      for (int r = 0; r < Slots; ++r) issue(r);
      int slot = 0;
      for (unsigned m = rows; m != 0; m &= m - 1) {
        const int k = __ffs(m) - 1;
        const std::int64_t t = t0 + k;
        const compute_type* w = fields + nf * k;
        const int n = static_cast<int>(m_states.count(t));
        Pack* out = reinterpret_cast<Pack*>(&m_output(t, h, 0));
        for (int p = l; p < packs; p += lanes) {
          compute_type acc[pack_size];
          for (int j = 0; j < pack_size; ++j) acc[j] = 0;
          for (int i = 0; i < n; ++i) {
            const compute_type wi = w[i];
            if (wi < compute_type(0)) continue;  // an empty state: not read
            cp_async_wait<Slots - 1>();          // the oldest group: this load
            const Pack x = slots[slot * threads];
            for (int j = 0; j < pack_size; ++j) acc[j] += wi * traits::load(x.v[j]);
            issue(slot);  // its slot refilled after the read above
            slot = slot + 1 == Slots ? 0 : slot + 1;
          }
          Pack o;
          for (int j = 0; j < pack_size; ++j) traits::store(o.v[j], acc[j]);
          out[p] = o;
        }
      }
      cp_async_wait<0>();  // nothing in flight into the ring when the next step's weights start
    });
  }
#endif

  template <int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void merge_pair(const member_type& team, const std::int64_t t,
                                         const std::int64_t h,
                                         const compute_type (&preloaded)[cached],
                                         compute_type* cache) const {
    // Every vector lane reads all LSEs before any lane writes (output_lse may be an input): the
    // lanes meet at the end of the vector loop below before the single write.
    Weights wt;
    start_weights(wt, t, cache, weight_cache ? cache + m_cache_states : nullptr,
                  weight_cache ? m_cache_states : 0);
    if constexpr (fixed == 2)
      two_state_weights(wt, empty_as_minus_inf(preloaded[0]), empty_as_minus_inf(preloaded[1]));
    else
      nway_weights<true>(team, wt, t, h);

    merge_mode_row<Prefetch>(team, t, h, wt);

    if constexpr (has_output_lse) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
            static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
      });
    }
  }

  // The row of pair (t, h) as its mode says: one branch (uniform per pair), then a tight vector
  // loop.
  template <int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void merge_mode_row(const member_type& team, const std::int64_t t,
                                             const std::int64_t h, const Weights& wt) const {
    switch (wt.mode) {
      case RowMode::weighted:
        merge_row<RowMode::weighted, Prefetch, Batch>(team, t, h, wt);
        break;
      case RowMode::copy:
        merge_row<RowMode::copy>(team, t, h, wt);
        break;
      case RowMode::fill:
        merge_row<RowMode::fill>(team, t, h, wt);
        break;
    }
  }

  // Two states (2-way forms): the modes and weights directly, one exponential (the larger LSE's
  // term is 1); the same values as the N-state passes, with fewer instructions and registers
  // (the generic passes measured 10-30 % slower on the 2-way path of the H200).
  KOKKOS_INLINE_FUNCTION void two_state_weights(Weights& wt, const compute_type p,
                                                const compute_type s) const {
    const compute_type inf = infinity<compute_type>();
    if (Impl::isnan(p) || Impl::isnan(s)) {
      wt.mode = RowMode::fill;
      wt.fill = quiet_nan<compute_type>();
      wt.lse = wt.fill;
    } else if (p == -inf && s == -inf) {
      wt.mode = RowMode::fill;
      wt.lse = -inf;
    } else if (s == -inf) {
      wt.mode = RowMode::copy;
      wt.arg = 0;
      wt.lse = p;
    } else if (p == -inf) {
      wt.mode = RowMode::copy;
      wt.arg = 1;
      wt.lse = s;
    } else {
      wt.mode = RowMode::weighted;
      const bool p_larger = p > s;
      wt.m = p_larger ? p : s;
      const compute_type e = exp_nonpositive(p_larger ? s - p : p - s);
      wt.inv = compute_type(1) / (compute_type(1) + e);
      const compute_type w_min = e * wt.inv;
      wt.w[0] = p_larger ? wt.inv : w_min;
      wt.w[1] = p_larger ? w_min : wt.inv;
      wt.lse = wt.m + log1p_unit(e);
    }
  }

  // A two-state pair's RowMode, copied state and fill value as one small integer: what the
  // LanePairs form keeps per pair in team scratch beside the two weights (in the compute type:
  // small integers are exact). pair_code encodes Weights, the functions after it decode.
  enum PairCode : int {
    pair_weighted = 0,
    pair_copy_0 = 1,  // only state 0 non-empty: copied bit for bit, state 1 not read
    pair_copy_1 = 2,
    pair_fill_zero = 3,  // both states empty
    pair_fill_nan = 4,   // a NaN LSE
    pair_skip = 5        // masked out, or past the last token
  };
  static KOKKOS_INLINE_FUNCTION int pair_code(const Weights& wt) {
    return wt.mode == RowMode::weighted ? pair_weighted
           : wt.mode == RowMode::copy   ? (wt.arg == 0 ? pair_copy_0 : pair_copy_1)
           : Impl::isnan(wt.fill)       ? pair_fill_nan
                                        : pair_fill_zero;
  }
  // Whether a pair of this code reads state i's row (i = 0, 1).
  static KOKKOS_INLINE_FUNCTION bool code_reads(const int code, const int i) {
    return code == pair_weighted || code == (i == 0 ? pair_copy_0 : pair_copy_1);
  }
  // The output pack of a pair of this code from its weights and the packs code_reads asked for.
  static KOKKOS_INLINE_FUNCTION Pack code_pack(const int code, const compute_type w0,
                                               const compute_type w1, const Pack& x,
                                               const Pack& y) {
    if (code == pair_weighted) return weighted_pack(w0, x, w1, y);
    if (code == pair_copy_0) return x;
    if (code == pair_copy_1) return y;
    return filled_pack(code == pair_fill_nan ? quiet_nan<compute_type>() : compute_type(0));
  }

  // State i's weight in a weighted row from its LSE x (+inf already read as -inf); -1 for an empty
  // state (whose row is then not read).
  KOKKOS_INLINE_FUNCTION compute_type weight_from(const Weights& wt, const std::int64_t i,
                                                  const compute_type x) const {
    if (i == wt.arg) return wt.inv;
    return x == -infinity<compute_type>() ? compute_type(-1) : exp_(x - wt.m) * wt.inv;
  }
  // State i's weight, its LSE loaded.
  KOKKOS_INLINE_FUNCTION compute_type weight_of(const Weights& wt, const std::int64_t i,
                                                const std::int64_t t, const std::int64_t h) const {
    return weight_from(wt, i, i == wt.arg ? wt.m : lse_of(wt.first + i, t, h));
  }

  // N states: state i's weight, from the GPU weight cache or computed; -1 when empty.
  KOKKOS_INLINE_FUNCTION compute_type weight(const Weights& wt, const std::int64_t i,
                                             const std::int64_t t, const std::int64_t h) const {
    if constexpr (staged_weights)
      if (i < wt.cap) return wt.cache[i];
    return weight_of(wt, i, t, h);
  }

  // The vector lanes of the team thread move the row: on GPUs iteration i < m_num_packs moves
  // pack i (consecutive lanes, consecutive packs), then the tail elements; general path: one
  // element per iteration. Hosts: SIMD loops over the contiguous row.
  template <RowMode Mode, int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void merge_row(const member_type& team, const std::int64_t t,
                                        const std::int64_t h, const Weights& wt) const {
    if constexpr (host_space && UsePacks) {
      if (m_head_size > 0) merge_contiguous_row<Mode>(&m_output(t, h, 0), t, h, wt);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m_vector_iters), [&](const int i) {
        if (UsePacks && i < m_num_packs) {
          merge_pack<Mode, Prefetch, Batch>(t, h, i, wt);
        } else {
          const int d = UsePacks ? m_num_packs * pack_size + (i - m_num_packs) : i;
          merge_element<Mode>(t, h, d, wt);
        }
      });
    }
  }

  // Element d of every state is read before element d of the output is written, so vectorising
  // is safe with the output being a state (in-place 2-way merge). The weighted loops are the host
  // row functions (MergeAttn_HostRows.hpp: SIMD code chosen for the CPU at run time).
  template <RowMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_contiguous_row(value_type* out, const std::int64_t t,
                                                   const std::int64_t h, const Weights& wt) const {
#if !defined(__CUDA_ARCH__)
    const int n = m_head_size;
    if constexpr (Mode == RowMode::weighted) {
      if constexpr (fixed == 2) {
        host_weighted_row(m_row_isa, out, m_states.row(0, t, h), m_states.row(1, t, h), wt.w[0],
                          wt.w[1], n);
      } else {
        // Any number of states: sums in the compute type, a chunk of the row at a time.
        constexpr int chunk = 256;
        for (int d0 = 0; d0 < n; d0 += chunk) {
          const int len = n - d0 < chunk ? n - d0 : chunk;
          compute_type acc[chunk];
          for (int d = 0; d < len; ++d) acc[d] = 0;
          for (std::int64_t i = 0; i < wt.count; ++i) {
            const compute_type w = weight(wt, i, t, h);
            if (w < compute_type(0)) continue;  // an empty state: not read
            host_accumulate_row(m_row_isa, acc, w, m_states.row(wt.first + i, t, h) + d0, len);
          }
          host_store_row(m_row_isa, out + d0, acc, len);
        }
      }
    } else if constexpr (Mode == RowMode::copy) {
      const value_type* x = m_states.row(wt.first + wt.arg, t, h);
      for (int d = 0; d < n; ++d) out[d] = x[d];
    } else {
      const value_type f = traits::from_compute(wt.fill);
      for (int d = 0; d < n; ++d) out[d] = f;
    }
#else
    (void)out;
    (void)t;
    (void)h;
    (void)wt;
#endif
  }

  template <RowMode Mode>
  KOKKOS_INLINE_FUNCTION void merge_element(const std::int64_t t, const std::int64_t h, const int d,
                                            const Weights& wt) const {
    if constexpr (Mode == RowMode::weighted && fixed == 2) {
      m_output(t, h, d) =
          traits::from_compute(wt.w[0] * traits::to_compute(m_states.value(0, t, h, d)) +
                               wt.w[1] * traits::to_compute(m_states.value(1, t, h, d)));
    } else if constexpr (Mode == RowMode::weighted) {
      compute_type acc = 0;
      for (std::int64_t i = 0; i < wt.count; ++i) {
        const compute_type w = weight(wt, i, t, h);
        if (w < compute_type(0)) continue;  // an empty state: not read
        acc += w * traits::to_compute(m_states.value(wt.first + i, t, h, d));
      }
      m_output(t, h, d) = traits::from_compute(acc);
    } else if constexpr (Mode == RowMode::copy) {
      m_output(t, h, d) = m_states.value(wt.first + wt.arg, t, h, d);
    } else {
      m_output(t, h, d) = traits::from_compute(wt.fill);
    }
  }

  // Prefetch (N states, weighted): state i + Prefetch's pack asked of L2 beside state i's load (a
  // hint: no value reaches a register, so a state that turns out empty costs the bandwidth of its
  // line, never its contents); a pair whose states make one batch asks instead for their packs of
  // the lane's next pack iteration (p + m_vector_length). Batch: the states whose loads are issued
  // together.
  template <RowMode Mode, int Prefetch = 0, int Batch = 4>
  KOKKOS_INLINE_FUNCTION void merge_pack(const std::int64_t t, const std::int64_t h, const int p,
                                         const Weights& wt) const {
    Pack* out = reinterpret_cast<Pack*>(&m_output(t, h, 0)) + p;
    if constexpr (Mode == RowMode::weighted && fixed == 2) {
      const Pack x = reinterpret_cast<const Pack*>(m_states.row(0, t, h))[p];
      const Pack y = reinterpret_cast<const Pack*>(m_states.row(1, t, h))[p];
      *out = weighted_pack(wt.w[0], x, wt.w[1], y);
    } else if constexpr (Mode == RowMode::weighted) {
      compute_type acc[pack_size];
      for (int k = 0; k < pack_size; ++k) acc[k] = 0;
      // Batch states at a time (4; 2 in LanePairs<8, true, 2>), their loads issued before any is
      // used: that many round trips in flight per lane instead of one (the sums keep the state
      // order of the loop below).
      constexpr int u = Batch;
      // src: state first + i's pack p, the next state's at src + step (whole packs: can_use_packs
      // checked the state stride): one add per batch instead of the View's index arithmetic per
      // state. It moves on only to a state that exists, so no address past the last state's row
      // is formed (an index form, base + offset, avoids that too but spilled registers in the bf16
      // one-pair kernel: 2.8 points of copy at 64 states). A weighted pair has two or more states.
      const Pack* src = reinterpret_cast<const Pack*>(m_states.row(wt.first, t, h)) + p;
      const std::int64_t step = m_states.state_stride() / pack_size;
      std::int64_t i = 0;
      if constexpr (Prefetch > 0)  // one batch: nothing ahead in this row; the next pack iteration
        if (wt.count <= u && p + m_vector_length < m_num_packs)
          for (int j = 0; j < u; ++j)
            if (j < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + j * step + m_vector_length));
      // States::partial_batches: the last batch may be partial (count mod u states, or a pair of
      // fewer than u), its loads issued together as well, one round trip instead of one per state
      // (with 4 states a batch, 9-11 states took 4-5 round trips against 12's 3); one loop body for
      // both keeps the registers of the full batch. Otherwise whole batches, then the rest one
      // state at a time.
      constexpr bool partial = States::partial_batches;
      while (partial ? i < wt.count : i + u <= wt.count) {
        const std::int64_t rest = wt.count - i;
        if constexpr (Prefetch > 0)  // state i + j + Prefetch exists
          for (int j = 0; j < u; ++j)
            if (i + j + Prefetch < wt.count)
              prefetch_l2(reinterpret_cast<std::uintptr_t>(src + (Prefetch + j) * step));
        compute_type w[u];
        Pack x[u];
        for (int j = 0; j < u; ++j)
          w[j] = !partial || j < rest ? weight(wt, i + j, t, h) : compute_type(-1);
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))  // an empty state (or none: past the last) is not read
            x[j] = src[j * step];
        for (int j = 0; j < u; ++j)
          if (w[j] >= compute_type(0))
            for (int k = 0; k < pack_size; ++k) acc[k] += w[j] * traits::load(x[j].v[k]);
        i += u;
        if (i < wt.count) src += u * step;
      }
      if constexpr (!partial)
        for (; i < wt.count; ++i) {
          const compute_type w = weight(wt, i, t, h);
          if (w >= compute_type(0)) {  // an empty state is not read
            const Pack x = *src;
            for (int k = 0; k < pack_size; ++k) acc[k] += w * traits::load(x.v[k]);
          }
          if (i + 1 < wt.count) src += step;
        }
      Pack o;
      for (int k = 0; k < pack_size; ++k) traits::store(o.v[k], acc[k]);
      *out = o;
    } else if constexpr (Mode == RowMode::copy) {
      *out = reinterpret_cast<const Pack*>(m_states.row(wt.first + wt.arg, t, h))[p];
    } else {
      *out = filled_pack(wt.fill);
    }
  }

  // w0 * x + w1 * y, element by element in the compute type.
  static KOKKOS_INLINE_FUNCTION Pack weighted_pack(const compute_type w0, const Pack& x,
                                                   const compute_type w1, const Pack& y) {
    Pack o;
    for (int k = 0; k < pack_size; ++k)
      traits::store(o.v[k], w0 * traits::load(x.v[k]) + w1 * traits::load(y.v[k]));
    return o;
  }
  static KOKKOS_INLINE_FUNCTION Pack filled_pack(const compute_type f) {
    Pack o;
    for (int k = 0; k < pack_size; ++k) traits::store(o.v[k], f);
    return o;
  }

  OutputView m_output;
  OutputLseView m_output_lse;
  States m_states;
  std::int64_t m_num_tokens;
  std::int64_t m_num_heads;
  int m_head_size;
  int m_num_packs;
  int m_vector_iters;
  int m_cache_states = 0;                // N-state forms on GPUs: see cache_states()
  int m_lane_cache = lane_cache_states;  // see lane_cache()
  Lse m_lse;
  int m_group_log2 = 0;
  std::int64_t m_num_slots = 0;
  bool m_slots_fit_32_bits = true;  // slot indices (and the grid-stride step) below 2^31
  bool m_prefetch_rows = false;
  int m_vector_length = 1;
  HostRowIsa m_row_isa = HostRowIsa::portable;  // host spaces: the CPU's row code
};

/// Threads per team and teams per multiprocessor of the N-state forms on GPU-like spaces (their
/// launch bounds).
constexpr int nway_max_team_threads = 128;
constexpr int nway_min_teams_per_sm = 7;
/// Teams per multiprocessor the launch bounds of the 16-bit LanePairs forms ask for: in batches of
/// 4 states and in batches of 2 (LanePairs<8, true, 2>, with or without the state ring).
constexpr int nway_lane_pairs_teams_per_sm = 6;
constexpr int nway_narrow_teams_per_sm = 8;

template <class Tag>
struct IsLanePairs : std::false_type {};
template <int K, bool P, int B, bool R>
struct IsLanePairs<LanePairs<K, P, B, R>> : std::true_type {};

/// Whether pair form Tag is a LanePairs form in batches of 2 states (the narrow forms, with or
/// without the state ring).
template <class Tag>
struct IsNarrowLanePairs : std::false_type {};
template <int K, bool P, bool R>
struct IsNarrowLanePairs<LanePairs<K, P, 2, R>> : std::true_type {};

/// Teams per multiprocessor the launch bounds of an N-state form in pair form Tag ask for: 6 for
/// the LanePairs form with 16-bit values (80 registers and no spills instead of 72 registers with
/// 176 bytes of spill loads; H200, 16384x32x128 bf16, same run, six rounds: S4 73.9 -> 79.8 % of
/// copy, S8 77.6 -> 81.1, S16 78.5 -> 80.7), nway_min_teams_per_sm otherwise (the two-pairs form
/// with 64 states lost 5 points at 6). 8 for the LanePairs forms in batches of 2 states (16-bit
/// rows with the row prefetch, LanePairs<8, true, 2>: 64 registers, 32 bytes of spills; see
/// choose_launch_shape), with or without the state ring.
template <class ValueType, class Tag>
constexpr int nway_min_teams() {
  if (IsNarrowLanePairs<Tag>::value) return nway_narrow_teams_per_sm;
  return sizeof(ValueType) == 2 && IsLanePairs<Tag>::value ? nway_lane_pairs_teams_per_sm
                                                           : nway_min_teams_per_sm;
}

/// Bytes of shared memory per team left for Kokkos' own use when MergeAttn sizes team scratch
/// against a multiprocessor's shared memory.
constexpr std::int64_t kokkos_shared_margin = 512;

/// Teams with `team_scratch` bytes of team scratch each that fit into `shared_per_sm` bytes of
/// shared memory, each block also holding `reserved_per_block` bytes for the driver (CUDA:
/// cudaDeviceProp::reservedSharedMemPerBlock) and kokkos_shared_margin.
constexpr std::int64_t teams_per_shared_memory(const std::int64_t shared_per_sm,
                                               const std::int64_t reserved_per_block,
                                               const std::int64_t team_scratch) {
  return shared_per_sm / (team_scratch + reserved_per_block + kokkos_shared_margin);
}

/// How a launch maps pairs onto the hardware. GPU-like spaces (memory not host accessible): vector
/// lanes over the packs of a row, several pairs per team, token groups of one warp's team threads;
/// host spaces: one pair per one-thread team, the row loop vectorised by the compiler.
struct LaunchShape {
  int team_size;
  int vector_length;
  int tokens_per_group = 1;  // consecutive tokens of one head on consecutive team threads
  // Pairs a team thread takes per step: 1 or 2 (their LSEs loaded together), or 4 or 8 (GPU-like
  // spaces, LanePairs: K consecutive tokens of one head, one pair's weights per vector lane;
  // 2-way forms only with rows of whole packs; elsewhere 4 and 8 run as 2).
  int pairs_per_thread = 1;
  bool prefetch_rows = false;  // CUDA, 2-way forms: L2 prefetch of both rows while the LSEs load
  // CUDA: at most this many threads of the launch resident per multiprocessor (0: no limit), by
  // team scratch that leaves room for no more teams (the mechanism of Kokkos' DesiredOccupancy,
  // which Kokkos 3.4 does not know for sm_90); other spaces ignore it.
  int max_resident_threads = 0;
  // CUDA, N-state forms on the 16-byte fast path, one pair per team thread or LanePairs with
  // K = 8: the row loop asks L2 for the rows of states ahead (MergeFunctor::row_prefetch_distance);
  // other forms and spaces ignore it.
  bool prefetch_states = false;
  // CUDA, 16-bit values, LanePairs with K = 8 and prefetch_states: the row loop issues the loads of
  // 2 states at a time instead of 4 and the launch bounds ask for 8 teams per multiprocessor (64
  // registers instead of 80: more warps in flight); other forms, types and spaces ignore it.
  bool narrow_state_batches = false;
  // CUDA sm_80+, 16-bit values, LanePairs with K = 8 and prefetch_states: the loads of the weighted
  // rows go through a ring of 16-byte slots per vector lane in team scratch (cp.async; 8 slots with
  // narrow_state_batches, 12 without) instead of registers and the L2 prefetch; a built-in shape
  // whose ring does not fit the launch bounds' teams into shared memory runs it in batches of 4
  // states, or without it where that does not fit either. Other forms, types and spaces ignore it.
  bool state_ring = false;
};

/// Pairs up to which a launch of a number of states other than 2 (fixed or varying per token) is
/// small: one pair per warp (choose_launch_shape; 64 tokens of 32 heads).
constexpr std::int64_t small_nway_pairs = 2048;

/// Pairs from which a launch is large (choose_launch_shape: two pairs per team thread, LanePairs or
/// the L2 row prefetch, by the work per vector lane; 4096 tokens of 32 heads).
constexpr std::int64_t large_launch_pairs = std::int64_t(1) << 17;

/// Varlen launches of float values of at most varlen_wide_pairs pairs (16384 tokens of 32 heads)
/// take one pair per warp too (choose_launch_shape), one pair per team thread also where they are
/// large: with at least varlen_wide_mean_states states per token on average, or at least
/// varlen_mid_mean_states from varlen_mid_pairs pairs on (512 tokens of 32 heads).
constexpr std::int64_t varlen_wide_pairs = 524288;
constexpr std::int64_t varlen_wide_mean_states = 32;
constexpr std::int64_t varlen_mid_pairs = 16384;
constexpr std::int64_t varlen_mid_mean_states = 12;

/// GPU mapping, from sweeps and profiles on the H200 (docs/perf/README.md): vector lanes over the
/// 16-byte packs of a row, each lane moving about 2 packs (16-bit types, float in the 2-way merge)
/// or 4 (double, float with N states), at least 8 lanes, 128 threads per block; token groups as
/// wide as the team threads of a warp (LSE sectors shared: the profile showed L2, not DRAM, as the
/// limit); for large launches two pairs per thread or an L2 prefetch of the rows, by the work per
/// lane. num_states: the states per token (2 for the 2-way merge, 0 when it varies per token);
/// multiprocessors: the device's (CUDA), 0 where not known; mean_states: where the count varies,
/// the states per token on average (0: not known).
template <class ExecSpace>
LaunchShape choose_launch_shape(const int value_size, const int vector_iters,
                                const std::int64_t num_tokens, const std::int64_t num_heads,
                                const std::int64_t num_states = 2, const int multiprocessors = 0,
                                const std::int64_t mean_states = 0) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host_like) return {1, 1, 1, 1, false};
  // Float in the 2-way merge: 2 packs per lane too (16 lanes + the row prefetch at head size 128,
  // 32 at 256: H200, same run, 65536x32x128 97 -> 101 % of copy, 65536x32x256 96 -> 102,
  // 16384x8x256 92 -> 100). N states keep 4 (16 lanes measured 67-75 % against 85 %); double keeps
  // 4 (not measured).
  const int per_lane = value_size >= 8 || (value_size == 4 && num_states != 2) ? 4 : 2;
  // At least 8 lanes where the row has that many items: 4-lane teams measured 25 % slower.
  const int lanes_wanted =
      std::max((vector_iters + per_lane - 1) / per_lane, std::min(vector_iters, 8));
  const std::int64_t num_pairs = num_tokens * num_heads;
  LaunchShape shape{128, 1, 1, 1, false};
  while (shape.vector_length < lanes_wanted && shape.vector_length < 32) shape.vector_length *= 2;
  // Small 2-way launches (at most 2^15 packs and tail items in all: latency, not bandwidth): a
  // whole warp per pair, the fewest items per lane (one up to 32 items per row), the shortest
  // chain of dependent instructions per warp (H200, 3 rounds, time / plain CUDA kernel, median
  // over heads 8-128 and head sizes 64-576: 1 token bf16 1.23 -> 1.19, half 1.24 -> 1.21, float
  // 1.24 -> 1.18; 16 tokens -0.01..-0.03; 64 tokens within noise).
  if (num_states == 2 && num_pairs * vector_iters <= (std::int64_t(1) << 15))
    shape.vector_length = 32;
  // Small N-state launches (any count other than 2, fixed or varying per token, at most
  // small_nway_pairs pairs: split-KV decode, a few tokens with many states): a whole warp per pair
  // too. With 8 lanes such a launch has a few warps per multiprocessor, each walking its pairs'
  // states one after the other (H100, docs/perf/raw-2026-12-06-s28, 3 passes, 32 heads x 128, S 4
  // / 16 / 64, float and bf16, time / the 8-lane shape: 1-64 tokens median 0.82, float S64
  // 0.60-0.65, bf16 S64 0.75-0.76; at 256-4096 tokens the 32-lane shapes took 1.28 x as long).
  // Varlen (H100, docs/perf/raw-2026-12-06-s29, 2 passes, the same launches with S states per
  // token, 1-64 tokens, time / the 8-lane shape: float S4 0.89-0.93, S16 0.71-0.78, S64 0.51-0.63;
  // bf16 S4 0.87-0.91, S16 0.79-0.89, S64 0.68-0.77; at 256 tokens 1.07-1.48 x as long).
  if (num_states != 2 && num_pairs <= small_nway_pairs) shape.vector_length = 32;
  // Varlen float launches of many states per token on average, up to varlen_wide_pairs pairs: a
  // whole warp per pair as well. A launch knows the average count, not its spread; wider shapes win
  // where the counts vary from token to token (a pair's warp walks its own count, not the longest
  // of its team's), and with many states also where they do not. Time / the 8-lane shape, x32x128,
  // uniform / ragged counts (1 to 2S - 1 states, S on average): H200 (session 31,
  // docs/perf/raw-2026-12-06-s31/run4-h200, 3 passes), 256 tokens, S64 0.967 / 0.731, S16 1.088 /
  // 0.792. H100 (session 34, docs/perf/raw-2026-12-07-s34/run3-h100, 4 passes), 512 to 4096 tokens:
  // S32 and S64 0.85-0.94 / 0.80-0.93, S16 0.92-0.97 / 0.78-0.92, S8 1.00-1.13 / 0.73-0.88, S4
  // 1.10-1.38 / 0.86-1.02; 256 tokens S32 0.99 / 0.80 (ragged: 31 on average, as mean_count()
  // rounds down), S16 1.09 / 0.82 (sessions 32 and 34, two more H100s, 1024 tokens S16: 0.93-0.95 /
  // 0.84-0.85; 4096 tokens, 2^17 pairs, one pair per team thread: S16 0.97 / 0.92, S32 and S64 0.94
  // / 0.92-0.93). Session 36 (docs/perf/raw-2026-12-07-s36, two H100 runs of 5 passes, 2048-16384
  // tokens): S16-S64 at 8192-16384 tokens 0.936-0.955 / 0.935-0.945 (the rule then stopped at
  // 4096), S16 ragged (15 on average) 0.89-0.94, S12 from 512 tokens 0.945-0.990 / 0.749-0.938
  // (ragged: 11 on average; 256 tokens 1.125 / 0.835), S8 1.07-1.15 / 0.85-0.90, S4 1.24-1.48 /
  // 0.98-1.06; at 2048-4096 tokens the built-in shape took the time of the forced warp shape
  // (0.999-1.002 of it); a third run with this rule: the 8-lane shape 1.02-1.12 x the built-in
  // shape's time at S16-S64, 2048-16384 tokens. So from 32 states on average, and from 12 (uniform
  // S12: 2-5 % ahead at 512-2048 tokens, within 2.5 % either way at 4096-16384; 11 not measured
  // with uniform counts) at 512 tokens and more, up to 16384 tokens (not measured beyond), keeping
  // one pair per team thread where the large-launch rules below would give 32 lanes two (a shape
  // not measured). bf16 keeps 8 lanes (32 lanes at 256 tokens S64: uniform 1.13-1.19, ragged
  // 0.90-0.91; 16 lanes at 1024 tokens 0.93-0.95 on one H100 pass, at 256 tokens
  // uniform 1.12-1.13).
  const bool varlen_warp =
      num_states == 0 && value_size == 4 && num_pairs <= varlen_wide_pairs &&
      (mean_states >= varlen_wide_mean_states ||
       (mean_states >= varlen_mid_mean_states && num_pairs >= varlen_mid_pairs));
  if (varlen_warp) shape.vector_length = 32;
  shape.team_size = 128 / shape.vector_length;
  const int warp_threads = 32 / shape.vector_length;
  while (shape.tokens_per_group < warp_threads && 2 * shape.tokens_per_group <= num_tokens)
    shape.tokens_per_group *= 2;
  while (shape.team_size > 1 && shape.team_size / 2 >= num_pairs) shape.team_size /= 2;
  // Enough pairs to fill the GPU (the sweeps' large shapes): one item per lane -> LanePairs, 8
  // tokens of a head per team thread with the L2 row prefetch (bf16 65536x32x64: 73 -> 101 % of
  // copy; N states: see below); two or three items per lane -> L2 prefetch of the rows (bf16
  // 65536x32x128: 92 -> 98 %, x576: 93 -> 102 %, float x64: 94 -> 100 %); four or more items per
  // lane hide the latency themselves (prefetch measured 5-7 % slower there, LanePairs 4-10 %
  // slower).
  // LanePairs with the prefetch keeps at most 640 threads resident per multiprocessor: with 768
  // (6 teams of 128) the prefetched lines of bf16 65536x32x64 left L2 before their loads (ncu: 579
  // instead of 558 MB read from DRAM) and it ran at 96 % of copy instead of 100 % (same run).
  const int items_per_lane = (vector_iters + shape.vector_length - 1) / shape.vector_length;
  if (num_pairs >= large_launch_pairs) {
    if (items_per_lane <= 1) {
      shape.pairs_per_thread = 8;
      shape.prefetch_rows = true;
      shape.max_resident_threads = 640;
    } else if (items_per_lane <= 3) {
      shape.prefetch_rows = true;
    }
  }
  if (num_states != 2) {
    shape.max_resident_threads = 0;
    const bool large = num_pairs >= large_launch_pairs;
    // The row prefetch (PairsPerThread<1, true>, LanePairs<8, true>) from 4 states on (H200, 3
    // alternating rounds, 16384x32x128, S64 4096x32x128, % of copy, the built-in form forced
    // without -> with: bf16 S8 81.9 -> 85.1, S16 81.1 -> 88.2, S64 78.7 -> 84.0; float S8 91.8 ->
    // 97.6, S16 92.4 -> 97.3, S64 86.5 -> 92.0). A row of one batch (4 states) has nothing ahead in
    // it: its loads ask for the lane's next pack iteration instead (session 12, the built-in shape
    // against the prefetching form: bf16 S4 79.2-80.4 -> 80.5-82.2 on three H200s, float S4
    // 87.1-87.9 -> 89.4-89.5 on two; S5-S7 not measured). Not when the count varies per token
    // (num_states 0: not measured) nor for 8-byte values (not measured).
    shape.prefetch_states = large && num_states >= 4 && (value_size == 2 || value_size == 4);
    // Pairs per team thread:
    // - LanePairs (K = 8: the K pairs' weights one per lane instead of every lane repeating each
    //   pair's passes) for 16-bit types with up to 16 states per token (H200, 16384x32x128 bf16 S4
    //   63 -> 73 % of copy, S8 72 -> 76, S16 73 -> 77; float lost 10-17 points, bf16 S64 56 ->
    //   47).
    // - Varlen float launches of a warp per pair (varlen_warp above): one pair, the shape measured.
    // - Otherwise, where the 2-way merge takes LanePairs (rows of one pack per lane), one pair per
    //   team thread with the prefetch, as two pairs per team thread have no prefetching form
    //   (H200, session 14, 3 alternating passes, bf16 4096x32x64 S64: 60.3 % of copy with two
    //   pairs, 65.4 with one, 67.3 with one and the prefetch; session 16, 2 runs, 4096x32x32 two
    //   pairs -> one with the prefetch: float S8 58.6-59.3 -> 61.7-62.8, S16 60.0-60.5
    //   -> 66.3-66.6, S64 62.4-63.8 -> 69.7-70.1), two pairs without the prefetch.
    // - Otherwise one pair.
    if (large && value_size == 2 && num_states >= 1 && num_states <= 16)
      shape.pairs_per_thread = 8;
    else if (varlen_warp)
      shape.pairs_per_thread = 1;
    else if (shape.pairs_per_thread > 2)
      shape.pairs_per_thread = shape.prefetch_states ? 1 : 2;
    // 16-bit LanePairs with the prefetch: batches of 2 states and 8 teams per multiprocessor where
    // a row has 8-15 states, or 16 and more in launches of under 2^18 pairs (H200, four runs, bf16,
    // % of copy, batches of 4 -> 2: S8 16384x32x128 82.7-85.0 -> 86.3-88.8, 4096x32x64 65-67 ->
    // 79-80, x256 83-84 -> 85-88, x576 81 -> 82; S16 4096x32x64 65.6 -> 81.1, x256 84.6 -> 87.6,
    // x576 83.7 -> 85.6: one wave of 1024 teams instead of 1.29; but S16 16384x32x128 86.3-86.6 ->
    // 82.0-82.4 on three of the four runs; S4 80.5-82.2 -> 79.4-80.3).
    // The state ring (its loads run across the rows of a team thread's 8 pairs) where a launch has
    // at least 2^23 row packs per state (H200, session 14, bf16, % of copy, 3 alternating passes,
    // the prefetching form without the ring -> the ring in batches of 2 / of 4: 16384x32x128 S4
    // 79.8 -> 88.7 / 86.8, S8 88.6 -> 92.3 / 92.4, S16 88.4 -> 91.2 / 94.5; 4096x32x576 S8 81.2 ->
    // 90.6 / 90.0, S16 86.0 -> 93.4 / 91.5; but 4096x32x128 S8 85.4 -> 81.9 / 70.4, S16 80.8 ->
    // 69.2 / 72.0, x64 S8 80.2 -> 75.7 / 64.5; x256 S8 87.5 -> 86.0 / 88.7, S16 89.8 -> 87.4 /
    // 90.0): in batches of 2 states below 16 states, and with 32 vector lanes (x576 S16: narrow
    // ahead in all four runs of sessions 13 and 14; x128, 8 lanes: batches of 4 ahead).
    shape.state_ring = shape.prefetch_states && value_size == 2 && shape.pairs_per_thread == 8 &&
                       num_pairs * vector_iters >= (std::int64_t(1) << 23);
    shape.narrow_state_batches =
        shape.prefetch_states && value_size == 2 && shape.pairs_per_thread == 8 &&
        (shape.state_ring
             ? num_states < 16 || shape.vector_length >= 32
             : num_states >= 8 && (num_states < 16 || num_pairs < (std::int64_t(1) << 18)));
    // Below that, on a device whose multiprocessors are known, by the waves of teams (a team
    // thread moves the rows of 8 pairs in one step, so a launch waits on the teams of its last,
    // partial wave): batches of 2 without the ring where every team fits into one wave of
    // nway_narrow_teams_per_sm per multiprocessor; the ring in batches of 2 where the last wave of
    // teams in batches of 4 (nway_lane_pairs_teams_per_sm) is less than 0.4 full and the last
    // wave in batches of 2 fuller; the ring in batches of 4 otherwise (fit_lane_form: the ring in
    // batches of 2 has no room at 15 and more states of 8 vector lanes, which then take it in
    // batches of 4). H200 (132 SMs), session 16, 3 alternating passes, bf16, % of copy, the
    // session 13 rule -> this one (docs/perf/raw-2026-12-04-s16, run f), 32 heads: x128 4096
    // tokens (0.97 waves of 8) S4 69.0 -> 77.1, S8/S16 unchanged; 4352 (1.37 waves of 6) S8 60.6
    // -> 72.7, S16 65.3 -> 73.2; 5120 S8 66.9 -> 81.1, S16 63.8 -> 83.6; 7168 (2.26 waves of 6,
    // 1.70 of 8) S8 80.2 -> 84.2; 8192 S16 77.7 -> 88.1; over 100 shapes (x64, x128, x256,
    // 4096-16384 tokens, S4-S16) median +2.8, 4 below -1 (x64 7168 S16 76.5 -> 70.5); over 36
    // shapes the rule was not fitted on (x64-x256, 8, 32 and 128 heads) median +5.0, one below -1
    // (28672x8x128 S16 82.7 -> 79.3).
    if (multiprocessors > 0 && shape.prefetch_states && value_size == 2 &&
        shape.pairs_per_thread == 8 && !shape.state_ring) {
      const std::int64_t per_team = std::int64_t(shape.team_size) * shape.pairs_per_thread;
      const std::int64_t teams = (num_pairs + per_team - 1) / per_team;
      const std::int64_t narrow_wave = std::int64_t(nway_narrow_teams_per_sm) * multiprocessors;
      const std::int64_t wide_wave = std::int64_t(nway_lane_pairs_teams_per_sm) * multiprocessors;
      // Teams in the last wave, of waves of `wave` teams.
      const auto last = [teams](const std::int64_t wave) { return (teams - 1) % wave + 1; };
      const bool one_wave = teams <= narrow_wave;
      const bool narrow_fuller = 10 * last(wide_wave) < 4 * wide_wave &&
                                 last(narrow_wave) * wide_wave > last(wide_wave) * narrow_wave;
      shape.narrow_state_batches = one_wave || narrow_fuller;
      shape.state_ring = !one_wave;
    }
  }
  return shape;
}

/// The 16-bit N-state LanePairs form (batches of 2 states: `narrow`, the state ring: `ring`) a
/// built-in launch takes, `fits(narrow, ring)` saying whether a form's teams fit into shared
/// memory: the first that fits of the form as chosen, the ring in batches of 4 (the ring is worth
/// more than the batches of 2: H200, session 14, bf16 16384x32x128 S8 88.6 % of copy without it,
/// 92.3 / 92.4 with it in batches of 2 / 4), the batches without the ring, neither. False where
/// none fits (LanePairs does not: one pair per team thread with the row prefetch, or two pairs
/// without it, instead).
template <class Fits>
bool fit_lane_form(bool& narrow, bool& ring, const Fits& fits) {
  const bool forms[4][2] = {{narrow, ring}, {false, ring}, {narrow, false}, {false, false}};
  for (const auto& form : forms) {
    if (fits(form[0], form[1])) {
      narrow = form[0];
      ring = form[1];
      return true;
    }
  }
  return false;
}

/// Where the merge's one parallel_for goes: launched at once (null, the merge functions), or
/// stored in this PlannedLaunch, with its functor and policy, to be launched later
/// (MergeAttn::MergePlan: the checks, the launch shape, the functor and the policy made once; on
/// CUDA also the launch captured in a graph, as the PlannedLaunch asks). One per host thread; set
/// only by CaptureLaunch.
inline PlannedLaunch*& launch_capture() {
  static thread_local PlannedLaunch* target = nullptr;
  return target;
}

/// While it lives, the calling thread's merge launches are stored in `target` instead of run.
class CaptureLaunch {
 public:
  explicit CaptureLaunch(PlannedLaunch& target) : m_previous(launch_capture()) {
    launch_capture() = &target;
  }
  ~CaptureLaunch() { launch_capture() = m_previous; }
  CaptureLaunch(const CaptureLaunch&) = delete;
  CaptureLaunch& operator=(const CaptureLaunch&) = delete;

 private:
  PlannedLaunch* m_previous;
};

/// Launches the merge of `states` into `output` (and `output_lse`) on `exec`, the LSE convention
/// read as Lse says.
template <bool UsePacks, class Lse, class ExecSpace, class OutputView, class OutputLseView,
          class States>
void launch_merge_as(const ExecSpace& exec, const OutputView& output,
                     const OutputLseView& output_lse, const States& states,
                     const LseConvention& conv, const LaunchShape* shape_override) {
  using functor_type = MergeFunctor<ExecSpace, OutputView, OutputLseView, States, UsePacks, Lse>;
  functor_type functor(output, output_lse, states, conv);
  int multiprocessors = 0;  // the N-state rule's waves of teams (CUDA)
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value && functor_type::weight_cache)
    multiprocessors = exec.cuda_device_prop().multiProcessorCount;
#endif
  const LaunchShape shape = shape_override != nullptr
                                ? *shape_override
                                : choose_launch_shape<ExecSpace>(
                                      static_cast<int>(sizeof(typename functor_type::value_type)),
                                      functor.vector_iterations(), functor.num_tokens(),
                                      static_cast<std::int64_t>(output.extent(1)),
                                      states.uniform_count(), multiprocessors, states.mean_count());
  const auto shape_text = [&] {
    return "(team_size " + std::to_string(shape.team_size) + " x vector_length " +
           std::to_string(shape.vector_length) + ", pairs_per_thread " +
           std::to_string(shape.pairs_per_thread) + ")";
  };
  if (shape.team_size < 1 || shape.vector_length < 1)
    throw std::invalid_argument(
        "MergeAttn::Impl::launch_merge: a launch shape needs at least one thread and one lane " +
        shape_text());
  if (!functor_type::host_space && std::int64_t(shape.team_size) * shape.vector_length > 1024)
    throw std::invalid_argument(
        "MergeAttn::Impl::launch_merge: a GPU team has at most 1024 threads " + shape_text());
  if (functor_type::weight_cache &&
      std::int64_t(shape.team_size) * shape.vector_length > nway_max_team_threads)
    throw std::invalid_argument(
        "MergeAttn::Impl::launch_merge: an N-state launch shape has at most " +
        std::to_string(nway_max_team_threads) + " threads per team " + shape_text());
  const int asked = shape.pairs_per_thread;
  // LanePairs moves whole packs only: rows with tail elements run as two pairs per thread.
  const bool whole_packs = functor.num_packs() == functor.vector_iterations();
  int lane_k = (functor_type::lane_pairs && whole_packs) || functor_type::weight_cache
                   ? (asked == 4 || asked == 8 ? asked : 0)
                   : 0;
  functor.set_vector_length(shape.vector_length);
  // The 16-bit prefetching LanePairs forms: in batches of 2 states, and with the state ring.
  constexpr bool two_byte = sizeof(typename functor_type::value_type) == 2 && UsePacks;
  bool narrow = two_byte && lane_k == 8 && shape.prefetch_states && shape.narrow_state_batches;
  bool ring = two_byte && lane_k == 8 && shape.prefetch_states && shape.state_ring;
  bool lane_unfit = false;  // a built-in LanePairs shape without room in shared memory
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value && functor_type::weight_cache) {
    // The N-state LanePairs form needs its K pairs' weight caches (and its state ring) in team
    // scratch for the launch bounds' teams per multiprocessor (nway_min_teams): Kokkos refuses the
    // launch otherwise. A built-in shape takes the first form below that fits (on the H200 the
    // ring in batches of 4 instead of 2 for 16-bit rows of 8 vector lanes with 15 states: 8 teams
    // of 29.2 KB do not fit in 228 KB; where none fits, one pair per team thread with the row
    // prefetch, or two pairs without it: head size 32 with 16-bit values, 4 vector lanes and 32
    // team threads of 8 pairs' weights (H200, session 16, 2 runs, bf16 4096x32x32, two pairs ->
    // one with the prefetch: S8 46.6-47.2 -> 54.3-55.4 % of copy, S16 41.7-42.3 -> 54.0-54.8), or
    // a device with less shared memory, e.g. 100 KB per SM: a team of 16 threads with K = 8 and 16
    // float weights per pair takes ~12 KB); a forced shape is refused below. The ring needs sm_80
    // (cp.async): a built-in shape runs without it below that, a forced one is refused.
    const cudaDeviceProp& prop = exec.cuda_device_prop();
    if (ring && prop.major < 8) {
      if (shape_override != nullptr)
        throw std::invalid_argument(
            "MergeAttn::Impl::launch_merge: the state ring needs compute capability 8.0 "
            "(cp.async), this device has " +
            std::to_string(prop.major) + "." + std::to_string(prop.minor) + " " + shape_text());
      ring = false;
    }
    // A form fits where the teams its launch bounds ask for (the batches of 2 states, or of 4:
    // with or without the ring, the same bounds) have room in shared memory.
    using value_type = typename functor_type::value_type;
    const auto fits = [&](const bool two, const bool with_ring) {
      const int slots = with_ring ? functor_type::ring_slots(two) : 0;
      return teams_per_shared_memory(
                 std::int64_t(prop.sharedMemPerMultiprocessor),
                 std::int64_t(prop.reservedSharedMemPerBlock),
                 std::int64_t(functor.scratch_bytes(shape.team_size, lane_k, slots))) >=
             (two ? nway_min_teams<value_type, LanePairs<8, true, 2>>()
                  : nway_min_teams<value_type, LanePairs<8>>());
    };
    if (lane_k > 0 && shape_override == nullptr && !fit_lane_form(narrow, ring, fits)) {
      lane_k = 0;
      lane_unfit = true;
    }
  }
#endif
  if (lane_k == 0) narrow = ring = false;
  const int k = lane_k > 0 ? lane_k : asked >= 2 && !(lane_unfit && shape.prefetch_states) ? 2 : 1;
  // LanePairs: a team thread's K slots are K consecutive tokens of one head.
  functor.set_tokens_per_group(lane_k > 0 ? shape.tokens_per_group * lane_k
                                          : shape.tokens_per_group);
  functor.set_prefetch_rows(shape.prefetch_rows);
  // The league covers every slot once; beyond 2^30 teams the functor loops (64-bit index).
  const std::int64_t per_team = functor_type::slots_per_team(shape.team_size, k);
  const std::int64_t teams = (functor.num_slots() + per_team - 1) / per_team;
  const int league_size = static_cast<int>(teams < (std::int64_t(1) << 30) ? teams : (1 << 30));
  std::size_t scratch =
      functor.scratch_bytes(shape.team_size, lane_k, ring ? functor_type::ring_slots(narrow) : 0);
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    const std::int64_t team_threads = std::int64_t(shape.team_size) * shape.vector_length;
    if (shape.max_resident_threads > 0 && team_threads > 0) {
      // Team scratch that lets at most max_resident_threads / team_threads teams share a
      // multiprocessor (within the default per-team limit; the inverse of
      // teams_per_shared_memory).
      const cudaDeviceProp& prop = exec.cuda_device_prop();
      const std::int64_t teams =
          std::max<std::int64_t>(1, shape.max_resident_threads / team_threads);
      const std::int64_t pad = std::int64_t(prop.sharedMemPerMultiprocessor) / teams -
                               std::int64_t(prop.reservedSharedMemPerBlock) - kokkos_shared_margin;
      const std::int64_t cap = std::int64_t(prop.sharedMemPerBlock) - kokkos_shared_margin;
      const std::int64_t want = std::min(pad, cap);
      if (want > std::int64_t(scratch)) scratch = static_cast<std::size_t>(want);
    }
  }
#endif
  // One launch in the pair form `tag`. A forced shape the kernel cannot take on this device (its
  // registers, its team scratch, the launch bounds) is refused with std::invalid_argument before
  // the launch, rather than by Kokkos' runtime error from inside parallel_for; built-in shapes
  // skip the query (small launches: no host work beyond the launch itself). HintLightWeight: the
  // functor travels as a kernel argument (CUDA: up to 4 KB) instead of through constant memory,
  // which Kokkos uses from 512 bytes on and which costs an event wait on the host and a copy in the
  // stream before every launch (the masked form with LayoutStride views is 504 bytes with Kokkos
  // 3.4, so the default path would be one view away from it).
  const auto run = [&](auto tag) {
    // N-state forms on GPU-like spaces (weight cache): launch bounds of 128 threads per team and 7
    // teams per multiprocessor, so at most 72 registers (the two-pairs form for bf16: 80 -> 72,
    // 43.75 % occupancy; H200: bf16 16384x32x128 S4 61.7 -> 63.3 % of copy, S8 71.4 -> 72.8, S16
    // 75.1 -> 74.1, 4096 tokens S64 51.3 -> 56.4; float unchanged); 6 for the 16-bit LanePairs
    // form (nway_min_teams). Their launch shapes take at most 128 threads per team.
    using Bounds = std::conditional_t<
        functor_type::weight_cache,
        Kokkos::LaunchBounds<nway_max_team_threads,
                             nway_min_teams<typename functor_type::value_type, decltype(tag)>()>,
        Kokkos::LaunchBounds<0, 0>>;
    const auto make_policy = [&](const ExecSpace& space, const int team_size) {
      auto made =
          Kokkos::Experimental::require(Kokkos::TeamPolicy<ExecSpace, Bounds, decltype(tag)>(
                                            space, league_size, team_size, shape.vector_length),
                                        Kokkos::Experimental::WorkItemProperty::HintLightWeight);
      if (scratch > 0) made.set_scratch_size(0, Kokkos::PerTeam(scratch));
      return made;
    };
    if (shape_override != nullptr) {
      // Asked of a one-thread policy: a host space's policy constructor aborts for a team larger
      // than its thread pool, before team_size_max could be asked of it.
      const int most = make_policy(exec, 1).team_size_max(functor, Kokkos::ParallelForTag());
      if (shape.team_size > most)
        throw std::invalid_argument(
            "MergeAttn::Impl::launch_merge: " +
            (most < 1 ? std::string("no team size fits this kernel")
                      : "this kernel takes at most " + std::to_string(most) + " team threads") +
            " with vector_length " + std::to_string(shape.vector_length) + " and " +
            std::to_string(scratch) + " bytes of team scratch on this device " + shape_text());
    }
    const auto policy = make_policy(exec, shape.team_size);
    // The label built once: Kokkos takes a std::string, which this literal would allocate at
    // every call (session 24: with the team-launch patch, 0.2-0.3 us less host time per launch).
    static const std::string label("MergeAttn::merge_attn_states");
    if (PlannedLaunch* const target = launch_capture()) {
      target->launch = [policy, functor] { Kokkos::parallel_for(label, policy, functor); };
#if defined(KOKKOS_ENABLE_CUDA)
      // The same launch on the capture stream's instance, captured into a graph where the plan
      // asks for one (MergeAttn::PlanLaunch).
      if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value)
        plan_cuda_graph(*target, exec, [&](const Kokkos::Cuda& space) {
          Kokkos::parallel_for(label, make_policy(space, shape.team_size), functor);
        });
#endif
      return;
    }
    Kokkos::parallel_for(label, policy, functor);
  };
  if constexpr (functor_type::weight_cache && UsePacks) {
    if (shape.prefetch_states) {
      if constexpr (two_byte) {
        if (narrow) return ring ? run(LanePairs<8, true, 2, true>{}) : run(LanePairs<8, true, 2>{});
        if (ring) return run(LanePairs<8, true, 4, true>{});
      }
      if (lane_k == 8) return run(LanePairs<8, true>{});
      if (lane_k == 0 && k == 1) return run(PairsPerThread<1, true>{});
    }
  }
  if constexpr (functor_type::lane_pairs || functor_type::weight_cache) {
    if (lane_k > 0) return lane_k == 8 ? run(LanePairs<8>{}) : run(LanePairs<4>{});
  }
  if (k == 2)
    run(PairsPerThread<2>{});
  else
    run(PairsPerThread<1>{});
}

/// Launches the merge of `states` into `output` (and `output_lse`) on `exec`: the 2-way fast path
/// on GPU-like spaces with the default LSE convention as compile-time constants (DefaultLse),
/// everything else with the convention read at run time.
template <bool UsePacks, class ExecSpace, class OutputView, class OutputLseView, class States>
void launch_merge(const ExecSpace& exec, const OutputView& output, const OutputLseView& output_lse,
                  const States& states, const LseConvention& conv,
                  const LaunchShape* shape_override) {
  constexpr bool host_like =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if constexpr (UsePacks && States::fixed_count == 2 && !host_like) {
    if (conv.is_default())
      return launch_merge_as<UsePacks, DefaultLse>(exec, output, output_lse, states, conv,
                                                   shape_override);
  }
  launch_merge_as<UsePacks, RuntimeLse>(exec, output, output_lse, states, conv, shape_override);
}

}  // namespace Impl
}  // namespace MergeAttn

#endif  // MERGEATTN_IMPL_MERGEKERNEL_HPP
