#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
// S states [S][P][D] float, out [P][D]; P pairs.
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char** argv) {
  const long T = 16384, H = 32, D = 128, P = T * H;
  const int S = argc > 1 ? atoi(argv[1]) : 4;
  float* x = (float*)aligned_alloc(64, sizeof(float) * S * P * D);
  float* o = (float*)aligned_alloc(64, sizeof(float) * P * D);
  float* c = (float*)aligned_alloc(64, sizeof(float) * (S + 1) * P * D / 2);
  float* c2 = (float*)aligned_alloc(64, sizeof(float) * (S + 1) * P * D / 2);
#pragma omp parallel for
  for (long i = 0; i < S * P * D; ++i) x[i] = 1.0f + (i % 7);
#pragma omp parallel for
  for (long i = 0; i < P * D; ++i) o[i] = 0;
#pragma omp parallel for
  for (long i = 0; i < (S + 1) * P * D / 2; ++i) c[i] = 1, c2[i] = 0;
  float w[64];
  for (int i = 0; i < S; ++i) w[i] = 1.0f / S;
  auto pairwise = [&] {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      float acc[128];
      for (int d = 0; d < D; ++d) acc[d] = 0;
      for (int i = 0; i < S; ++i) {
        const float* r = x + (i * P + p) * D;
        for (int d = 0; d < D; ++d) acc[d] += w[i] * r[d];
      }
      for (int d = 0; d < D; ++d) o[p * D + d] = acc[d];
    }
  };
  auto runs = [&](int R, int chunk) {
#pragma omp parallel for schedule(static, 1)
    for (long p0 = 0; p0 < P; p0 += R) {
      float acc[64 * 128];
      for (int g = 0; g < R * D; ++g) acc[g] = 0;
      for (int i0 = 0; i0 < S; i0 += chunk)
        for (int g = 0; g < R; ++g)
          for (int i = i0; i < std::min(S, i0 + chunk); ++i) {
            const float* r = x + (i * P + p0 + g) * D;
            for (int d = 0; d < D; ++d) acc[g * D + d] += w[i] * r[d];
          }
      for (int g = 0; g < R * D; ++g) o[p0 * D + g] = acc[g];
    }
  };
  float* lse = (float*)aligned_alloc(64, sizeof(float) * S * P);
  for (long i = 0; i < S * P; ++i) lse[i] = 0.1f * (i % 13);
  auto pairlse = [&] {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const long t = p / H, h = p % H;
      float l[64], m = -1e30f;
      for (int i = 0; i < S; ++i) {
        l[i] = lse[(i * H + h) * T + t];
        m = l[i] > m ? l[i] : m;
      }
      float sum = 0;
      for (int i = 0; i < S; ++i) {
        l[i] = expf(l[i] - m);
        sum += l[i];
      }
      const float inv = 1.0f / sum;
      float acc[128];
      for (int d = 0; d < D; ++d) acc[d] = 0;
      for (int i = 0; i < S; ++i) {
        const float wi = l[i] * inv;
        const float* r = x + (i * P + p) * D;
        for (int d = 0; d < D; ++d) acc[d] += wi * r[d];
      }
      for (int d = 0; d < D; ++d) o[p * D + d] = acc[d];
    }
  };
  auto pairpf = [&] {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const long t = p / H, h = p % H;
      if (h == 0 && (t & 15) == 0 && t + 16 < T)
        for (int i = 0; i < S; ++i)
          for (int hh = 0; hh < H; ++hh) __builtin_prefetch(&lse[(i * H + hh) * T + t + 16]);
      float l[64], m = -1e30f;
      for (int i = 0; i < S; ++i) {
        l[i] = lse[(i * H + h) * T + t];
        m = l[i] > m ? l[i] : m;
      }
      float sum = 0;
      for (int i = 0; i < S; ++i) {
        l[i] = expf(l[i] - m);
        sum += l[i];
      }
      const float inv = 1.0f / sum;
      float acc[128];
      for (int d = 0; d < D; ++d) acc[d] = 0;
      for (int i = 0; i < S; ++i) {
        const float wi = l[i] * inv;
        const float* r = x + (i * P + p) * D;
        for (int d = 0; d < D; ++d) acc[d] += wi * r[d];
      }
      for (int d = 0; d < D; ++d) o[p * D + d] = acc[d];
    }
  };
  auto pairnoexp = [&] {
#pragma omp parallel for schedule(static, 64)
    for (long p = 0; p < P; ++p) {
      const long t = p / H, h = p % H;
      float l[64], m = -1e30f;
      for (int i = 0; i < S; ++i) {
        l[i] = lse[(i * H + h) * T + t];
        m = l[i] > m ? l[i] : m;
      }
      float sum = 0;
      for (int i = 0; i < S; ++i) {
        l[i] = (l[i] - m) + 1.0f;
        sum += l[i];
      }
      const float inv = 1.0f / sum;
      float acc[128];
      for (int d = 0; d < D; ++d) acc[d] = 0;
      for (int i = 0; i < S; ++i) {
        const float wi = l[i] * inv;
        const float* r = x + (i * P + p) * D;
        for (int d = 0; d < D; ++d) acc[d] += wi * r[d];
      }
      for (int d = 0; d < D; ++d) o[p * D + d] = acc[d];
    }
  };
  auto copy = [&] {
    const long n = (S + 1) * P * D / 2;
#pragma omp parallel for
    for (long i = 0; i < n; i += 4096)
      memcpy(c2 + i, c + i, sizeof(float) * std::min(4096L, n - i));
  };
  const double bytes = double(S + 1) * P * D * 4;
  auto time = [&](const char* name, auto f) {
    f();
    std::vector<double> t;
    for (int k = 0; k < 7; ++k) {
      double a = now();
      f();
      t.push_back(now() - a);
    }
    std::sort(t.begin(), t.end());
    printf("S%d %-12s %8.2f ms %6.1f GB/s\n", S, name, t[3] * 1e3, bytes / t[3] * 1e-9);
  };
  for (int rep = 0; rep < 2; ++rep) {
    time("copy", copy);
    time("pairwise", pairwise);
    time("pairlse", pairlse);
    time("pairpf", pairpf);
    time("pairnoexp", pairnoexp);
  }
}
