// Test support for the merges of many states (N-way, variable length, masked, plans): host
// problems of stacked states, filling and reading device Views of any rank, bit comparisons.
#ifndef MERGEATTN_MANY_UTILS_HPP
#define MERGEATTN_MANY_UTILS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "MergeAttnTestUtils.hpp"

namespace MergeAttnTest {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Host data for merges of many states: per (token, head), a list of states, each an LSE (natural
/// log) and a row. Stored as N stacked states [s][t][h][d] with LSEs [s][h][t].
template <class T>
struct ManyProblem {
  std::int64_t states = 0, tokens = 0, heads = 0, head_size = 0;
  std::vector<T> x;        // [s][t][h][d]
  std::vector<float> lse;  // [s][h][t]
  std::int64_t xi(std::int64_t s, std::int64_t t, std::int64_t h, std::int64_t d) const {
    return ((s * tokens + t) * heads + h) * head_size + d;
  }
  std::int64_t li(std::int64_t s, std::int64_t h, std::int64_t t) const {
    return (s * heads + h) * tokens + t;
  }
};

/// LSEs uniform in [-8, 8]; a fraction of the states empty (+inf or -inf, half each); the tokens in
/// `all_empty` empty in every state.
template <class T>
ManyProblem<T> make_many(std::int64_t S, std::int64_t tokens, std::int64_t heads, std::int64_t d,
                         std::uint64_t seed, double empty_fraction = 0.2,
                         const std::vector<std::int64_t>& all_empty = {}) {
  ManyProblem<T> p;
  p.states = S;
  p.tokens = tokens;
  p.heads = heads;
  p.head_size = d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  p.x.resize(static_cast<std::size_t>(S * tokens * heads * d));
  for (auto& v : p.x) v = from_double<T>(4.0 * u(rng) - 2.0);
  p.lse.resize(static_cast<std::size_t>(S * heads * tokens));
  for (std::int64_t s = 0; s < S; ++s)
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t t = 0; t < tokens; ++t) {
        const double r = u(rng);
        float v = static_cast<float>(16.0 * u(rng) - 8.0);
        if (r < empty_fraction) v = r < empty_fraction / 2 ? kInf : -kInf;
        if (std::find(all_empty.begin(), all_empty.end(), t) != all_empty.end())
          v = (s % 2) ? kInf : -kInf;
        p.lse[p.li(s, h, t)] = v;
      }
  return p;
}

// Host <-> device for Views of any rank and layout, through a mirror of the same layout.
template <class View, class F>
void fill_view(const View& v, F&& value_at) {
  auto h = Kokkos::create_mirror_view(v);
  if constexpr (View::rank == 1) {
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = value_at(i);
  } else if constexpr (View::rank == 2) {
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j) h(i, j) = value_at(i, j);
  } else if constexpr (View::rank == 3) {
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j)
        for (std::size_t k = 0; k < h.extent(2); ++k) h(i, j, k) = value_at(i, j, k);
  } else {
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j)
        for (std::size_t k = 0; k < h.extent(2); ++k)
          for (std::size_t l = 0; l < h.extent(3); ++l) h(i, j, k, l) = value_at(i, j, k, l);
  }
  Kokkos::deep_copy(v, h);
}

template <class View>
auto to_host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

template <class T>
T nan_value() {
  return from_double<T>(std::nan(""));
}

/// The number of elements of two host Views of rank 2 or 3 and the same extents whose bits differ
/// (rank 2, the LSEs: NaN against NaN counts as the same).
template <class A, class B>
std::int64_t count_different_bits(const A& a, const B& b) {
  std::int64_t bad = 0;
  if constexpr (A::rank == 2) {
    for (std::size_t i = 0; i < a.extent(0); ++i)
      for (std::size_t j = 0; j < a.extent(1); ++j)
        bad += same_bits(a(i, j), b(i, j)) || (std::isnan(a(i, j)) && std::isnan(b(i, j))) ? 0 : 1;
  } else {
    for (std::size_t i = 0; i < a.extent(0); ++i)
      for (std::size_t j = 0; j < a.extent(1); ++j)
        for (std::size_t k = 0; k < a.extent(2); ++k)
          bad += same_bits(a(i, j, k), b(i, j, k)) ? 0 : 1;
  }
  return bad;
}

}  // namespace MergeAttnTest

#endif  // MERGEATTN_MANY_UTILS_HPP
