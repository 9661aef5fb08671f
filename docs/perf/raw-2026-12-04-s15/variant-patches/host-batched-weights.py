import sys
p=sys.argv[1]
s=open(p).read()
def rep(a,b):
    global s
    assert s.count(a)==1,a
    s=s.replace(a,b)
rep("""    } else if (p == -inf) {
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
  }""","""    } else if (p == -inf) {
      wt.mode = RowMode::copy;
      wt.arg = 1;
      wt.lse = s;
    } else {
      wt.mode = RowMode::weighted;
      return true;
    }
    return false;
  }
  // A weighted pair's maximum, 1 / (1 + e), weights and output LSE (two finite LSEs), with the
  // larger LSE's term 1 and e = exp(smaller - larger). Host spaces: branch-free (select_float),
  // so that the compiler vectorises host_runs' loop over several pairs.
  KOKKOS_INLINE_FUNCTION void two_state_terms(const compute_type p, const compute_type s,
                                              compute_type& m, compute_type& inv,
                                              compute_type& w0, compute_type& w1,
                                              compute_type& lse) const {
    const bool p_larger = p > s;
    compute_type e;
#if !defined(__CUDA_ARCH__)
    if constexpr (host_space && std::is_same<compute_type, float>::value) {
      m = select_float(p_larger, p, s);
      e = exp_nonpositive(select_float(p_larger, s - p, p - s));
      inv = compute_type(1) / (compute_type(1) + e);
      const compute_type w_min = e * inv;
      w0 = select_float(p_larger, inv, w_min);
      w1 = select_float(p_larger, w_min, inv);
      lse = m + log1p_unit(e);
      return;
    }
#endif
    m = p_larger ? p : s;
    e = exp_nonpositive(p_larger ? s - p : p - s);
    inv = compute_type(1) / (compute_type(1) + e);
    const compute_type w_min = e * inv;
    w0 = p_larger ? inv : w_min;
    w1 = p_larger ? w_min : inv;
    lse = m + log1p_unit(e);
  }""")
rep("""  // Two states (2-way forms): the modes and weights directly, one exponential (the larger LSE's
  // term is 1); the same values as the N-state passes, with fewer instructions and registers
  // (the generic passes measured 10-30 % slower on the 2-way path of the H200).
  KOKKOS_INLINE_FUNCTION void two_state_weights(Weights& wt, const compute_type p,
                                                const compute_type s) const {""","""  // Two states (2-way forms): the modes and weights directly, one exponential (the larger LSE's
  // term is 1); the same values as the N-state passes, with fewer instructions and registers
  // (the generic passes measured 10-30 % slower on the 2-way path of the H200).
  KOKKOS_INLINE_FUNCTION void two_state_weights(Weights& wt, const compute_type p,
                                                const compute_type s) const {
    if (two_state_mode(wt, p, s)) two_state_terms(p, s, wt.m, wt.inv, wt.w[0], wt.w[1], wt.lse);
  }
  // A two-state pair's mode and, unless it is weighted (true: two_state_terms), its output LSE,
  // copied state or fill value.
  KOKKOS_INLINE_FUNCTION bool two_state_mode(Weights& wt, const compute_type p,
                                             const compute_type s) const {""")
a=s[s.index("  // Host spaces: team thread r of team b takes slots [(b * team_size + r) * host_span, + host_span)"):s.index("  // LanePairs<K>: team thread r of team b takes slots [(b * team_size + r) * K, + K) (then strides")]
b='''  // Host spaces: team thread r of team b takes slots [(b * team_size + r) * host_span, + host_span)
  // (then strides over the league): token-major slots walked in order, so the rows stream through
  // memory, and (t, h) stepped instead of divided per pair. Two states: the weights of host_batch
  // slots at a time, in one loop the compiler vectorises (two_state_terms with the branch-free
  // float exponential and logarithm of MergeAttn_HostRows.hpp: the same operations as for one
  // pair, the same bits), then their rows: one pair's weights are a chain of dependent operations
  // longer than its 16-bit row of 128 values.
  static constexpr int host_batch = 8;
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
      // (t, h) of slot q > begin from q - 1's: token-major order steps through the heads.
      const auto next_slot = [&](const std::int64_t q) {
        if (m_group_log2 == 0) {
          if (++h == m_num_heads) {
            h = 0;
            ++t;
          }
          in_range = t < m_num_tokens;
        } else {
          in_range = slot_pair(q, t, h);
        }
      };
      if constexpr (fixed == 2) {
        for (std::int64_t q0 = begin; q0 < end; q0 += host_batch) {
          const int n = end - q0 < host_batch ? static_cast<int>(end - q0) : host_batch;
          std::int64_t bt[host_batch], bh[host_batch];
          bool live[host_batch];
          compute_type p[host_batch], s[host_batch];
          for (int j = 0; j < host_batch; ++j) {
            live[j] = false;
            p[j] = s[j] = 0;  // a slot without a pair: finite LSEs, terms computed and unused
            if (j >= n) continue;
            if (q0 + j > begin) next_slot(q0 + j);
            bt[j] = t;
            bh[j] = h;
            live[j] = in_range && m_states.active(t);
            if (!live[j]) continue;
            p[j] = empty_as_minus_inf(
                m_states.template lse<compute_type>(0, t, h, m_lse.tokens_heads()));
            s[j] = empty_as_minus_inf(
                m_states.template lse<compute_type>(1, t, h, m_lse.tokens_heads()));
          }
          compute_type m[host_batch], inv[host_batch], w0[host_batch], w1[host_batch],
              lse[host_batch];
#if defined(_OPENMP)
#pragma omp simd
#endif
          for (int j = 0; j < host_batch; ++j)
            two_state_terms(p[j], s[j], m[j], inv[j], w0[j], w1[j], lse[j]);
          for (int j = 0; j < n; ++j) {
            if (!live[j]) continue;
            Weights wt;
            start_weights(wt, bt[j], nullptr, nullptr, 0);
            if (two_state_mode(wt, p[j], s[j])) {
              wt.m = m[j];
              wt.inv = inv[j];
              wt.w[0] = w0[j];
              wt.w[1] = w1[j];
              wt.lse = lse[j];
            }
            move_pair(team, bt[j], bh[j], wt);
          }
        }
      } else {
        for (std::int64_t q = begin; q < end; ++q) {
          if (q > begin) next_slot(q);
          if (!in_range || !m_states.active(t)) continue;
          compute_type lse[cached] = {};
          merge_pair(team, t, h, lse, nullptr);
        }
      }
    }
#else
    (void)team;
#endif
  }

'''
s=s.replace(a,b)
rep("""    if constexpr (fixed == 2)
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
  }""","""    if constexpr (fixed == 2)
      two_state_weights(wt, empty_as_minus_inf(preloaded[0]), empty_as_minus_inf(preloaded[1]));
    else
      nway_weights<true>(team, wt, t, h);
    move_pair<Prefetch>(team, t, h, wt);
  }

  // Pair (t, h) with its weights: the row, then the output LSE.
  template <int Prefetch = 0>
  KOKKOS_INLINE_FUNCTION void move_pair(const member_type& team, const std::int64_t t,
                                        const std::int64_t h, const Weights& wt) const {
    merge_mode_row<Prefetch>(team, t, h, wt);
    if constexpr (has_output_lse) {
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        lse_ref(m_output_lse, m_lse.output_tokens_heads(), t, h) =
            static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
      });
    }
  }""")
open(p,'w').write(s)
