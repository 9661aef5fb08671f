import sys
p=sys.argv[1]
s=open(p).read()
a=s[s.index("/// e^x (base2: 2^x) for x <= 0;"):s.index("}  // namespace Impl")]
b='''/// c ? a : b for floats as bit masks, both already computed: compilers vectorise loops around it
/// (GCC keeps a ternary with floating-point operations in its arms as a branch: they may trap).
KOKKOS_FORCEINLINE_FUNCTION float select_float(const bool c, const float a, const float b) {
  return bits_float(select_bits(c, float_bits(a), float_bits(b)));
}

/// e^x (base2: 2^x) for x <= 0; anything below the underflow threshold, -inf and NaN give 0 (the
/// callers use the value only for two finite LSEs). Branch-free (selects of computed values).
KOKKOS_FORCEINLINE_FUNCTION float host_exp_nonpositive(float x, const bool base2) {
  const float lowest = base2 ? -150.0f : -104.0f;
  x = select_float(x >= lowest, x, lowest);
  // k = nearest integer to x / ln 2 (to x in base 2): adding 1.5 * 2^23 rounds to an integer
  // (base 2: x * 1 is x).
  const float shifter = 12582912.0f;
  const float k = (x * select_float(base2, 1.0f, 1.44269504088896341f) + shifter) - shifter;
  // r = x - k ln 2, in [-ln2 / 2, ln2 / 2]: ln 2 in two parts, k * hi exact.
  const float r = select_float(base2, (x - k) * 0.693147180559945309f,
                               (x - k * 0.693359375f) - k * -2.12194440e-4f);
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * z + r + 1.0f;
  // 2^k, k in [-150, 0], as two normal factors: a result in the subnormal range is rounded once.
  const int ki = static_cast<int>(k);
  const int k1 = ki / 2;
  const float s1 = bits_float(static_cast<std::uint32_t>(k1 + 127) << 23);
  const float s2 = bits_float(static_cast<std::uint32_t>(ki - k1 + 127) << 23);
  return er * s1 * s2;
}

/// log(1 + e) (base2: log2(1 + e)) for e in [0, 1]. Branch-free (selects of computed values).
KOKKOS_FORCEINLINE_FUNCTION float host_log1p_unit(const float e, const bool base2) {
  const float u = 1.0f + e;                        // [1, 2]
  const float c = (e - (u - 1.0f)) / u;            // what the rounding of 1 + e lost, relative to u
  const bool big = u > 1.41421356f;                // reduce to [sqrt(1/2), sqrt(2)]: u / 2, k = 1
  const float f = u * select_float(big, 0.5f, 1.0f) - 1.0f;  // exact
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = f * z * p;
  y = select_float(big, y + -2.12194440e-4f, y);
  y += -0.5f * z;
  y = f + y + c;
  y = select_float(big, y + 0.693359375f, y);
  return select_float(base2, y * 1.44269504088896341f, y);
}

'''
s=s.replace(a,b)
open(p,'w').write(s)
