import sys
p=sys.argv[1]
s=open(p).read()
# 1. host_runs: batches of 8 pairs for the 2-way float-compute forms
old_doc="""  // (then strides over the league): token-major slots walked in order, so the rows stream through
  // memory, and (t, h) stepped instead of divided per pair. Loading the LSEs of several pairs
  // before their rows (to vectorise their weights) measured up to 45 % slower for float rows of
  // 128: one pair at a time, its weights from the branch-free float functions of
  // MergeAttn_HostRows.hpp (the C library's exp and log1p cost about 10 ns per pair).
  KOKKOS_INLINE_FUNCTION void host_runs(const member_type& team) const {
#if !defined(__CUDA_ARCH__)
    const std::int64_t span = host_span;"""
new_doc="""  // (then strides over the league): token-major slots walked in order, so the rows stream through
  // memory, and (t, h) stepped instead of divided per pair. The weights come from the branch-free
  // float functions of MergeAttn_HostRows.hpp (the C library's exp and log1p cost about 10 ns per
  // pair); the 2-way forms with float weights compute them for 8 pairs at once
  // (host_two_weights8: AVX2 where the CPU has it, the same bits as one pair at a time), because
  // one pair's chain of dependent operations took more time than its row of 128 16-bit values.
  KOKKOS_INLINE_FUNCTION void host_runs(const member_type& team) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (fixed == 2 && std::is_same<compute_type, float>::value) {
      // Up to 8 pairs: their LSEs first (+inf read as -inf), then their weights at once, then the
      // rows one pair at a time.
      std::int64_t bt[8], bh[8];
      float bp[8], bs[8];
      int n = 0;
      const auto flush = [&]() {
        for (int j = n; j < 8; ++j) bp[j] = bs[j] = 0.0f;  // unused lanes: finite inputs
        float w0[8], w1[8], lse[8];
        host_two_weights8(m_row_isa, bp, bs, m_lse.base2(), w0, w1, lse);
        const float inf = infinity<float>();
        for (int j = 0; j < n; ++j) {
          Weights wt;
          start_weights(wt, bt[j], nullptr, nullptr);
          if (bp[j] > -inf && bs[j] > -inf) {  // both finite: what two_state_weights computes
            const bool p_larger = bp[j] > bs[j];
            wt.mode = RowMode::weighted;
            wt.m = p_larger ? bp[j] : bs[j];
            wt.inv = p_larger ? w0[j] : w1[j];
            wt.w[0] = w0[j];
            wt.w[1] = w1[j];
            wt.lse = lse[j];
          } else {
            two_state_weights(wt, bp[j], bs[j]);  // an empty or NaN state
          }
          merge_mode_row(team, bt[j], bh[j], wt);
          if constexpr (has_output_lse)
            lse_ref(m_output_lse, m_lse.output_tokens_heads(), bt[j], bh[j]) =
                static_cast<typename OutputLseView::non_const_value_type>(wt.lse);
        }
        n = 0;
      };
      host_walk(team, [&](const std::int64_t t, const std::int64_t h) {
        bt[n] = t;
        bh[n] = h;
        bp[n] = empty_as_minus_inf(m_states.template lse<float>(0, t, h, m_lse.tokens_heads()));
        bs[n] = empty_as_minus_inf(m_states.template lse<float>(1, t, h, m_lse.tokens_heads()));
        if (++n == 8) flush();
      });
      if (n > 0) flush();
    } else {
      host_walk(team, [&](const std::int64_t t, const std::int64_t h) {
        compute_type lse[cached] = {};
        if constexpr (fixed == 2) {
          lse[0] = m_states.template lse<compute_type>(0, t, h, m_lse.tokens_heads());
          lse[1] = m_states.template lse<compute_type>(1, t, h, m_lse.tokens_heads());
        }
        merge_pair(team, t, h, lse, nullptr);
      });
    }
#else
    (void)team;
#endif
  }

  // Host spaces: f(t, h) for each pair this team thread takes, in order (see host_runs).
  template <class F>
  void host_walk(const member_type& team, const F& f) const {
    const std::int64_t span = host_span;"""
assert old_doc in s
s=s.replace(old_doc,new_doc)
old_loop="""        if (!in_range || !m_states.active(t)) continue;
        compute_type lse[cached] = {};
        if constexpr (fixed == 2) {
          lse[0] = m_states.template lse<compute_type>(0, t, h, m_lse.tokens_heads());
          lse[1] = m_states.template lse<compute_type>(1, t, h, m_lse.tokens_heads());
        }
        merge_pair(team, t, h, lse, nullptr);
      }
    }
#else
    (void)team;
#endif
  }
"""
new_loop="""        if (!in_range || !m_states.active(t)) continue;
        f(t, h);
      }
    }
  }
"""
assert old_loop in s
s=s.replace(old_loop,new_loop)
# 2. two_state_weights: host float from host_two_weights (the same operations)
old_w="""      wt.mode = RowMode::weighted;
      const bool p_larger = p > s;
      wt.m = p_larger ? p : s;
      const compute_type e = exp_nonpositive(p_larger ? s - p : p - s);"""
new_w="""      wt.mode = RowMode::weighted;
      const bool p_larger = p > s;
      wt.m = p_larger ? p : s;
#if !defined(__CUDA_ARCH__)
      if constexpr (host_space && std::is_same<compute_type, float>::value) {
        // Hosts: the function host_runs computes eight pairs at a time with (the same bits).
        host_two_weights(p, s, m_lse.base2(), wt.w[0], wt.w[1], wt.lse);
        wt.inv = p_larger ? wt.w[0] : wt.w[1];
        return;
      }
#endif
      const compute_type e = exp_nonpositive(p_larger ? s - p : p - s);"""
assert old_w in s
s=s.replace(old_w,new_w)
open(p,'w').write(s)
