// 2-way float merge rows: regular stores vs streaming (non-temporal) stores vs in place.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char** argv) {
  const long P = 16384L * 32, D = argc > 1 ? atol(argv[1]) : 128, N = P * D;
  float* a = (float*)aligned_alloc(64, 4 * N);
  float* b = (float*)aligned_alloc(64, 4 * N);
  float* o = (float*)aligned_alloc(64, 4 * N);
  float* c1 = (float*)aligned_alloc(64, 4 * N);
  float* c2 = (float*)aligned_alloc(64, 4 * N);
#pragma omp parallel for
  for (long i = 0; i < N; ++i) a[i] = 1, b[i] = 2, o[i] = 0, c1[i] = 3, c2[i] = 0;
  auto merge = [&](float* out, bool stream) {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const float wa = 0.3f + (p & 7) * 0.01f, wb = 1 - wa;
      const float* x = a + p * D;
      const float* y = b + p * D;
      float* z = out + p * D;
      const __m512 va = _mm512_set1_ps(wa), vb = _mm512_set1_ps(wb);
      for (long d = 0; d < D; d += 16) {
        __m512 r = _mm512_add_ps(_mm512_mul_ps(va, _mm512_load_ps(x + d)),
                                 _mm512_mul_ps(vb, _mm512_load_ps(y + d)));
        if (stream)
          _mm512_stream_ps(z + d, r);
        else
          _mm512_store_ps(z + d, r);
      }
    }
    _mm_sfence();
  };
  auto merge_buf = [&](float* out, int width) {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const float wa = 0.3f + (p & 7) * 0.01f, wb = 1 - wa;
      const float* x = a + p * D;
      const float* y = b + p * D;
      float* z = out + p * D;
      alignas(64) float buf[256];
      for (long d = 0; d < D; ++d) buf[d] = wa * x[d] + wb * y[d];
      if (width == 16) {
        for (long i = 0; i < D * 4 / 16; ++i)
          _mm_stream_si128((__m128i*)z + i, _mm_load_si128((const __m128i*)buf + i));
      } else {
        for (long i = 0; i < D * 4 / 64; ++i)
          _mm512_stream_si512((__m512i*)z + i, _mm512_load_si512((const __m512i*)buf + i));
      }
    }
    _mm_sfence();
  };
  auto merge256 = [&](float* out, bool stream) {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const float wa = 0.3f + (p & 7) * 0.01f, wb = 1 - wa;
      const float* x = a + p * D;
      const float* y = b + p * D;
      float* z = out + p * D;
      const __m256 va = _mm256_set1_ps(wa), vb = _mm256_set1_ps(wb);
      for (long d = 0; d < D; d += 8) {
        __m256 r = _mm256_add_ps(_mm256_mul_ps(va, _mm256_loadu_ps(x + d)),
                                 _mm256_mul_ps(vb, _mm256_loadu_ps(y + d)));
        if (stream)
          _mm256_stream_ps(z + d, r);
        else
          _mm256_storeu_ps(z + d, r);
      }
    }
    _mm_sfence();
  };
  auto copy = [&] {
#pragma omp parallel for
    for (long i = 0; i < N; i += 65536) memcpy(c2 + i, c1 + i, 4 * std::min(65536L, N - i));
  };
  auto time = [&](const char* name, double bytes, auto f) {
    f();
    std::vector<double> t;
    for (int k = 0; k < 9; ++k) {
      double s = now();
      f();
      t.push_back(now() - s);
    }
    std::sort(t.begin(), t.end());
    printf("D%ld %-10s %7.2f ms %6.1f GB/s\n", D, name, t[4] * 1e3, bytes / t[4] * 1e-9);
  };
  for (int rep = 0; rep < 3; ++rep) {
    time("copy", 8.0 * N, copy);
    time("store", 12.0 * N, [&] { merge(o, false); });
    time("stream", 12.0 * N, [&] { merge(o, true); });
    time("s256", 12.0 * N, [&] { merge256(o, true); });
    time("r256", 12.0 * N, [&] { merge256(o, false); });
    time("buf64", 12.0 * N, [&] { merge_buf(o, 64); });
  }
}
