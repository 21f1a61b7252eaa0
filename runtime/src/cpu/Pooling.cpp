//===- Pooling.cpp - max pooling on NCHW planes ---------------------------===//
#include "cpu/Pooling.h"
#include "cpu/Probe.h"

#include "common/ElementMath.h"
#include "cpu/Parallel.h"
#include "reference/Window.h"


#include <algorithm>
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

} // namespace

void cpu::runMaxPool(const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out, bool &handled) {
  handled = false;
  bool isGrad = kernel.opId() == OpId::TrainMaxPool2dGrad;
  if ((kernel.opId() != OpId::TrainMaxPool2d && !isGrad) ||
      in.size() != (isGrad ? 2u : 1u) || out.size() != 1)
    return;
  const TensorView &x = isGrad ? in[1] : in[0];
  const TensorView &y = isGrad ? in[0] : out[0]; // the pooled shape
  ref::Layout layout;
  ref::Window w;
  std::vector<int64_t> expected;
  if (!ref::getLayout(kernel, layout).isOk() || layout != ref::Layout::NCHW ||
      !ref::getPoolWindow(kernel, w).isOk() || x.shape.size() != 4 ||
      !isFloat(x.dtype) || y.dtype != x.dtype || out[0].dtype != x.dtype ||
      (isGrad && out[0].shape != x.shape) ||
      !ref::windowOutputShape(kernel, x.shape, layout, x.shape[1], w, expected)
           .isOk() ||
      expected != y.shape || x.numElements() == 0 || y.numElements() == 0 ||
      !x.data || !y.data || !out[0].data ||
      x.shape[2] * x.shape[3] > std::numeric_limits<int32_t>::max())
    return;
  if (probing()) {
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
