//===- ChannelStats.cpp - batch norm over [rows, features] by row blocks --===//
#include "cpu/ChannelStats.h"

#include "cpu/ElementAccess.h"

#include "cpu/Parallel.h"
#include "cpu/VectorLevel.h"
#include "common/ElementMath.h"

#include <algorithm>
#include <initializer_list>

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
//
// f32 and bf16 tensors are read (and written) in place, each element
// widened (rounded) in the loop itself (cpu/ElementAccess.h). f16, and a
// mix of dtypes, go through f32 buffers (rowsOf, mapRows) instead.

/// One block: mean[c] = sum / m, m2[c] = sum of (x - mean)^2, in f64. Four
/// rows at a time, added in pairs before they reach the running sum: the
/// sum's dependency chain is a quarter as long (the running sums stay in
/// memory between rows), and the order is fixed by the shape.
template <typename E>
inline __attribute__((always_inline)) void
blockMoments(const typename E::T *__restrict x, int64_t m, int64_t f,
             double *__restrict mean, double *__restrict m2) {
  for (int64_t c = 0; c < f; ++c)
    mean[c] = m2[c] = 0;
  int64_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const typename E::T *row = x + r * f;
    for (int64_t c = 0; c < f; ++c)
      mean[c] += (static_cast<double>(E::load(row, c)) +
                  static_cast<double>(E::load(row, f + c))) +
                 (static_cast<double>(E::load(row, 2 * f + c)) +
                  static_cast<double>(E::load(row, 3 * f + c)));
  }
  for (; r < m; ++r)
    for (int64_t c = 0; c < f; ++c)
      mean[c] += static_cast<double>(E::load(x, r * f + c));
  double count = static_cast<double>(m);
  for (int64_t c = 0; c < f; ++c)
    mean[c] /= count;
  // (x[i] - mean[c])^2, element i of channel c.
  auto square = [&](const typename E::T *row, int64_t i, int64_t c) {
    double d = static_cast<double>(E::load(row, i)) - mean[c];
    return d * d;
  };
  for (r = 0; r + 4 <= m; r += 4) {
    const typename E::T *row = x + r * f;
    for (int64_t c = 0; c < f; ++c)
      m2[c] += (square(row, c, c) + square(row, f + c, c)) +
               (square(row, 2 * f + c, c) + square(row, 3 * f + c, c));
  }
  for (; r < m; ++r)
    for (int64_t c = 0; c < f; ++c)
      m2[c] += square(x + r * f, c, c);
}

/// One block: sumG[c] = sum of g, sumGX[c] = sum of g (x - center), in f64,
/// four rows at a time like blockMoments. With `Masked`, g is read as
/// relu_grad(g, r) writes it.
template <typename E, bool Masked>
inline __attribute__((always_inline)) void
blockGradSums(const typename E::T *__restrict g,
              const typename E::T *__restrict x,
              const typename E::T *__restrict r, int64_t m, int64_t f,
              const double *__restrict center, double *__restrict sumG,
              double *__restrict sumGX) {
  for (int64_t c = 0; c < f; ++c)
    sumG[c] = sumGX[c] = 0;
  auto gAt = [&](int64_t i) {
    float gv = E::load(g, i);
    return static_cast<double>(Masked ? ref::reluGradF(gv, E::load(r, i))
                                      : gv);
  };
  auto xAt = [&](int64_t i, int64_t c) {
    return static_cast<double>(E::load(x, i)) - center[c];
  };
  int64_t row = 0;
  for (; row + 4 <= m; row += 4) {
    int64_t i = row * f;
    for (int64_t c = 0; c < f; ++c) {
      double g0 = gAt(i + c), g1 = gAt(i + f + c), g2 = gAt(i + 2 * f + c),
             g3 = gAt(i + 3 * f + c);
      sumG[c] += (g0 + g1) + (g2 + g3);
      sumGX[c] += (g0 * xAt(i + c, c) + g1 * xAt(i + f + c, c)) +
                  (g2 * xAt(i + 2 * f + c, c) + g3 * xAt(i + 3 * f + c, c));
    }
  }
  for (; row < m; ++row)
    for (int64_t c = 0; c < f; ++c) {
      double gv = gAt(row * f + c);
      sumG[c] += gv;
      sumGX[c] += gv * xAt(row * f + c, c);
    }
}

/// Rows [begin, end) of [rows, f] as runs of whole rows: `group` rows at a
/// time (one flat loop over group * f elements, so that a few channels do
/// not make a short inner loop per row), then the rest one by one;
/// body(first element, elements). The per-channel parameters the bodies
/// read are replicated `group` times (replicated()), so element j of a run
/// reads parameter j.
template <typename Body>
inline __attribute__((always_inline)) void
forRowRuns(int64_t begin, int64_t end, int64_t f, int64_t group,
           const Body &body) {
  int64_t r = begin;
  for (; r + group <= end; r += group)
    body(r * f, group * f);
  for (; r < end; ++r)
    body(r * f, f);
}

/// Rows per run of forRowRuns: about 256 elements.
int64_t runRows(int64_t f) {
  return std::max<int64_t>(1, 256 / std::max<int64_t>(f, 1));
}

/// v[0, f) repeated `group` times.
std::vector<float> replicated(const float *v, int64_t f, int64_t group) {
  std::vector<float> out(static_cast<size_t>(f * group));
  for (int64_t i = 0; i < f * group; ++i)
    out[i] = v[i % f];
  return out;
}

/// y = (x - mean) a + offset (then relu) over rows [begin, end); the
/// parameters replicated `group` times.
template <typename E, bool Relu>
inline __attribute__((always_inline)) void
normalizeRows(const typename E::T *__restrict x, typename E::T *__restrict y,
              int64_t begin, int64_t end, int64_t f, int64_t group,
              const float *__restrict mean, const float *__restrict a,
              const float *__restrict offset) {
  forRowRuns(begin, end, f, group, [&](int64_t first, int64_t n) {
    const typename E::T *__restrict xv = x + first;
    typename E::T *__restrict yv = y + first;
    for (int64_t j = 0; j < n; ++j) {
      float v = (E::load(xv, j) - mean[j]) * a[j] + offset[j];
      E::store(yv, j, Relu ? ref::reluF(v) : v);
    }
  });
}

/// d = k (g - meanG - xhat meanGXhat) over rows [begin, end), the terms
/// replicated `group` times; with `Masked`, g read as relu_grad(g, r)
/// writes it.
template <typename E, bool Masked>
inline __attribute__((always_inline)) void
normalizeGradRows(const typename E::T *__restrict g,
                  const typename E::T *__restrict x,
                  const typename E::T *__restrict r,
                  typename E::T *__restrict d, int64_t begin, int64_t end,
                  int64_t f, int64_t group, const ChannelGradTerms &t) {
  const float *__restrict mean = t.mean, *__restrict inv = t.inv,
                          *__restrict k = t.k, *__restrict meanG = t.meanG,
                          *__restrict meanGXhat = t.meanGXhat;
  forRowRuns(begin, end, f, group, [&](int64_t first, int64_t n) {
    const typename E::T *__restrict gv = g + first, *__restrict xv = x + first,
                                    *__restrict rv = Masked ? r + first : r;
    typename E::T *__restrict dv = d + first;
    for (int64_t j = 0; j < n; ++j) {
      float gj = E::load(gv, j);
      if (Masked)
        gj = ref::reluGradF(gj, E::load(rv, j));
      float xhat = (E::load(xv, j) - mean[j]) * inv[j];
      E::store(dv, j, k[j] * (gj - meanG[j] - xhat * meanGXhat[j]));
    }
  });
}

/// Whether every view is f32, or every one bf16: the in-place paths.
bool inPlace(std::initializer_list<const TensorView *> views, DType &dtype) {
  dtype = (*views.begin())->dtype;
  if (dtype != DType::F32 && dtype != DType::BF16)
    return false;
  for (const TensorView *v : views)
    if (v && v->dtype != dtype)
      return false;
  return true;
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

/// Rows per task of the elementwise passes.
int64_t passGrain(int64_t features) {
  return std::max<int64_t>(cpu::statsBlockRows(features),
                           (int64_t(1) << 14) / std::max<int64_t>(features, 1));
}

/// The elementwise passes: rows over the threads, a block of rows widened
/// and rounded at a time; body(f32 rows in, f32 rows out, rows). With
/// `mask0`, input 0 is read masked by it (maskedRowsOf).
template <size_t NIn, typename Body>
void mapRows(const TensorView *const (&in)[NIn], const TensorView &out,
             int64_t rows, int64_t features, const Body &body,
             const TensorView *mask0 = nullptr) {
  int64_t blockRows = statsBlockRows(features);
  parallelFor(rows, passGrain(features), [&](int64_t begin, int64_t end) {
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
  DType dtype;
  bool direct = inPlace({&x}, dtype);
  forEachBlock(rows, features, [&](int64_t b, int64_t r0, int64_t m) {
    double *bm = &blockMean[b * f], *bm2 = &blockM2[b * f];
    int64_t first = r0 * features;
    if (direct && dtype == DType::BF16) {
      const uint16_t *v = x.as<const uint16_t>() + first;
      runVectorized([&] { blockMoments<Bf16Elems>(v, m, features, bm, bm2); });
      return;
    }
    std::vector<float> buf;
    const float *v = direct ? x.as<const float>() + first
                            : rowsOf(x, r0, m, features, buf);
    runVectorized([&] { blockMoments<F32Elems>(v, m, features, bm, bm2); });
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
  DType dtype;
  bool direct = inPlace({&g, &x, mask}, dtype);
  forEachBlock(rows, features, [&](int64_t b, int64_t r0, int64_t m) {
    double *sg = &blockG[b * f], *sgx = &blockGX[b * f];
    const double *ctr = centerD.data();
    int64_t first = r0 * features;
    auto run = [&](auto elems, const auto *gv, const auto *xv,
                   const auto *rv) {
      using E = decltype(elems);
      runVectorized([&] {
        if (rv)
          blockGradSums<E, true>(gv, xv, rv, m, features, ctr, sg, sgx);
        else
          blockGradSums<E, false>(gv, xv, rv, m, features, ctr, sg, sgx);
      });
    };
    if (direct && dtype == DType::BF16) {
      run(Bf16Elems(), g.as<const uint16_t>() + first,
          x.as<const uint16_t>() + first,
          mask ? mask->as<const uint16_t>() + first : nullptr);
    } else if (direct) {
      run(F32Elems(), g.as<const float>() + first,
          x.as<const float>() + first,
          mask ? mask->as<const float>() + first : nullptr);
    } else {
      std::vector<float> gBuf, xBuf, maskBuf;
      const float *gv = maskedRowsOf(g, mask, r0, m, features, gBuf, maskBuf);
      const float *xv = rowsOf(x, r0, m, features, xBuf);
      run(F32Elems(), gv, xv, static_cast<const float *>(nullptr));
    }
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
  DType dtype;
  if (inPlace({&x, &y}, dtype)) {
    int64_t group = runRows(features);
    std::vector<float> meanR = replicated(mean, features, group),
                       aR = replicated(a, features, group),
                       offsetR = replicated(offset, features, group);
    auto pass = [&](auto elems) {
      using E = decltype(elems);
      using T = typename E::T;
      const T *xv = x.as<const T>();
      T *yv = y.as<T>();
      parallelFor(rows, passGrain(features), [&](int64_t begin, int64_t end) {
        runVectorized([&] {
          if (relu)
            normalizeRows<E, true>(xv, yv, begin, end, features, group,
                                   meanR.data(), aR.data(), offsetR.data());
          else
            normalizeRows<E, false>(xv, yv, begin, end, features, group,
                                    meanR.data(), aR.data(), offsetR.data());
        });
      });
    };
    withElems(dtype, pass);
    return;
  }
  const TensorView *in[1] = {&x};
  mapRows(in, y, rows, features,
          [&](const float *const *src, float *__restrict dst, int64_t m) {
            normalizeRows<F32Elems, false>(src[0], dst, 0, m, features, 1,
                                           mean, a, offset);
            if (relu)
              for (int64_t i = 0; i < m * features; ++i)
                dst[i] = ref::reluF(dst[i]);
          });
}

void cpu::normalizeChannelsGrad(const TensorView &g, const TensorView &x,
                                const TensorView &d, int64_t rows,
                                int64_t features, const ChannelGradTerms &t,
                                const TensorView *mask) {
  DType dtype;
  if (inPlace({&g, &x, &d, mask}, dtype)) {
    int64_t group = runRows(features);
    std::vector<float> kR = replicated(t.k, features, group),
                       meanR = replicated(t.mean, features, group),
                       invR = replicated(t.inv, features, group),
                       meanGR = replicated(t.meanG, features, group),
                       meanGXhatR = replicated(t.meanGXhat, features, group);
    ChannelGradTerms terms{kR.data(), meanR.data(), invR.data(), meanGR.data(),
                           meanGXhatR.data()};
    auto pass = [&](auto elems) {
      using E = decltype(elems);
      using T = typename E::T;
      const T *gv = g.as<const T>(), *xv = x.as<const T>(),
              *rv = mask ? mask->as<const T>() : nullptr;
      T *dv = d.as<T>();
      parallelFor(rows, passGrain(features), [&](int64_t begin, int64_t end) {
        runVectorized([&] {
          if (rv)
            normalizeGradRows<E, true>(gv, xv, rv, dv, begin, end, features,
                                       group, terms);
          else
            normalizeGradRows<E, false>(gv, xv, rv, dv, begin, end, features,
                                        group, terms);
        });
      });
    };
    withElems(dtype, pass);
    return;
  }
  const TensorView *in[2] = {&g, &x};
  mapRows(in, d, rows, features,
          [&](const float *const *src, float *__restrict dst, int64_t m) {
            normalizeGradRows<F32Elems, false>(src[0], src[1], nullptr, dst, 0,
                                               m, features, 1, t);
          },
          mask);
}
