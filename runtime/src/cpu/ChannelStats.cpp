//===- ChannelStats.cpp - batch norm over [rows, features] by row blocks --===//
#include "cpu/ChannelStats.h"

#include "cpu/Parallel.h"
#include "cpu/VectorLevel.h"
#include "common/ElementMath.h"

#include <algorithm>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {

constexpr int64_t kBlockElements = 4096;

const char *at(const TensorView &v, int64_t index) {
  return static_cast<const char *>(v.data) +
         index * static_cast<int64_t>(dtypeSize(v.dtype));
}

/// Rows [r0, r0 + m) of v ([rows, features]) as f32: in place for float32,
/// else widened into buf.
const float *rowsOf(const TensorView &v, int64_t r0, int64_t m,
                    int64_t features, std::vector<float> &buf) {
  if (v.dtype == DType::F32)
    return static_cast<const float *>(v.data) + r0 * features;
  buf.resize(static_cast<size_t>(m * features));
  toFloats(v.dtype, at(v, r0 * features), buf.data(), m * features);
  return buf.data();
}

/// Rows [r0, r0 + m) of g masked by the ReLU output r (reluGradF: g where
/// r > 0, else g * 0), into gBuf: what a relu_grad of (g, r) would hold,
/// exactly (g * 1 and g * 0 round to themselves in every float dtype).
/// Without `r`, rowsOf(g).
const float *maskedRowsOf(const TensorView &g, const TensorView *r, int64_t r0,
                          int64_t m, int64_t features, std::vector<float> &gBuf,
                          std::vector<float> &rBuf) {
  if (!r)
    return rowsOf(g, r0, m, features, gBuf);
  size_t n = static_cast<size_t>(m * features);
  gBuf.resize(n);
  // An f32 gradient is read in place; a 16-bit one widened into gBuf
  // first (then masked in place).
  const float *gv = g.dtype == DType::F32
                        ? static_cast<const float *>(g.data) + r0 * features
                        : rowsOf(g, r0, m, features, gBuf);
  const float *rv = rowsOf(*r, r0, m, features, rBuf);
  float *masked = gBuf.data();
  runVectorized([&] {
    for (size_t i = 0; i < n; ++i)
      masked[i] = ref::reluGradF(gv[i], rv[i]);
  });
  return masked;
}

// The loop bodies, inlined into each instruction set's copy
// (runVectorized); the loops over the features vectorize. ChannelStats.cpp
// is built with -ffp-contract=off: no multiply-add is fused.

/// One block: mean[c] = sum / m, m2[c] = sum of (x - mean)^2, in f64.
inline __attribute__((always_inline)) void
blockMoments(const float *__restrict x, int64_t m, int64_t f,
             double *__restrict mean, double *__restrict m2) {
  for (int64_t c = 0; c < f; ++c)
    mean[c] = m2[c] = 0;
  for (int64_t r = 0; r < m; ++r) {
    const float *row = x + r * f;
    for (int64_t c = 0; c < f; ++c)
      mean[c] += static_cast<double>(row[c]);
  }
  double count = static_cast<double>(m);
  for (int64_t c = 0; c < f; ++c)
    mean[c] /= count;
  for (int64_t r = 0; r < m; ++r) {
    const float *row = x + r * f;
    for (int64_t c = 0; c < f; ++c) {
      double d = static_cast<double>(row[c]) - mean[c];
      m2[c] += d * d;
    }
  }
}

/// One block: sumG[c] = sum of g, sumGX[c] = sum of g (x - center), in f64.
inline __attribute__((always_inline)) void
blockGradSums(const float *__restrict g, const float *__restrict x, int64_t m,
              int64_t f, const double *__restrict center,
              double *__restrict sumG, double *__restrict sumGX) {
  for (int64_t c = 0; c < f; ++c)
    sumG[c] = sumGX[c] = 0;
  for (int64_t r = 0; r < m; ++r) {
    const float *gr = g + r * f, *xr = x + r * f;
    for (int64_t c = 0; c < f; ++c) {
      double gv = static_cast<double>(gr[c]);
      sumG[c] += gv;
      sumGX[c] += gv * (static_cast<double>(xr[c]) - center[c]);
    }
  }
}

/// The blocks of [rows, features] (statsBlockRows each, the last shorter)
/// over the threads: body(block, first row, rows) for each.
template <typename Body>
void forEachBlock(int64_t rows, int64_t features, const Body &body) {
  int64_t blockRows = statsBlockRows(features);
  int64_t blocks = (rows + blockRows - 1) / blockRows;
  parallelFor(blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      int64_t r0 = b * blockRows;
      body(b, r0, std::min(blockRows, rows - r0));
    }
  });
}

/// The elementwise passes: rows over the threads, a block of rows widened
/// and rounded at a time; body(f32 rows in, f32 rows out, rows). With
/// `mask0`, input 0 is read masked by it (maskedRowsOf).
template <size_t NIn, typename Body>
void mapRows(const TensorView *const (&in)[NIn], const TensorView &out,
             int64_t rows, int64_t features, const Body &body,
             const TensorView *mask0 = nullptr) {
  int64_t blockRows = statsBlockRows(features);
  int64_t grain = std::max<int64_t>(blockRows, (int64_t(1) << 14) / features);
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> inBuf[NIn], maskBuf, outBuf;
    for (int64_t r0 = begin; r0 < end; r0 += blockRows) {
      int64_t m = std::min(blockRows, end - r0);
      const float *src[NIn];
      for (size_t i = 0; i < NIn; ++i)
        src[i] = i == 0 ? maskedRowsOf(*in[0], mask0, r0, m, features,
                                       inBuf[0], maskBuf)
                        : rowsOf(*in[i], r0, m, features, inBuf[i]);
      float *dst;
      if (out.dtype == DType::F32) {
        dst = static_cast<float *>(out.data) + r0 * features;
      } else {
        outBuf.resize(static_cast<size_t>(m * features));
        dst = outBuf.data();
      }
      runVectorized([&] { body(src, dst, m); });
      if (out.dtype != DType::F32)
        fromFloats(dst, out.dtype, const_cast<char *>(at(out, r0 * features)),
                   m * features);
    }
  });
}

} // namespace

int64_t cpu::statsBlockRows(int64_t features) {
  return std::max<int64_t>(16, kBlockElements / std::max<int64_t>(features, 1));
}

void cpu::channelMoments(const TensorView &x, int64_t rows, int64_t features,
                         std::vector<double> &mean, std::vector<double> &m2) {
  int64_t blockRows = statsBlockRows(features);
  int64_t blocks = (rows + blockRows - 1) / blockRows;
  size_t f = static_cast<size_t>(features);
  std::vector<double> blockMean(static_cast<size_t>(blocks) * f),
      blockM2(blockMean.size());
  forEachBlock(rows, features, [&](int64_t b, int64_t r0, int64_t m) {
    std::vector<float> buf;
    const float *v = rowsOf(x, r0, m, features, buf);
    double *bm = &blockMean[b * f], *bm2 = &blockM2[b * f];
    runVectorized([&] { blockMoments(v, m, features, bm, bm2); });
  });
  // Chan et al.'s pairwise combination, block after block in order.
  mean.assign(f, 0.0);
  m2.assign(f, 0.0);
  double n = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    double nb = static_cast<double>(std::min(blockRows, rows - b * blockRows));
    double total = n + nb, share = nb / total, cross = n * nb / total;
    const double *bm = &blockMean[b * f], *bm2 = &blockM2[b * f];
    for (size_t c = 0; c < f; ++c) {
      double d = bm[c] - mean[c];
      mean[c] += d * share;
      m2[c] += bm2[c] + d * d * cross;
    }
    n = total;
  }
}

void cpu::channelGradSums(const TensorView &g, const TensorView &x,
                          int64_t rows, int64_t features, const float *center,
                          std::vector<double> &sumG,
                          std::vector<double> &sumGX, const TensorView *mask) {
  int64_t blockRows = statsBlockRows(features);
  int64_t blocks = (rows + blockRows - 1) / blockRows;
  size_t f = static_cast<size_t>(features);
  std::vector<double> centerD(center, center + f);
  std::vector<double> blockG(static_cast<size_t>(blocks) * f),
      blockGX(blockG.size());
  forEachBlock(rows, features, [&](int64_t b, int64_t r0, int64_t m) {
    std::vector<float> gBuf, xBuf, maskBuf;
    const float *gv = maskedRowsOf(g, mask, r0, m, features, gBuf, maskBuf);
    const float *xv = rowsOf(x, r0, m, features, xBuf);
    double *sg = &blockG[b * f], *sgx = &blockGX[b * f];
    runVectorized(
        [&] { blockGradSums(gv, xv, m, features, centerD.data(), sg, sgx); });
  });
  sumG.assign(f, 0.0);
  sumGX.assign(f, 0.0);
  for (int64_t b = 0; b < blocks; ++b)
    for (size_t c = 0; c < f; ++c) {
      sumG[c] += blockG[b * f + c];
      sumGX[c] += blockGX[b * f + c];
    }
}

void cpu::normalizeChannels(const TensorView &x, const TensorView &y,
                            int64_t rows, int64_t features, const float *mean,
                            const float *a, const float *offset, bool relu) {
  const TensorView *in[1] = {&x};
  mapRows(in, y, rows, features,
          [&](const float *const *src, float *__restrict dst, int64_t m) {
            const float *__restrict v = src[0];
            for (int64_t r = 0; r < m; ++r)
              for (int64_t c = 0; c < features; ++c) {
                int64_t i = r * features + c;
                dst[i] = (v[i] - mean[c]) * a[c] + offset[c];
              }
            if (relu)
              for (int64_t i = 0; i < m * features; ++i)
                dst[i] = ref::reluF(dst[i]);
          });
}

void cpu::normalizeChannelsGrad(const TensorView &g, const TensorView &x,
                                const TensorView &d, int64_t rows,
                                int64_t features, const ChannelGradTerms &t,
                                const TensorView *mask) {
  const TensorView *in[2] = {&g, &x};
  mapRows(in, d, rows, features,
          [&](const float *const *src, float *__restrict dst, int64_t m) {
            const float *__restrict gv = src[0], *__restrict v = src[1];
            for (int64_t r = 0; r < m; ++r)
              for (int64_t c = 0; c < features; ++c) {
                int64_t i = r * features + c;
                float xhat = (v[i] - t.mean[c]) * t.inv[c];
                dst[i] = t.k[c] * (gv[i] - t.meanG[c] - xhat * t.meanGXhat[c]);
              }
          },
          mask);
}
