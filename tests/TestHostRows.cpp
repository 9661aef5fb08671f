// The host row functions (MergeAttn_HostRows.hpp): every row code this CPU runs (on x86-64 AVX2 +
// F16C; AVX-512 with BF16, where half_t runs the AVX2 code) gives the same bits as the portable
// loops, and the portable loops the same bits as the scalar conversions of MergeAttn_Types.hpp
// (NaN results: any NaN), on every 16-bit pattern, on rounding ties, overflow, subnormals, NaN and
// infinity, in place and with tails shorter than a SIMD register; and the host's float
// exponential and logarithm of the 2-way weights against double.
#include <gtest/gtest.h>

#include <MergeAttn/impl/MergeAttn_HostRows.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using MergeAttn::Impl::HostRowIsa;

const char* isa_name(const HostRowIsa isa) {
  return isa == HostRowIsa::x86_avx512 ? "x86 AVX-512 + BF16"
         : isa == HostRowIsa::x86_avx2 ? "x86 AVX2 + F16C"
                                       : "portable";
}

// The row codes other than the portable one that this CPU runs (printed with the one the merge
// takes).
std::vector<HostRowIsa> other_isas() {
  std::vector<HostRowIsa> isas;
  for (const HostRowIsa isa : {HostRowIsa::x86_avx2, HostRowIsa::x86_avx512})
    if (MergeAttn::Impl::host_row_isa_supported(isa)) isas.push_back(isa);
  std::printf("host row code: %s; checked against the portable code:",
              isa_name(MergeAttn::Impl::host_row_isa()));
  for (const HostRowIsa isa : isas) std::printf(" [%s]", isa_name(isa));
  std::printf("\n");
  return isas;
}

template <class T>
std::vector<T> from_bits(const std::vector<std::uint16_t>& bits) {
  std::vector<T> v(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) v[i] = T::from_bits(bits[i]);
  return v;
}

template <class T>
bool is_nan(const T v) {
  const float f = static_cast<float>(v);
  return f != f;
}

// Results that differ in bits, a NaN counting as equal to any NaN: which input's payload a NaN
// result carries depends on the order the compiler gives the operands of a sum (IEEE 754 leaves
// it open), everything else must match bit for bit.
template <class T>
std::size_t count_bit_differences(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    n += a[i].bits != b[i].bits && !(is_nan(a[i]) && is_nan(b[i]));
  return n;
}

float float_of_bits(const std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// Every 16-bit pattern as x0 (n = 65536 + 7: a tail after the last full register), a permutation
// of them as x1; weights that keep values, mix them, overflow and underflow.
std::vector<std::uint16_t> all_patterns(const std::size_t n, const std::uint32_t mul) {
  std::vector<std::uint16_t> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint16_t>((i * mul) & 0xffffu);
  return b;
}

const float weight_pairs[][2] = {{1.0f, 0.0f},    {0.25f, 0.75f},  {0.999f, 1.0e-3f},
                                 {3.0e4f, -2.5f}, {1.0e-8f, 1.0f}, {-0.0f, 0.5f}};

template <class T>
void check_weighted_rows() {
  const std::vector<HostRowIsa> isas = other_isas();
  const std::size_t n = 65536 + 7;
  const std::vector<T> x0 = from_bits<T>(all_patterns(n, 1));
  const std::vector<T> x1 = from_bits<T>(all_patterns(n, 40503));
  for (const auto& w : weight_pairs) {
    std::vector<T> portable(n), scalar(n);
    MergeAttn::Impl::host_weighted_row(HostRowIsa::portable, portable.data(), x0.data(), x1.data(),
                                       w[0], w[1], static_cast<int>(n));
    for (std::size_t i = 0; i < n; ++i)
      scalar[i] = T(w[0] * static_cast<float>(x0[i]) + w[1] * static_cast<float>(x1[i]));
    EXPECT_EQ(count_bit_differences(portable, scalar), 0u) << "weights " << w[0] << ", " << w[1];
    for (const HostRowIsa isa : isas) {
      std::vector<T> chosen(n);
      MergeAttn::Impl::host_weighted_row(isa, chosen.data(), x0.data(), x1.data(), w[0], w[1],
                                         static_cast<int>(n));
      EXPECT_EQ(count_bit_differences(chosen, portable), 0u)
          << isa_name(isa) << ", weights " << w[0] << ", " << w[1];
      // In place (the output is the first state) and short rows (tails only, one register + tail;
      // AVX-512: 32 values at a time, then the AVX2 code).
      for (const int len : {int(n), 1, 7, 8, 13, 16, 31, 32, 45}) {
        std::vector<T> in_place = x0;
        MergeAttn::Impl::host_weighted_row(isa, in_place.data(), in_place.data(), x1.data(), w[0],
                                           w[1], len);
        std::vector<T> expected(portable.begin(), portable.begin() + len);
        expected.insert(expected.end(), x0.begin() + len, x0.end());
        const std::size_t diff = count_bit_differences(in_place, expected);
        EXPECT_EQ(diff, 0u) << isa_name(isa) << ", in place, length " << len;
      }
    }
  }
}

template <class T>
void check_accumulate_and_store_rows() {
  const std::vector<HostRowIsa> isas = other_isas();
  // Sums: every 16-bit pattern times a few weights on top of random partial sums.
  const std::size_t n = 65536 + 5;
  const std::vector<T> x = from_bits<T>(all_patterns(n, 1));
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> start(-4.0f, 4.0f);
  std::vector<float> acc_start(n);
  for (auto& a : acc_start) a = start(gen);
  std::vector<float> acc_portable = acc_start;
  for (const float w : {0.5f, -1.0e-3f, 7.0f})
    MergeAttn::Impl::host_accumulate_row(HostRowIsa::portable, acc_portable.data(), w, x.data(),
                                         static_cast<int>(n));
  for (const HostRowIsa isa : isas) {
    std::vector<float> acc_chosen = acc_start;
    for (const float w : {0.5f, -1.0e-3f, 7.0f})
      MergeAttn::Impl::host_accumulate_row(isa, acc_chosen.data(), w, x.data(),
                                           static_cast<int>(n));
    std::size_t diff = 0;
    for (std::size_t i = 0; i < n; ++i)
      diff += std::memcmp(&acc_portable[i], &acc_chosen[i], sizeof(float)) != 0;
    EXPECT_EQ(diff, 0u) << isa_name(isa) << ": accumulated sums differ";
  }

  // Narrowing: random float patterns (every class: subnormal, overflow, NaN payloads, infinity)
  // and every rounding tie of T (the float half-way between two neighbouring T values).
  std::vector<float> acc;
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < (1 << 20); ++i) acc.push_back(float_of_bits(bits(gen)));
  const bool half = std::is_same<T, MergeAttn::half_t>::value;
  for (std::uint32_t k = 0; k < 65536; ++k) {
    if (half) {
      const float v =
          static_cast<float>(MergeAttn::half_t::from_bits(static_cast<std::uint16_t>(k)));
      std::uint32_t u;
      std::memcpy(&u, &v, sizeof(u));
      acc.push_back(float_of_bits(u + (1u << 12)));  // half-way for normal halves
      acc.push_back(float_of_bits(u + 1u));
    } else {
      acc.push_back(float_of_bits((k << 16) | 0x8000u));
      acc.push_back(float_of_bits((k << 16) | 0x7fffu));
    }
  }
  acc.push_back(float_of_bits(0x7f800001u));  // signalling NaN
  acc.push_back(float_of_bits(0xffffffffu));
  const int m = static_cast<int>(acc.size());
  std::vector<T> portable(acc.size()), scalar(acc.size());
  MergeAttn::Impl::host_store_row(HostRowIsa::portable, portable.data(), acc.data(), m);
  for (std::size_t i = 0; i < acc.size(); ++i) scalar[i] = T(acc[i]);
  EXPECT_EQ(count_bit_differences(portable, scalar), 0u);
  for (const HostRowIsa isa : isas) {
    std::vector<T> chosen(acc.size());
    MergeAttn::Impl::host_store_row(isa, chosen.data(), acc.data(), m);
    EXPECT_EQ(count_bit_differences(chosen, portable), 0u) << isa_name(isa);
  }
}

// The row codes this CPU runs: the merge takes the best one; each needs the ones before it.
TEST(HostRows, RowCodeDetection) {
  using MergeAttn::Impl::host_row_isa_supported;
  EXPECT_TRUE(host_row_isa_supported(HostRowIsa::portable));
  if (host_row_isa_supported(HostRowIsa::x86_avx512)) {
    EXPECT_TRUE(host_row_isa_supported(HostRowIsa::x86_avx2));
  }
  const HostRowIsa best = MergeAttn::Impl::host_row_isa();
  EXPECT_TRUE(host_row_isa_supported(best));
  for (const HostRowIsa isa : {HostRowIsa::x86_avx2, HostRowIsa::x86_avx512}) {
    if (host_row_isa_supported(isa)) {
      EXPECT_GE(static_cast<int>(best), static_cast<int>(isa));
    }
  }
}

TEST(HostRows, HalfWeightedRowsSameBitsEveryIsa) { check_weighted_rows<MergeAttn::half_t>(); }
TEST(HostRows, Bfloat16WeightedRowsSameBitsEveryIsa) {
  check_weighted_rows<MergeAttn::bfloat16_t>();
}
TEST(HostRows, HalfSumsAndRoundingSameBitsEveryIsa) {
  check_accumulate_and_store_rows<MergeAttn::half_t>();
}
TEST(HostRows, Bfloat16SumsAndRoundingSameBitsEveryIsa) {
  check_accumulate_and_store_rows<MergeAttn::bfloat16_t>();
}

// The host weights' exponential and logarithm (float, branch-free) against double over their whole
// domains: exp within 1 eps of float relatively (one subnormal step below FLT_MIN), log1p within
// 1.5 eps (2 in base 2: one more rounding); exact at the ends; the documented -inf and NaN values.
TEST(HostRows, ExpAndLog1pAgainstDouble) {
  using MergeAttn::Impl::host_exp_nonpositive;
  using MergeAttn::Impl::host_log1p_unit;
  const double eps = std::numeric_limits<float>::epsilon();
  const double tiny = std::numeric_limits<float>::denorm_min();
  for (const bool base2 : {false, true}) {
    double worst_exp = 0, worst_log = 0;
    const float lo = base2 ? -151.0f : -105.0f;
    for (float x = lo; x <= 0.0f; x += 1.0e-4f) {
      const double want = base2 ? std::exp2(double(x)) : std::exp(double(x));
      const double err = std::fabs(host_exp_nonpositive(x, base2) - want);
      ASSERT_LE(err, std::max(eps * want, tiny)) << "exp at " << x << ", base2 " << base2;
      if (want > 1e-37) worst_exp = std::max(worst_exp, err / want / eps);
    }
    for (float e = 0.0f; e <= 1.0f; e += 3.0e-7f) {
      const double want = std::log1p(double(e)) / (base2 ? std::log(2.0) : 1.0);
      const double err = std::fabs(host_log1p_unit(e, base2) - want);
      ASSERT_LE(err, (base2 ? 2.0 : 1.5) * eps * want) << "log1p at " << e << ", base2 " << base2;
      if (want > 0) worst_log = std::max(worst_log, err / want / eps);
    }
    std::printf("base2 %d: worst relative error exp %.3f eps, log1p %.3f eps\n", int(base2),
                worst_exp, worst_log);
    EXPECT_EQ(host_exp_nonpositive(0.0f, base2), 1.0f);
    EXPECT_EQ(host_exp_nonpositive(-std::numeric_limits<float>::infinity(), base2), 0.0f);
    EXPECT_EQ(host_exp_nonpositive(std::numeric_limits<float>::quiet_NaN(), base2), 0.0f);
    EXPECT_EQ(host_exp_nonpositive(-std::numeric_limits<float>::max(), base2), 0.0f);
    EXPECT_EQ(host_log1p_unit(0.0f, base2), 0.0f);
    EXPECT_NEAR(host_log1p_unit(1.0f, base2), base2 ? 1.0 : std::log(2.0), eps);
  }
}

}  // namespace
