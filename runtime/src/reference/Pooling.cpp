//===- Pooling.cpp - max, average and global average pooling and grads ----===//
//
// Max pooling ignores the padding (only real elements compete; NaN wins, as
// in PyTorch); average pooling divides by the full window area, padding
// included (count_include_pad=True). The gradients mirror the forward ops
// exactly: max_pool2d_grad routes each output gradient to the first maximum
// of its window, found by the same scan as the forward op.
//
//===----------------------------------------------------------------------===//
#include "reference/Window.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// A pooling op's tensors through their layouts.
struct PoolGeometry {
  Image x, y;
  Window window;
};
} // namespace

/// Checks that pooling `input` gives `output` and fills `g`.
static Status getPoolGeometry(const KernelDesc &k, const TensorView &input,
                              const TensorView &output, const char *inName,
                              const char *outName, PoolGeometry &g) {
  Layout layout;
  MP_RETURN_IF_ERROR(getLayout(k, layout));
  MP_RETURN_IF_ERROR(getPoolWindow(k, g.window));
  MP_RETURN_IF_ERROR(checkRank(k, input, 4, inName));
  g.x = imageOf(input.shape, layout);
  Shape expected;
  MP_RETURN_IF_ERROR(
      windowOutputShape(k, input.shape, layout, g.x.c, g.window, expected));
  MP_RETURN_IF_ERROR(checkShape(k, output, expected, outName));
  g.y = imageOf(output.shape, layout);
  return Status::ok();
}

/// Calls `f(offset in x, offset in y)` for every real (unpadded) element of
/// every window.
template <typename F> static void forEachTap(const PoolGeometry &g, F f) {
  const Window &w = g.window;
  for (int64_t n = 0; n < g.y.n; ++n)
    for (int64_t c = 0; c < g.y.c; ++c)
      for (int64_t oh = 0; oh < g.y.h; ++oh)
        for (int64_t ow = 0; ow < g.y.w; ++ow) {
          int64_t out = g.y.at(n, c, oh, ow);
          for (int64_t kh = 0; kh < w.sizeH; ++kh) {
            int64_t ih = oh * w.strideH - w.padTop + kh;
            if (ih < 0 || ih >= g.x.h)
              continue;
            for (int64_t kw = 0; kw < w.sizeW; ++kw) {
              int64_t iw = ow * w.strideW - w.padLeft + kw;
              if (iw >= 0 && iw < g.x.w)
                f(g.x.at(n, c, ih, iw), out);
            }
          }
        }
}

/// Calls `f(n, c, oh, ow, offset in y)` for every output element, in memory
/// order of the result (NCHW or NHWC).
template <typename F> static void forEachOutput(const PoolGeometry &g, F f) {
  const Image &y = g.y;
  if (y.sc < y.sw) { // NHWC
    for (int64_t n = 0; n < y.n; ++n)
      for (int64_t oh = 0; oh < y.h; ++oh)
        for (int64_t ow = 0; ow < y.w; ++ow)
          for (int64_t c = 0; c < y.c; ++c)
            f(n, c, oh, ow, y.at(n, c, oh, ow));
    return;
  }
  for (int64_t n = 0; n < y.n; ++n)
    for (int64_t c = 0; c < y.c; ++c)
      for (int64_t oh = 0; oh < y.h; ++oh)
        for (int64_t ow = 0; ow < y.w; ++ow)
          f(n, c, oh, ow, y.at(n, c, oh, ow));
}

/// The x offset of the first maximum of the window of output (n, c, oh,
/// ow) (the first NaN if there is one).
static int64_t windowArgMax(const PoolGeometry &g, const float *x, int64_t n,
                            int64_t c, int64_t oh, int64_t ow) {
  return maxPoolArgMax(g.window, g.x.h, g.x.w, oh, ow, x,
                       [&](int64_t ih, int64_t iw) {
                         return g.x.at(n, c, ih, iw);
                       });
}

//===----------------------------------------------------------------------===//
// max_pool2d, avg_pool2d and their grads
//===----------------------------------------------------------------------===//

static Status checkPool(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  PoolGeometry g;
  return getPoolGeometry(k, in[0], out[0], "x", "result", g);
}

static Status runMaxPool(const KernelDesc &k, const Views &in,
                         const Views &out) {
  PoolGeometry g;
  MP_RETURN_IF_ERROR(getPoolGeometry(k, in[0], out[0], "x", "result", g));
  FloatIn x(in[0]);
  FloatOut y(out[0]);
  forEachOutput(g, [&](int64_t n, int64_t c, int64_t oh, int64_t ow,
                       int64_t o) {
    y[o] = x[windowArgMax(g, x.data(), n, c, oh, ow)];
  });
  y.finish();
  return Status::ok();
}

static Status runAvgPool(const KernelDesc &k, const Views &in,
                         const Views &out) {
  PoolGeometry g;
  MP_RETURN_IF_ERROR(getPoolGeometry(k, in[0], out[0], "x", "result", g));
  FloatIn x(in[0]);
  FloatOut y(out[0], /*zeroed=*/true);
  forEachTap(g, [&](int64_t i, int64_t o) { y[o] += x[i]; });
  float area = static_cast<float>(g.window.sizeH * g.window.sizeW);
  for (int64_t o = 0, e = out[0].numElements(); o < e; ++o)
    y[o] /= area;
  y.finish();
  return Status::ok();
}

static Status checkMaxPoolGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[1], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[1], "x", out[0], "result"));
  MP_RETURN_IF_ERROR(checkDType(k, in[0], in[1].dtype, "grad"));
  PoolGeometry g;
  return getPoolGeometry(k, in[1], in[0], "x", "grad", g);
}

static Status runMaxPoolGrad(const KernelDesc &k, const Views &in,
                             const Views &out) {
  PoolGeometry g;
  MP_RETURN_IF_ERROR(getPoolGeometry(k, in[1], in[0], "x", "grad", g));
  FloatIn grad(in[0]), x(in[1]);
  FloatOut dx(out[0], /*zeroed=*/true);
  // Routed in the result's memory order, so that overlapping windows add
  // into an element in a fixed order.
  forEachOutput(g, [&](int64_t n, int64_t c, int64_t oh, int64_t ow,
                       int64_t o) {
    dx[windowArgMax(g, x.data(), n, c, oh, ow)] += grad[o];
  });
  dx.finish();
  return Status::ok();
}

static Status checkAvgPoolGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  PoolGeometry g;
  return getPoolGeometry(k, out[0], in[0], "result", "grad", g);
}

static Status runAvgPoolGrad(const KernelDesc &k, const Views &in,
                             const Views &out) {
  PoolGeometry g;
  MP_RETURN_IF_ERROR(getPoolGeometry(k, out[0], in[0], "result", "grad", g));
  FloatIn grad(in[0]);
  FloatOut dx(out[0], /*zeroed=*/true);
  float area = static_cast<float>(g.window.sizeH * g.window.sizeW);
  forEachTap(g, [&](int64_t i, int64_t o) { dx[i] += grad[o] / area; });
  dx.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// global_avg_pool2d and its grad
//===----------------------------------------------------------------------===//

/// Checks `image` against `pooled` [N, C] and returns the image geometry.
static Status getGlobalPool(const KernelDesc &k, const TensorView &image,
                            const TensorView &pooled, const char *imageName,
                            const char *pooledName, Image &im) {
  Layout layout;
  MP_RETURN_IF_ERROR(getLayout(k, layout));
  MP_RETURN_IF_ERROR(checkRank(k, image, 4, imageName));
  im = imageOf(image.shape, layout);
  return checkShape(k, pooled, {im.n, im.c}, pooledName);
}

static Status checkGlobalPool(const KernelDesc &k, const Views &in,
                              const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  Image im;
  return getGlobalPool(k, in[0], out[0], "x", "result", im);
}

static Status runGlobalPool(const KernelDesc &k, const Views &in,
                            const Views &out) {
  Image im;
  MP_RETURN_IF_ERROR(getGlobalPool(k, in[0], out[0], "x", "result", im));
  FloatIn x(in[0]);
  FloatOut y(out[0]);
  double area = static_cast<double>(im.h * im.w);
  for (int64_t n = 0; n < im.n; ++n)
    for (int64_t c = 0; c < im.c; ++c) {
      double sum = 0; // f64, as every reduction (reference/Accumulate.h)
      for (int64_t h = 0; h < im.h; ++h)
        for (int64_t w = 0; w < im.w; ++w)
          sum += x[im.at(n, c, h, w)];
      y[n * im.c + c] = static_cast<float>(sum / area);
    }
  y.finish();
  return Status::ok();
}

static Status checkGlobalPoolGrad(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  Image im;
  return getGlobalPool(k, out[0], in[0], "result", "grad", im);
}

static Status runGlobalPoolGrad(const KernelDesc &k, const Views &in,
                                const Views &out) {
  Image im;
  MP_RETURN_IF_ERROR(getGlobalPool(k, out[0], in[0], "result", "grad", im));
  FloatIn grad(in[0]);
  FloatOut dx(out[0]);
  float area = static_cast<float>(im.h * im.w);
  for (int64_t n = 0; n < im.n; ++n)
    for (int64_t c = 0; c < im.c; ++c) {
      float g = grad[n * im.c + c] / area;
      for (int64_t h = 0; h < im.h; ++h)
        for (int64_t w = 0; w < im.w; ++w)
          dx[im.at(n, c, h, w)] = g;
    }
  dx.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// adaptive_avg_pool2d and its grad
//===----------------------------------------------------------------------===//

/// PyTorch's adaptive window of output index i: [floor(i in / out),
/// ceil((i + 1) in / out)).
static int64_t windowBegin(int64_t i, int64_t in, int64_t out) {
  return i * in / out;
}
static int64_t windowEnd(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

/// Checks `image` against `pooled` (N, C kept) and returns both geometries.
static Status getAdaptivePool(const KernelDesc &k, const TensorView &image,
                              const TensorView &pooled, const char *pooledName,
                              Image &x, Image &y) {
  Layout layout;
  MP_RETURN_IF_ERROR(getLayout(k, layout));
  MP_RETURN_IF_ERROR(checkRank(k, image, 4, "x"));
  MP_RETURN_IF_ERROR(checkRank(k, pooled, 4, pooledName));
  x = imageOf(image.shape, layout);
  y = imageOf(pooled.shape, layout);
  if (x.n != y.n || x.c != y.c || x.h < 1 || x.w < 1 || y.h < 1 || y.w < 1)
    return kernelError(k, std::string("expects ") + pooledName +
                              " to keep N and C of x with spatial sizes >= 1 "
                              "but got " +
                              formatShape(pooled.shape) + " from " +
                              formatShape(image.shape));
  return Status::ok();
}

static Status checkAdaptivePool(const KernelDesc &k, const Views &in,
                                const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  Image x, y;
  return getAdaptivePool(k, in[0], out[0], "result", x, y);
}

/// An adaptive window: the output element and its input rows and columns.
struct AdaptiveWindow {
  int64_t n, c, i, j, h0, h1, w0, w1;
  int64_t area() const { return (h1 - h0) * (w1 - w0); }
};

/// Calls `visit(window)` for every output element of `y` pooled from `x`.
template <typename Visit>
static void forEachAdaptiveWindow(const Image &x, const Image &y,
                                  Visit visit) {
  for (int64_t n = 0; n < y.n; ++n)
    for (int64_t c = 0; c < y.c; ++c)
      for (int64_t i = 0; i < y.h; ++i)
        for (int64_t j = 0; j < y.w; ++j)
          visit(AdaptiveWindow{n, c, i, j, windowBegin(i, x.h, y.h),
                               windowEnd(i, x.h, y.h),
                               windowBegin(j, x.w, y.w),
                               windowEnd(j, x.w, y.w)});
}

static Status runAdaptivePool(const KernelDesc &k, const Views &in,
                              const Views &out) {
  Image x, y;
  MP_RETURN_IF_ERROR(getAdaptivePool(k, in[0], out[0], "result", x, y));
  FloatIn input(in[0]);
  FloatOut result(out[0]);
  forEachAdaptiveWindow(x, y, [&](const AdaptiveWindow &a) {
    double sum = 0; // f64, as every reduction
    for (int64_t h = a.h0; h < a.h1; ++h)
      for (int64_t w = a.w0; w < a.w1; ++w)
        sum += input[x.at(a.n, a.c, h, w)];
    result[y.at(a.n, a.c, a.i, a.j)] =
        static_cast<float>(sum / static_cast<double>(a.area()));
  });
  result.finish();
  return Status::ok();
}

static Status checkAdaptivePoolGrad(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  Image x, y;
  return getAdaptivePool(k, out[0], in[0], "grad", x, y);
}

/// Each input element collects grad / window area from every window that
/// holds it (windows overlap where the sizes do not divide), in f32.
static Status runAdaptivePoolGrad(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  Image x, y;
  MP_RETURN_IF_ERROR(getAdaptivePool(k, out[0], in[0], "grad", x, y));
  FloatIn grad(in[0]);
  FloatOut dx(out[0], /*zeroed=*/true);
  forEachAdaptiveWindow(x, y, [&](const AdaptiveWindow &a) {
    float g = grad[y.at(a.n, a.c, a.i, a.j)] / static_cast<float>(a.area());
    for (int64_t h = a.h0; h < a.h1; ++h)
      for (int64_t w = a.w0; w < a.w1; ++w)
        dx[x.at(a.n, a.c, h, w)] += g;
  });
  dx.finish();
  return Status::ok();
}

void ref::addPoolingKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainMaxPool2d, checkPool, runMaxPool},
                   {OpId::TrainAvgPool2d, checkPool, runAvgPool},
                   {OpId::TrainMaxPool2dGrad, checkMaxPoolGrad, runMaxPoolGrad},
                   {OpId::TrainAvgPool2dGrad, checkAvgPoolGrad, runAvgPoolGrad},
                   {OpId::TrainGlobalAvgPool2d, checkGlobalPool, runGlobalPool},
                   {OpId::TrainGlobalAvgPool2dGrad, checkGlobalPoolGrad,
                    runGlobalPoolGrad},
                   {OpId::TrainAdaptiveAvgPool2d, checkAdaptivePool,
                    runAdaptivePool},
                   {OpId::TrainAdaptiveAvgPool2dGrad, checkAdaptivePoolGrad,
                    runAdaptivePoolGrad},
               });
}
