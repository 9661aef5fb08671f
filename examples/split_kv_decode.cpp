// Split-KV decode attention with MergeAttn.
//
// A few query tokens (e.g. one decode step of a tree or speculative batch) attend to one long KV
// cache. The cache is split into chunks; each chunk's partial attention is computed independently
// (in a real engine: in parallel, on different SMs or devices), giving a partial output and its
// log-sum-exp per (token, head); MergeAttn::merge_attn_states then folds the chunks into the
// attention over the whole cache. The result is checked against unsplit attention (the same
// kernels with one chunk) and against a double-precision host reference, and the time of each phase
// is printed.
//
//   split_kv_decode [--tokens=4] [--heads=8] [--head-size=128] [--kv-len=4096] [--chunks=8]
//                   [--repeat=5]
//
// Shapes: queries Q [tokens][heads][head_size], cache K, V [kv_len][heads][head_size]
// (LayoutRight), partial outputs O [chunks][tokens][heads][head_size], partial LSEs
// [chunks][heads][tokens]: each chunk is a MergeAttn state. Phases:
//   1. scores  S = Q_h K_{h,c}^T / sqrt(head_size)  (KokkosBatched::TeamGemm, one team per (c, h))
//   2. softmax P = exp(S - max) / sum, LSE = max + log(sum)     (one team per (c, h, token) row)
//   3. values  O_c(:, h, :) = P V_{h,c}                           (KokkosBatched::TeamGemm)
//   4. merge   fold chunks 1..C-1 into chunk 0 in place with MergeAttn::merge_attn_states
#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Team_Impl.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <MergeAttn.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

#if KOKKOS_VERSION >= 30700
#define SPLITKV_MATH Kokkos
#else
#define SPLITKV_MATH Kokkos::Experimental
#endif

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Team = Kokkos::TeamPolicy<Exec>::member_type;
using View3 = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
using View4 = Kokkos::View<float****, Kokkos::LayoutRight, Mem>;

struct Options {
  std::int64_t tokens = 4, heads = 8, head_size = 128, kv_len = 4096, chunks = 8, repeat = 5;
};

Options parse(int argc, char* argv[]) {
  Options o;
  struct Flag {
    const char* name;
    std::int64_t* value;
  };
  const Flag flags[] = {{"--tokens=", &o.tokens},       {"--heads=", &o.heads},
                        {"--head-size=", &o.head_size}, {"--kv-len=", &o.kv_len},
                        {"--chunks=", &o.chunks},       {"--repeat=", &o.repeat}};
  for (int i = 1; i < argc; ++i) {
    bool known = false;
    for (const Flag& f : flags) {
      const std::size_t n = std::strlen(f.name);
      if (std::strncmp(argv[i], f.name, n) != 0) continue;
      char* end = nullptr;
      const long long v = std::strtoll(argv[i] + n, &end, 10);
      if (end == argv[i] + n || *end != '\0' || v < 1)
        throw std::invalid_argument(std::string("split_kv_decode: ") + argv[i] +
                                    ": expected a positive integer");
      *f.value = v;
      known = true;
    }
    // Kokkos' own flags (--kokkos-...) were consumed by Kokkos::initialize.
    if (!known)
      throw std::invalid_argument(std::string("split_kv_decode: unknown argument '") + argv[i] +
                                  "'");
  }
  if (o.chunks > o.kv_len)
    throw std::invalid_argument("split_kv_decode: --chunks=" + std::to_string(o.chunks) +
                                " exceeds --kv-len=" + std::to_string(o.kv_len) +
                                " (every chunk needs at least one key)");
  if (o.chunks * o.heads * o.tokens > std::int64_t(1) << 30)
    throw std::invalid_argument(
        "split_kv_decode: chunks x heads x tokens above 2^30 (one team per row)");
  return o;
}

// Chunk c holds keys [begin(c), begin(c + 1)): balanced, never empty when chunks <= kv_len.
KOKKOS_INLINE_FUNCTION std::int64_t chunk_begin(std::int64_t c, std::int64_t kv_len,
                                                std::int64_t chunks) {
  return c * kv_len / chunks;
}

// Phases 1-3 for `chunks` chunks: partial outputs O [chunks][tokens][heads][d] and LSEs
// [chunks][heads][tokens]. S is the [chunks][heads][tokens][max chunk length] score buffer.
struct PartialAttention {
  View3 q, k, v;
  View4 s, o;
  View3 lse;
  std::int64_t chunks;

  std::int64_t tokens() const { return std::int64_t(q.extent(0)); }
  std::int64_t heads() const { return std::int64_t(q.extent(1)); }
  std::int64_t kv_len() const { return std::int64_t(k.extent(0)); }

  void scores() const {
    const auto q_ = q;
    const auto k_ = k;
    const auto s_ = s;
    const std::int64_t n = chunks, heads_ = heads(), len = kv_len();
    const float scale = 1.0f / std::sqrt(float(q.extent(2)));
    Kokkos::parallel_for(
        "split_kv::scores", Kokkos::TeamPolicy<Exec>(int(n * heads_), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Team& member) {
          const std::int64_t c = member.league_rank() / heads_, h = member.league_rank() % heads_;
          const std::int64_t b = chunk_begin(c, len, n), e = chunk_begin(c + 1, len, n);
          const auto qh = Kokkos::subview(q_, Kokkos::ALL, h, Kokkos::ALL);
          const auto kh = Kokkos::subview(k_, Kokkos::make_pair(b, e), h, Kokkos::ALL);
          const auto sc =
              Kokkos::subview(s_, c, h, Kokkos::ALL, Kokkos::make_pair(std::int64_t(0), e - b));
          KokkosBatched::TeamGemm<Team, KokkosBatched::Trans::NoTranspose,
                                  KokkosBatched::Trans::Transpose,
                                  KokkosBatched::Algo::Gemm::Unblocked>::invoke(member, scale, qh,
                                                                                kh, 0.0f, sc);
        });
  }

  void softmax() const {
    const auto s_ = s;
    const auto lse_ = lse;
    const std::int64_t n = chunks, heads_ = heads(), tokens_ = tokens(), len = kv_len();
    Kokkos::parallel_for(
        "split_kv::softmax", Kokkos::TeamPolicy<Exec>(int(n * heads_ * tokens_), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Team& member) {
          const std::int64_t r = member.league_rank();
          const std::int64_t t = r % tokens_, h = (r / tokens_) % heads_,
                             c = r / (tokens_ * heads_);
          const int m = int(chunk_begin(c + 1, len, n) - chunk_begin(c, len, n));
          float row_max;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(member, m),
              [&](const int j, float& mx) { mx = s_(c, h, t, j) > mx ? s_(c, h, t, j) : mx; },
              Kokkos::Max<float>(row_max));
          float sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(member, m),
              [&](const int j, float& acc) { acc += SPLITKV_MATH::exp(s_(c, h, t, j) - row_max); },
              sum);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m), [&](const int j) {
            s_(c, h, t, j) = SPLITKV_MATH::exp(s_(c, h, t, j) - row_max) / sum;
          });
          Kokkos::single(Kokkos::PerTeam(member),
                         [&]() { lse_(c, h, t) = row_max + SPLITKV_MATH::log(sum); });
        });
  }

  void values() const {
    const auto v_ = v;
    const auto s_ = s;
    const auto o_ = o;
    const std::int64_t n = chunks, heads_ = heads(), len = kv_len();
    Kokkos::parallel_for(
        "split_kv::values", Kokkos::TeamPolicy<Exec>(int(n * heads_), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Team& member) {
          const std::int64_t c = member.league_rank() / heads_, h = member.league_rank() % heads_;
          const std::int64_t b = chunk_begin(c, len, n), e = chunk_begin(c + 1, len, n);
          const auto p =
              Kokkos::subview(s_, c, h, Kokkos::ALL, Kokkos::make_pair(std::int64_t(0), e - b));
          const auto vh = Kokkos::subview(v_, Kokkos::make_pair(b, e), h, Kokkos::ALL);
          const auto oc = Kokkos::subview(o_, c, Kokkos::ALL, h, Kokkos::ALL);
          KokkosBatched::TeamGemm<Team, KokkosBatched::Trans::NoTranspose,
                                  KokkosBatched::Trans::NoTranspose,
                                  KokkosBatched::Algo::Gemm::Unblocked>::invoke(member, 1.0f, p, vh,
                                                                                0.0f, oc);
        });
  }
};

PartialAttention make_partial(const View3& q, const View3& k, const View3& v,
                              const std::int64_t chunks) {
  const std::int64_t tokens = q.extent(0), heads = q.extent(1), d = q.extent(2);
  const std::int64_t max_len = (std::int64_t(k.extent(0)) + chunks - 1) / chunks;
  return {
      q,
      k,
      v,
      View4(Kokkos::view_alloc("S", Kokkos::WithoutInitializing), chunks, heads, tokens, max_len),
      View4(Kokkos::view_alloc("O", Kokkos::WithoutInitializing), chunks, tokens, heads, d),
      View3(Kokkos::view_alloc("LSE", Kokkos::WithoutInitializing), chunks, heads, tokens),
      chunks};
}

// Folds chunks 1..C-1 into chunk 0, in place: chunk 0 becomes the attention over the whole cache.
void merge_chunks(const PartialAttention& pa) {
  const Exec exec;
  const auto acc = Kokkos::subview(pa.o, 0, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
  const auto acc_lse = Kokkos::subview(pa.lse, 0, Kokkos::ALL, Kokkos::ALL);
  for (std::int64_t c = 1; c < pa.chunks; ++c) {
    const auto part = Kokkos::subview(pa.o, c, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
    const auto part_lse = Kokkos::subview(pa.lse, c, Kokkos::ALL, Kokkos::ALL);
    MergeAttn::merge_attn_states(exec, acc, acc, acc_lse, part, part_lse, acc_lse);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const Options& opt) {
  const std::int64_t T = opt.tokens, H = opt.heads, D = opt.head_size, L = opt.kv_len;
  View3 q("Q", T, H, D), k("K", L, H, D), v("V", L, H, D);
  Kokkos::Random_XorShift64_Pool<Exec> pool(2026);
  Kokkos::fill_random(q, pool, -1.0f, 1.0f);
  Kokkos::fill_random(k, pool, -1.0f, 1.0f);
  Kokkos::fill_random(v, pool, -1.0f, 1.0f);

  const PartialAttention split = make_partial(q, k, v, opt.chunks);
  const PartialAttention whole = make_partial(q, k, v, 1);

  // Timed phases of the split computation (fenced here, in the example, to time each phase).
  const char* names[] = {"scores (TeamGemm)", "softmax + LSE", "values (TeamGemm)",
                         "merge (merge_attn_states)"};
  std::vector<double> times[4];
  Kokkos::Timer timer;
  for (std::int64_t rep = 0; rep <= opt.repeat; ++rep) {  // rep 0: warm-up
    double t[4];
    timer.reset();
    split.scores();
    Kokkos::fence();
    t[0] = timer.seconds();
    timer.reset();
    split.softmax();
    Kokkos::fence();
    t[1] = timer.seconds();
    timer.reset();
    split.values();
    Kokkos::fence();
    t[2] = timer.seconds();
    timer.reset();
    merge_chunks(split);
    Kokkos::fence();
    t[3] = timer.seconds();
    if (rep > 0)
      for (int i = 0; i < 4; ++i) times[i].push_back(t[i]);
  }
  whole.scores();
  whole.softmax();
  whole.values();
  Kokkos::fence();

  std::printf(
      "split-KV decode on %s: %lld tokens x %lld heads x %lld head size, KV length %lld in "
      "%lld chunks\n",
      Exec::name(), (long long)T, (long long)H, (long long)D, (long long)L, (long long)opt.chunks);
  for (int i = 0; i < 4; ++i)
    std::printf("  %-27s %10.1f us (median of %lld)\n", names[i], median(times[i]) * 1e6,
                (long long)opt.repeat);

  // Checks: split + merge against unsplit attention, and both against a double host reference.
  const auto h_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), q);
  const auto h_k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k);
  const auto h_v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  const auto h_split = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), split.o);
  const auto h_split_lse = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), split.lse);
  const auto h_whole = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.o);
  const auto h_whole_lse = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole.lse);
  double err_split_whole = 0, err_split_ref = 0, err_whole_ref = 0, err_lse = 0;
  double max_abs_lse = 0;
  std::int64_t nans = 0;  // std::max drops NaN: count them instead
  const auto track = [&nans](double& err, const double x) {
    if (std::isnan(x))
      ++nans;
    else
      err = std::max(err, x);
  };
  std::vector<double> score(L), out(D);
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h) {
      double mx = -INFINITY;
      for (std::int64_t j = 0; j < L; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < D; ++d) dot += double(h_q(t, h, d)) * double(h_k(j, h, d));
        score[j] = dot / std::sqrt(double(D));
        mx = std::max(mx, score[j]);
      }
      double sum = 0;
      std::fill(out.begin(), out.end(), 0.0);
      for (std::int64_t j = 0; j < L; ++j) {
        const double p = std::exp(score[j] - mx);
        sum += p;
        for (std::int64_t d = 0; d < D; ++d) out[d] += p * double(h_v(j, h, d));
      }
      for (std::int64_t d = 0; d < D; ++d) {
        const double ref = out[d] / sum;
        const double a = h_split(0, t, h, d), b = h_whole(0, t, h, d);
        track(err_split_whole, std::fabs(a - b));
        track(err_split_ref, std::fabs(a - ref));
        track(err_whole_ref, std::fabs(b - ref));
      }
      const double ref_lse = mx + std::log(sum);
      max_abs_lse = std::max(max_abs_lse, std::fabs(ref_lse));
      track(err_lse, std::fabs(h_split_lse(0, h, t) - ref_lse));
      track(err_lse, std::fabs(h_whole_lse(0, h, t) - ref_lse));
    }
  // Outputs are convex combinations of V rows in [-1, 1], computed in float: a few float epsilons
  // off (measured about 1 on the host); the LSE error is relative to its magnitude. A wrong merge
  // (a weight, an LSE or a chunk off) is off by 1e-2 or more.
  const double eps = std::numeric_limits<float>::epsilon();
  const double tol = 64 * eps;
  const double lse_tol = 64 * eps * (1 + max_abs_lse);
  std::printf(
      "  max |split+merge - unsplit| = %.3g, |split+merge - double ref| = %.3g, "
      "|unsplit - double ref| = %.3g, |LSE - double ref| = %.3g (tolerances %.3g, %.3g), "
      "NaNs %lld\n",
      err_split_whole, err_split_ref, err_whole_ref, err_lse, tol, lse_tol, (long long)nans);
  const bool ok = nans == 0 && err_split_whole <= tol && err_split_ref <= tol &&
                  err_whole_ref <= tol && err_lse <= lse_tol;
  std::printf("  %s\n", ok ? "OK: the merged chunks equal unsplit attention" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
