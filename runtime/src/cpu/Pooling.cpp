//===- Pooling.cpp - max pooling on NCHW planes and NHWC images -----------===//
#include "cpu/Pooling.h"
#include "cpu/PathMode.h"

#include "common/ElementMath.h"
#include "cpu/Parallel.h"
#include "cpu/Sums.h"
#include "cpu/VectorLevel.h"
#include "reference/Window.h"


#include <algorithm>
#include <cstring>
#include <limits>

using namespace mp::rt;

namespace {

/// ref::maxPoolTakes's rule for a window with a tap already: the candidate
/// v replaces the best b when b is not NaN and v is greater or NaN. Written
/// with & and | (no short circuit), so the loops become vector selects
/// rather than a branch per tap.
inline bool takes(float b, float v) {
  return (b == b) & ((v > b) | (v != v));
}

/// The horizontal pass over one image row (at `rowOffset` in its plane):
/// for each output column j, the first maximum of the window's columns
/// inside the image (val[j]) and where it is in the plane (col[j]). The
/// columns [lo, hi) whose windows the padding does not clip go tap by tap
/// across all of them (KStride > 0: the column stride as a constant, so
/// these loops vectorize; 0: the window's).
template <int KStride>
void rowPass(const ref::Window &w, int64_t wd, int64_t ow, int64_t lo,
             int64_t hi, const float *row, int32_t rowOffset, float *val,
             int32_t *col) {
  const int64_t sw = KStride > 0 ? KStride : w.strideW;
  auto clipped = [&](int64_t j) {
    float b = 0;
    int32_t at = -1;
    for (int64_t kw = 0; kw < w.sizeW; ++kw) {
      int64_t c = j * sw - w.padLeft + kw;
      if (c < 0 || c >= wd)
        continue;
      if (at < 0 || takes(b, row[c])) {
        b = row[c];
        at = rowOffset + static_cast<int32_t>(c);
      }
    }
    val[j] = b;
    col[j] = at;
  };
  for (int64_t j = 0; j < lo; ++j)
    clipped(j);
  const int32_t start = static_cast<int32_t>(lo * sw - w.padLeft);
  const int32_t first = rowOffset + start;
  const float *base = row + start;
  const int64_t n = hi - lo;
  float *v = val + lo;
  int32_t *c = col + lo;
  for (int64_t j = 0; j < n; ++j) {
    v[j] = base[j * sw];
    c[j] = first + static_cast<int32_t>(j * sw);
  }
  for (int64_t kw = 1; kw < w.sizeW; ++kw)
    for (int64_t j = 0; j < n; ++j) {
      float cand = base[j * sw + kw], b = v[j];
      bool t = takes(b, cand);
      // The index as a mask select, which vectorizes with the values'.
      int32_t m = -static_cast<int32_t>(t);
      v[j] = t ? cand : b;
      c[j] = ((first + static_cast<int32_t>(j * sw + kw)) & m) | (c[j] & ~m);
    }
  for (int64_t j = std::max(lo, hi); j < ow; ++j)
    clipped(j);
}

/// The horizontal pass of every row of a plane: val and col are h x ow.
/// When the windows tile each row exactly (no column padding, wd = ow *
/// stride), the plane is one row of h * ow windows: one long loop.
void planeRows(const ref::Window &w, int64_t h, int64_t wd, int64_t ow,
               int64_t lo, int64_t hi, const float *plane, float *val,
               int32_t *col) {
  auto pass = [&](int64_t width, int64_t n, int64_t from, int64_t to,
                  const float *row, int32_t offset, float *v, int32_t *c) {
    if (w.strideW == 1)
      rowPass<1>(w, width, n, from, to, row, offset, v, c);
    else if (w.strideW == 2)
      rowPass<2>(w, width, n, from, to, row, offset, v, c);
    else
      rowPass<0>(w, width, n, from, to, row, offset, v, c);
  };
  if (w.padLeft == 0 && w.padRight == 0 && wd == ow * w.strideW &&
      w.sizeW <= w.strideW) {
    pass(h * wd, h * ow, 0, h * ow, plane, 0, val, col);
    return;
  }
  for (int64_t r = 0; r < h; ++r)
    pass(wd, ow, lo, hi, plane + r * wd, static_cast<int32_t>(r * wd),
         val + r * ow, col + r * ow);
}

/// The vertical pass of output row i over the rows' maxima: best[j] (and,
/// with `at`, the tap's offset in the plane). The rows merge in window
/// order with the same rule, so the tap found is the row-major first
/// maximum (the first NaN) of the window, the one ref::maxPoolArgMax picks:
/// the first row holding the window's maximum, and in it the first column.
void columnPass(const ref::Window &w, int64_t h, int64_t ow, int64_t i,
                const float *val, const int32_t *col, float *best,
                int32_t *at) {
  bool first = true;
  for (int64_t kh = 0; kh < w.sizeH; ++kh) {
    int64_t ih = i * w.strideH - w.padTop + kh;
    if (ih < 0 || ih >= h)
      continue;
    const float *v = val + ih * ow;
    const int32_t *c = col + ih * ow;
    if (first) {
      std::copy(v, v + ow, best);
      if (at)
        std::copy(c, c + ow, at);
      first = false;
      continue;
    }
    if (!at) {
      for (int64_t j = 0; j < ow; ++j)
        best[j] = takes(best[j], v[j]) ? v[j] : best[j];
      continue;
    }
    for (int64_t j = 0; j < ow; ++j) {
      bool t = takes(best[j], v[j]);
      int32_t m = -static_cast<int32_t>(t);
      best[j] = t ? v[j] : best[j];
      at[j] = (c[j] & m) | (at[j] & ~m);
    }
  }
}

/// max_pool2d / max_pool2d_grad on NHWC images, one (image, channel block)
/// item at a time: `x` (h x wd pixels, `xs` floats apart) holds the block's
/// `cb` channels of one image, `g` / `y` the pooled ones (`ys` apart). The
/// taps of each window go in the reference's row-major order with its rule
/// (takes), a vector of channels at a time, so every channel finds the
/// reference's tap; the gradient is routed output by output in memory
/// order, the reference's order of additions. Where the windows do not
/// overlap (stride >= window, the usual 2x2 / 2), each dx element gets at
/// most one addition to its zero, so the scatter becomes a select per tap
/// (0 + g where the tap is the window's maximum), which vectorizes: the
/// same bits. Inlined into runVectorized's copies.
inline __attribute__((always_inline)) void
nhwcItem(const ref::Window &w, bool isGrad, int64_t h, int64_t wd, int64_t oh,
         int64_t ow, int64_t cb, const float *x, int64_t xs, const float *g,
         float *y, int64_t ys, float *dx, float *best, int32_t *at) {
  const bool disjoint = w.strideH >= w.sizeH && w.strideW >= w.sizeW;
  if (isGrad)
    for (int64_t p = 0; p < h * wd; ++p)
      std::fill(dx + p * xs, dx + p * xs + cb, 0.0f);
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      bool first = true;
      int64_t h0 = i * w.strideH - w.padTop, w0 = j * w.strideW - w.padLeft;
      int64_t kh0 = std::max<int64_t>(0, -h0),
              kh1 = std::min<int64_t>(w.sizeH, h - h0);
      int64_t kw0 = std::max<int64_t>(0, -w0),
              kw1 = std::min<int64_t>(w.sizeW, wd - w0);
      for (int64_t kh = kh0; kh < kh1; ++kh)
        for (int64_t kw = kw0; kw < kw1; ++kw) {
          int32_t tap = static_cast<int32_t>((h0 + kh) * wd + w0 + kw);
          const float *v = x + tap * xs;
          if (first) {
            std::copy(v, v + cb, best);
            if (isGrad)
              std::fill(at, at + cb, tap);
            first = false;
            continue;
          }
          if (!isGrad) {
            for (int64_t c = 0; c < cb; ++c)
              best[c] = takes(best[c], v[c]) ? v[c] : best[c];
            continue;
          }
          for (int64_t c = 0; c < cb; ++c) {
            bool t = takes(best[c], v[c]);
            int32_t m = -static_cast<int32_t>(t);
            best[c] = t ? v[c] : best[c];
            at[c] = (tap & m) | (at[c] & ~m);
          }
        }
      int64_t o = (i * ow + j) * ys;
      if (!isGrad) {
        std::copy(best, best + cb, y + o);
        continue;
      }
      if (!disjoint) {
        for (int64_t c = 0; c < cb; ++c)
          dx[at[c] * xs + c] += g[o + c];
        continue;
      }
      for (int64_t kh = kh0; kh < kh1; ++kh)
        for (int64_t kw = kw0; kw < kw1; ++kw) {
          int32_t tap = static_cast<int32_t>((h0 + kh) * wd + w0 + kw);
          float *d = dx + tap * xs;
          for (int64_t c = 0; c < cb; ++c)
            d[c] = at[c] == tap ? 0.0f + g[o + c] : d[c];
        }
    }
}

/// max_pool2d(_grad) on NHWC images: items of one image and a block of up
/// to 64 channels over the threads (blocks of one image touch disjoint
/// channels, so overlapping windows never race). float32 is read and
/// written in place; 16-bit blocks are widened into a copy and rounded
/// once on the way out.
void runMaxPoolNhwc(const ref::Window &w, bool isGrad, const TensorView &x,
                    const TensorView &y, const TensorView &result) {
  int64_t n = x.shape[0], h = x.shape[1], wd = x.shape[2], c = x.shape[3];
  int64_t oh = y.shape[1], ow = y.shape[2];
  const int64_t block = std::min<int64_t>(c, 64);
  int64_t blocks = (c + block - 1) / block;
  const bool wide = x.dtype == DType::F32;
  size_t size = dtypeSize(x.dtype);
  const char *xd = static_cast<const char *>(x.data);
  const char *yd = static_cast<const char *>(y.data);
  char *rd = static_cast<char *>(result.data);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / (h * wd * block));
  cpu::parallelFor(n * blocks, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> best(block), xb(wide ? 0 : h * wd * block),
        yb(wide ? 0 : oh * ow * block), db(wide || !isGrad ? 0 : h * wd * block);
    std::vector<int32_t> at(block);
    // Copies between a block of the image (stride c) and a packed buffer.
    // (One call for the whole image when the block is all its channels.)
    auto widen = [&](const char *from, int64_t pixels, int64_t c0, int64_t cb,
                     float *to) {
      if (cb == c)
        return toFloats(x.dtype, from, to, pixels * c);
      for (int64_t p = 0; p < pixels; ++p)
        toFloats(x.dtype, from + (p * c + c0) * size, to + p * cb, cb);
    };
    auto narrow = [&](const float *from, int64_t pixels, int64_t c0, int64_t cb,
                      char *to) {
      if (cb == c)
        return fromFloats(from, x.dtype, to, pixels * c);
      for (int64_t p = 0; p < pixels; ++p)
        fromFloats(from + p * cb, x.dtype, to + (p * c + c0) * size, cb);
    };
    for (int64_t item = begin; item < end; ++item) {
      int64_t img = item / blocks, c0 = (item % blocks) * block;
      int64_t cb = std::min(block, c - c0);
      const char *xi = xd + img * h * wd * c * size;
      const char *yi = yd + img * oh * ow * c * size;
      char *ri = rd + img * (isGrad ? h * wd : oh * ow) * c * size;
      if (wide) {
        const float *xf = reinterpret_cast<const float *>(xi) + c0;
        float *rf = reinterpret_cast<float *>(ri) + c0;
        const float *gf = reinterpret_cast<const float *>(yi) + c0;
        cpu::runVectorized([&] {
          nhwcItem(w, isGrad, h, wd, oh, ow, cb, xf, c, gf, rf, c, rf,
                   best.data(), at.data());
        });
        continue;
      }
      widen(xi, h * wd, c0, cb, xb.data());
      if (!isGrad) {
        cpu::runVectorized([&] {
          nhwcItem(w, false, h, wd, oh, ow, cb, xb.data(), cb, nullptr,
                   yb.data(), cb, nullptr, best.data(), at.data());
        });
        narrow(yb.data(), oh * ow, c0, cb, ri);
        continue;
      }
      widen(yi, oh * ow, c0, cb, yb.data());
      cpu::runVectorized([&] {
        nhwcItem(w, true, h, wd, oh, ow, cb, xb.data(), cb, yb.data(), nullptr,
                 cb, db.data(), best.data(), at.data());
      });
      narrow(db.data(), h * wd, c0, cb, ri);
    }
  });
}

} // namespace

/// global_avg_pool2d(_grad) on NHWC images (Pooling.h); false where it
/// declines.
static bool globalPoolNhwc(cpu::PathMode mode, const KernelDesc &kernel,
                           const std::vector<TensorView> &in,
                           const std::vector<TensorView> &out) {
  bool isGrad = kernel.opId() == OpId::TrainGlobalAvgPool2dGrad;
  if (in.size() != 1 || out.size() != 1)
    return false;
  const TensorView &image = isGrad ? out[0] : in[0];
  const TensorView &pooled = isGrad ? in[0] : out[0];
  ref::Layout layout;
  if (!ref::getLayout(kernel, layout).isOk() || layout != ref::Layout::NHWC ||
      image.shape.size() != 4 || pooled.shape.size() != 2 ||
      !isFloat(image.dtype) || !isFloat(pooled.dtype) ||
      (isGrad && pooled.dtype != image.dtype) ||
      pooled.shape[0] != image.shape[0] || pooled.shape[1] != image.shape[3] ||
      image.numElements() == 0 || !image.data || !pooled.data)
    return false;
  if (mode == cpu::PathMode::Check)
    return true;
  int64_t n = image.shape[0], pixels = image.shape[1] * image.shape[2],
          c = image.shape[3];
  size_t imageSize = dtypeSize(image.dtype), pooledSize = dtypeSize(pooled.dtype);
  char *imageData = static_cast<char *>(image.data);
  char *pooledData = static_cast<char *>(pooled.data);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / (pixels * c));
  cpu::parallelFor(n, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> row(c), buf(image.dtype == DType::F32 ? 0 : pixels * c);
    std::vector<double> sum(c);
    for (int64_t i = begin; i < end; ++i) {
      char *im = imageData + i * pixels * c * imageSize;
      char *po = pooledData + i * c * pooledSize;
      if (!isGrad) {
        const float *x = reinterpret_cast<const float *>(im);
        if (image.dtype != DType::F32) {
          toFloats(image.dtype, im, buf.data(), pixels * c);
          x = buf.data();
        }
        std::fill(sum.begin(), sum.end(), 0.0);
        cpu::addColumns(sum.data(), x, pixels, c, c);
        double area = static_cast<double>(pixels);
        for (int64_t j = 0; j < c; ++j)
          row[j] = static_cast<float>(sum[j] / area);
        fromFloats(row.data(), pooled.dtype, po, c);
        continue;
      }
      toFloats(pooled.dtype, po, row.data(), c);
      float area = static_cast<float>(pixels);
      for (int64_t j = 0; j < c; ++j)
        row[j] = row[j] / area;
      // The first pixel's row rounded once, copied to every other pixel.
      fromFloats(row.data(), image.dtype, im, c);
      for (int64_t p = 1; p < pixels; ++p)
        std::memcpy(im + p * c * imageSize, im, c * imageSize);
    }
  });
  return true;
}

void cpu::runPooling(PathMode mode, const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out, bool &handled) {
  handled = false;
  if (kernel.opId() == OpId::TrainGlobalAvgPool2d ||
      kernel.opId() == OpId::TrainGlobalAvgPool2dGrad) {
    handled = globalPoolNhwc(mode, kernel, in, out);
    return;
  }
  bool isGrad = kernel.opId() == OpId::TrainMaxPool2dGrad;
  if ((kernel.opId() != OpId::TrainMaxPool2d && !isGrad) ||
      in.size() != (isGrad ? 2u : 1u) || out.size() != 1)
    return;
  const TensorView &x = isGrad ? in[1] : in[0];
  const TensorView &y = isGrad ? in[0] : out[0]; // the pooled shape
  ref::Layout layout;
  ref::Window w;
  std::vector<int64_t> expected;
  if (!ref::getLayout(kernel, layout).isOk() ||
      !ref::getPoolWindow(kernel, w).isOk() || x.shape.size() != 4 ||
      !isFloat(x.dtype) || y.dtype != x.dtype || out[0].dtype != x.dtype ||
      (isGrad && out[0].shape != x.shape) ||
      !ref::windowOutputShape(kernel, x.shape, layout,
                              x.shape[layout == ref::Layout::NCHW ? 1 : 3], w,
                              expected)
           .isOk() ||
      expected != y.shape || x.numElements() == 0 || y.numElements() == 0 ||
      !x.data || !y.data || !out[0].data ||
      x.shape[2] * x.shape[3] > std::numeric_limits<int32_t>::max())
    return;
  if (mode == PathMode::Check) {
    handled = true;
    return;
  }
  if (layout == ref::Layout::NHWC) {
    runMaxPoolNhwc(w, isGrad, x, y, out[0]);
    handled = true;
    return;
  }
  int64_t planes = x.shape[0] * x.shape[1];
  int64_t h = x.shape[2], wd = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  size_t size = dtypeSize(x.dtype);
  const char *xs = static_cast<const char *>(x.data);
  const char *ys = static_cast<const char *>(y.data);
  char *result = static_cast<char *>(out[0].data);
  // The output columns whose windows lie inside the image's columns.
  int64_t lo = std::min(ow, (w.padLeft + w.strideW - 1) / w.strideW);
  int64_t last = wd - w.sizeW + w.padLeft; // the last window's first column
  int64_t hi = last < 0 ? lo : std::max(lo, std::min(ow, last / w.strideW + 1));
  const bool wide = x.dtype == DType::F32;
  parallelFor(planes, std::max<int64_t>(1, (int64_t(1) << 14) / (h * wd)),
              [&](int64_t begin, int64_t end) {
    // Per part: the rows' maxima and their columns; for a 16-bit dtype one
    // widened x plane, the pooled plane (forward), the output gradient and
    // dx planes (grad); float32 planes are read and written in place.
    std::vector<float> val(h * ow), plane(wide ? 0 : h * wd),
        pooled(wide || isGrad ? 0 : oh * ow), grad(wide || !isGrad ? 0 : oh * ow),
        dxPlane(wide || !isGrad ? 0 : h * wd), best(isGrad ? ow : 0);
    std::vector<int32_t> col(h * ow);
    std::vector<int32_t> at(isGrad ? ow : 0);
    for (int64_t p = begin; p < end; ++p) {
      const float *src = wide ? reinterpret_cast<const float *>(xs) + p * h * wd
                              : plane.data();
      if (!wide)
        toFloats(x.dtype, xs + p * h * wd * size, plane.data(), h * wd);
      planeRows(w, h, wd, ow, lo, hi, src, val.data(), col.data());
      if (!isGrad) {
        float *dst = wide ? reinterpret_cast<float *>(result) + p * oh * ow
                          : pooled.data();
        for (int64_t i = 0; i < oh; ++i)
          columnPass(w, h, ow, i, val.data(), col.data(), dst + i * ow, nullptr);
        if (!wide)
          fromFloats(pooled.data(), x.dtype, result + p * oh * ow * size,
                     oh * ow);
        continue;
      }
      const float *g = wide ? reinterpret_cast<const float *>(ys) + p * oh * ow
                            : grad.data();
      float *dx = wide ? reinterpret_cast<float *>(result) + p * h * wd
                       : dxPlane.data();
      if (!wide)
        toFloats(y.dtype, ys + p * oh * ow * size, grad.data(), oh * ow);
      std::fill(dx, dx + h * wd, 0.0f);
      for (int64_t i = 0; i < oh; ++i) {
        columnPass(w, h, ow, i, val.data(), col.data(), best.data(), at.data());
        // Outputs in memory order, as the reference routes gradients.
        const float *gi = g + i * ow;
        for (int64_t j = 0; j < ow; ++j)
          dx[at[j]] += gi[j];
      }
      if (!wide)
        fromFloats(dx, x.dtype, result + p * h * wd * size, h * wd);
    }
  });
  handled = true;
}
