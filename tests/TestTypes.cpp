// MergeAttn::half_t and MergeAttn::bfloat16_t: 16 bits on every build, exact widening, round to
// nearest even narrowing, and the same bits on every backend (hardware conversions on the GPU).
#include <algorithm>

#include "MergeAttnTestUtils.hpp"

namespace {

using namespace MergeAttnTest;

static_assert(sizeof(MergeAttn::half_t) == 2, "half_t must be 16 bits on every build");
static_assert(sizeof(MergeAttn::bfloat16_t) == 2, "bfloat16_t must be 16 bits on every build");
static_assert(std::is_trivially_copyable<MergeAttn::half_t>::value, "");
static_assert(std::is_trivially_copyable<MergeAttn::bfloat16_t>::value, "");

// Independent reference: widen through the bit layout by hand (sign, exponent, mantissa).
double half_value(std::uint16_t b) {
  const int sign = b >> 15, exp = (b >> 10) & 0x1f, man = b & 0x3ff;
  double v;
  if (exp == 0x1f)
    v = man ? std::nan("") : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = std::ldexp(man, -24);
  else
    v = std::ldexp(1024 + man, exp - 25);
  return sign ? -v : v;
}

double bfloat16_value(std::uint16_t b) {
  const int sign = b >> 15, exp = (b >> 7) & 0xff, man = b & 0x7f;
  double v;
  if (exp == 0xff)
    v = man ? std::nan("") : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = std::ldexp(man, -133);
  else
    v = std::ldexp(128 + man, exp - 134);
  return sign ? -v : v;
}

// Nearest representable value by search over every finite non-negative pattern, ties to even;
// beyond the largest finite value by half an ulp: infinity.
template <class ValueOf>
std::uint16_t nearest(double x, ValueOf value_of, std::uint16_t max_finite, double half_ulp_max) {
  const bool neg = std::signbit(x);
  const double a = std::fabs(x);
  if (std::isnan(x)) return 0;  // not used for NaN
  std::uint16_t best;
  if (a >= value_of(max_finite) + half_ulp_max) {
    best = static_cast<std::uint16_t>(max_finite + 1);  // infinity
  } else {
    std::uint16_t lo = 0, hi = max_finite;  // value_of is monotone over [0, max_finite]
    while (hi - lo > 1) {
      const std::uint16_t mid = static_cast<std::uint16_t>((lo + hi) / 2);
      (value_of(mid) <= a ? lo : hi) = mid;
    }
    const double dl = a - value_of(lo), dh = value_of(hi) - a;
    best = dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo);
    if (a >= value_of(max_finite)) best = max_finite;
  }
  return static_cast<std::uint16_t>(best | (neg ? 0x8000 : 0));
}

std::vector<float> probe_floats() {
  std::vector<float> v;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(rng());
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isnan(f)) v.push_back(f);
  }
  // Every exact tie between neighbours and values right around them, for both formats.
  for (std::uint32_t b = 0; b < 0x7c00; ++b) {
    const double mid = 0.5 * (half_value(static_cast<std::uint16_t>(b)) +
                              half_value(static_cast<std::uint16_t>(b + 1)));
    const float m = static_cast<float>(mid);
    v.insert(v.end(), {m, std::nextafter(m, 0.0f), std::nextafter(m, 1e30f), -m});
  }
  for (std::uint32_t b = 0; b < 0x7f80; b += 7) {
    const double mid = 0.5 * (bfloat16_value(static_cast<std::uint16_t>(b)) +
                              bfloat16_value(static_cast<std::uint16_t>(b + 1)));
    const float m = static_cast<float>(mid);
    v.insert(v.end(), {m, std::nextafter(m, 0.0f), std::nextafter(m, 3e38f), -m});
  }
  v.insert(v.end(),
           {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e6f, -1e6f,
            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
            5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f});
  return v;
}

TEST(Types, HalfWideningIsExactForAllPatterns) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = MergeAttn::half_t::from_bits(static_cast<std::uint16_t>(b));
    const double want = half_value(static_cast<std::uint16_t>(b));
    const float got = static_cast<float>(h);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      ASSERT_EQ(static_cast<double>(got), want) << std::hex << b;
      ASSERT_EQ(std::signbit(got), (b & 0x8000) != 0) << std::hex << b;
      // Round trip of every non-NaN pattern is the identity.
      ASSERT_EQ(MergeAttn::half_t(got).bits, b) << std::hex << b;
    }
  }
}

TEST(Types, BFloat16WideningIsExactForAllPatterns) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto v = MergeAttn::bfloat16_t::from_bits(static_cast<std::uint16_t>(b));
    const double want = bfloat16_value(static_cast<std::uint16_t>(b));
    const float got = static_cast<float>(v);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      ASSERT_EQ(static_cast<double>(got), want) << std::hex << b;
      ASSERT_EQ(MergeAttn::bfloat16_t(got).bits, b) << std::hex << b;
    }
  }
}

TEST(Types, NarrowingRoundsToNearestEven) {
  const double half_half_ulp_max = std::ldexp(1.0, 4);    // half an ulp at 65504: 16
  const double bf16_half_ulp_max = std::ldexp(1.0, 119);  // half an ulp at bf16 max
  std::int64_t bad_half = 0, bad_bf16 = 0;
  for (float f : probe_floats()) {
    const std::uint16_t want_h = nearest(f, half_value, 0x7bff, half_half_ulp_max);
    const std::uint16_t got_h = MergeAttn::half_t(f).bits;
    if (got_h != want_h && ++bad_half <= 5)
      ADD_FAILURE() << "half_t(" << f << ") = 0x" << std::hex << got_h << ", want 0x" << want_h;
    const std::uint16_t want_b = nearest(f, bfloat16_value, 0x7f7f, bf16_half_ulp_max);
    const std::uint16_t got_b = MergeAttn::bfloat16_t(f).bits;
    if (got_b != want_b && ++bad_bf16 <= 5)
      ADD_FAILURE() << "bfloat16_t(" << f << ") = 0x" << std::hex << got_b << ", want 0x" << want_b;
  }
  EXPECT_EQ(bad_half, 0);
  EXPECT_EQ(bad_bf16, 0);
  EXPECT_TRUE(std::isnan(static_cast<float>(MergeAttn::half_t(std::nanf("")))));
  EXPECT_TRUE(std::isnan(static_cast<float>(MergeAttn::bfloat16_t(std::nanf("")))));
}

TEST(Types, NumericLimitsDescribeTheFormats) {
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::half_t>::epsilon()), 0x1p-10f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::half_t>::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::half_t>::min()), 0x1p-14f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::half_t>::denorm_min()), 0x1p-24f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::bfloat16_t>::epsilon()), 0x1p-7f);
  EXPECT_EQ(static_cast<float>(std::numeric_limits<MergeAttn::bfloat16_t>::min()), 0x1p-126f);
}

// Conversions in each backend's kernels give the host's bits.
template <class V>
struct ConvertOnDevice {
  Kokkos::View<const float*, typename V::memory_space> in;
  Kokkos::View<std::uint16_t*, typename V::memory_space> half_bits, bf16_bits;
  Kokkos::View<float*, typename V::memory_space> widened_half, widened_bf16;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    half_bits(i) = MergeAttn::half_t(in(i)).bits;
    bf16_bits(i) = MergeAttn::bfloat16_t(in(i)).bits;
    if (i < 65536) {
      widened_half(i) =
          static_cast<float>(MergeAttn::half_t::from_bits(static_cast<std::uint16_t>(i)));
      widened_bf16(i) =
          static_cast<float>(MergeAttn::bfloat16_t::from_bits(static_cast<std::uint16_t>(i)));
    }
  }
};

template <class Exec>
class TypesOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(TypesOnBackend, Backends, BackendNames);

TYPED_TEST(TypesOnBackend, ConversionsMatchTheHostBitForBit) {
  using Exec = TypeParam;
  using Mem = DeviceMemory<Exec>;
  std::vector<float> host_in = probe_floats();
  while (host_in.size() < 65536) host_in.push_back(1.0f);
  const std::int64_t n = static_cast<std::int64_t>(host_in.size());
  Kokkos::View<float*, Mem> in("in", n);
  Kokkos::deep_copy(
      in, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
              host_in.data(), n));
  Kokkos::View<std::uint16_t*, Mem> hb("hb", n), bb("bb", n);
  Kokkos::View<float*, Mem> wh("wh", 65536), wb("wb", 65536);
  Kokkos::parallel_for("convert", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
                       ConvertOnDevice<Kokkos::View<float*, Mem>>{in, hb, bb, wh, wb});
  Kokkos::fence();
  auto hb_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hb);
  auto bb_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bb);
  auto wh_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wh);
  auto wb_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wb);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float f = host_in[i];
    if (hb_h(i) != MergeAttn::half_t(f).bits && ++bad <= 5)
      ADD_FAILURE() << Exec::name() << ": half_t(" << f << ") bits 0x" << std::hex << hb_h(i);
    if (bb_h(i) != MergeAttn::bfloat16_t(f).bits && ++bad <= 5)
      ADD_FAILURE() << Exec::name() << ": bfloat16_t(" << f << ") bits 0x" << std::hex << bb_h(i);
  }
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const float h = static_cast<float>(MergeAttn::half_t::from_bits(static_cast<std::uint16_t>(b)));
    const float g =
        static_cast<float>(MergeAttn::bfloat16_t::from_bits(static_cast<std::uint16_t>(b)));
    if (!(same_bits(wh_h(b), h) || (std::isnan(h) && std::isnan(wh_h(b)))) && ++bad <= 5)
      ADD_FAILURE() << Exec::name() << ": widening half 0x" << std::hex << b;
    if (!(same_bits(wb_h(b), g) || (std::isnan(g) && std::isnan(wb_h(b)))) && ++bad <= 5)
      ADD_FAILURE() << Exec::name() << ": widening bfloat16 0x" << std::hex << b;
  }
  EXPECT_EQ(bad, 0);
}

// Foundation check kept from the first milestone: each backend initialises and a View computed
// on it comes back to the host with the computed values.
template <class V>
struct SquareIndex {
  V v;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { v(i) = 0.5 * i * i; }
};

TYPED_TEST(TypesOnBackend, ComputedViewRoundTrips) {
  using Exec = TypeParam;
  Kokkos::View<double*, DeviceMemory<Exec>> v("v", 1000);
  Kokkos::parallel_for("square", Kokkos::RangePolicy<Exec>(0, 1000), SquareIndex<decltype(v)>{v});
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(h(i), 0.5 * i * i) << Exec::name();
  EXPECT_TRUE(Exec().concurrency() >= 1);
}

}  // namespace

#if !KOKKOS_HALF_T_IS_FLOAT
namespace {

using namespace MergeAttnTest;

// Where Kokkos' half_t is a real 16-bit type (CUDA builds), Views of it merge to exactly the bits
// of the same merge on MergeAttn::half_t (both compute in float and round to nearest even).
template <class Exec>
class KokkosHalfViews : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosHalfViews, Backends, BackendNames);

TYPED_TEST(KokkosHalfViews, MergeLikeMergeAttnHalf) {
  using Exec = TypeParam;
  using KH = Kokkos::Experimental::half_t;
  static_assert(sizeof(KH) == 2, "Kokkos half_t is 16-bit in this build");
  LseRecipe recipe;
  recipe.plus_inf_fraction = 0.1;
  const auto p = make_problem<MergeAttn::half_t>(64, 4, 72, 77, recipe);
  const auto want = run_merge<Exec>(p, RunOptions{});
  HostProblem<KH> k;
  k.tokens = p.tokens;
  k.heads = p.heads;
  k.head_size = p.head_size;
  k.prefix_lse = p.prefix_lse;
  k.suffix_lse = p.suffix_lse;
  k.prefix.resize(p.prefix.size());
  k.suffix.resize(p.suffix.size());
  std::memcpy(static_cast<void*>(k.prefix.data()), p.prefix.data(), p.prefix.size() * 2);
  std::memcpy(static_cast<void*>(k.suffix.data()), p.suffix.data(), p.suffix.size() * 2);
  const auto got = run_merge<Exec>(k, RunOptions{});
  ASSERT_EQ(got.output.size(), want.output.size());
  EXPECT_EQ(0, std::memcmp(got.output.data(), want.output.data(), want.output.size() * 2));
  EXPECT_EQ(got.output_lse, want.output_lse);
}

}  // namespace
#endif
