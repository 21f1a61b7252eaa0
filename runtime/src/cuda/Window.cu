//===- Window.cu - conv2d, its backward ops, pooling ----------------------===//
//
// The simple path: direct loops, one thread per result element (a block per
// filter element for the filter gradient, whose sums are long), f32
// accumulation, any layout through strides, no atomics. Every sum runs in
// the order of the reference kernels (reference/Convolution.cpp,
// reference/Pooling.cpp): over (input channel, kh, kw) for the forward
// conv, over the output positions in order for the gradients, so results
// are reproducible and close to the reference. Correct, not fast: cuDNN or
// an implicit-GEMM kernel on Tensor Cores is the way to fast convolutions
// (docs/runtime-cuda.md).
//
//===----------------------------------------------------------------------===//
#include "common/ElementMath.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;
namespace ref = mp::rt::ref;

namespace {

__device__ __forceinline__ int64_t at(const ImageDesc &im, int64_t n, int64_t c,
                                      int64_t h, int64_t w) {
  return n * im.sn + c * im.sc + h * im.sh + w * im.sw;
}
__device__ __forceinline__ int64_t at(const FilterDesc &f, int64_t o, int64_t i,
                                      int64_t h, int64_t w) {
  return o * f.so + i * f.si + h * f.sh + w * f.sw;
}

/// Splits a logical (n, c, h, w) index of `im`.
__device__ __forceinline__ void split(const ImageDesc &im, int64_t e,
                                      int64_t &n, int64_t &c, int64_t &h,
                                      int64_t &w) {
  w = e % im.w;
  e /= im.w;
  h = e % im.h;
  e /= im.h;
  c = e % im.c;
  n = e / im.c;
}

__global__ void conv2dKernel(Ref x, Ref f, Ref y, ImageDesc xi, FilterDesc fd,
                             ImageDesc yi, WindowDesc w, int64_t total) {
  MP_GRID_STRIDE(e, total) {
    int64_t n, o, oh, ow;
    split(yi, e, n, o, oh, ow);
    int64_t c0 = o / (fd.o / fd.groups) * fd.i; // the group's first channel
    float sum = 0;
    for (int64_t ci = 0; ci < fd.i; ++ci)
      for (int64_t kh = 0; kh < fd.h; ++kh) {
        int64_t ih = oh * w.strideH - w.padTop + kh * w.dilationH;
        if (ih < 0 || ih >= xi.h)
          continue;
        for (int64_t kw = 0; kw < fd.w; ++kw) {
          int64_t iw = ow * w.strideW - w.padLeft + kw * w.dilationW;
          if (iw >= 0 && iw < xi.w)
            sum += loadF(x, at(xi, n, c0 + ci, ih, iw)) *
                   loadF(f, at(fd, o, ci, kh, kw));
        }
      }
    storeF(y, at(yi, n, o, oh, ow), sum);
  }
}

/// The output index `o` whose tap `k` reads input index `i`, or -1.
__device__ __forceinline__ int64_t outputOf(int64_t i, int64_t k,
                                            int64_t stride, int64_t pad,
                                            int64_t dilation, int64_t size) {
  int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0)
    return -1;
  t /= stride;
  return t < size ? t : -1;
}

__global__ void conv2dBackwardDataKernel(Ref dy, Ref f, Ref dx, ImageDesc xi,
                                         FilterDesc fd, ImageDesc yi,
                                         WindowDesc w, int64_t total) {
  MP_GRID_STRIDE(e, total) {
    int64_t n, ci, ih, iw;
    split(xi, e, n, ci, ih, iw);
    // ci's group: its filters' outputs [o0, o0 + og), its channel in them.
    int64_t og = fd.o / fd.groups, o0 = ci / fd.i * og, cl = ci % fd.i;
    float sum = 0;
    // The reference adds the column entries of (ci, kh, kw) rows in that
    // order, each a sum over the output channels.
    for (int64_t kh = 0; kh < fd.h; ++kh) {
      int64_t oh = outputOf(ih, kh, w.strideH, w.padTop, w.dilationH, yi.h);
      if (oh < 0)
        continue;
      for (int64_t kw = 0; kw < fd.w; ++kw) {
        int64_t ow = outputOf(iw, kw, w.strideW, w.padLeft, w.dilationW, yi.w);
        if (ow < 0)
          continue;
        float tap = 0;
        for (int64_t o = o0; o < o0 + og; ++o)
          tap +=
              loadF(f, at(fd, o, cl, kh, kw)) * loadF(dy, at(yi, n, o, oh, ow));
        sum += tap;
      }
    }
    storeF(dx, at(xi, n, ci, ih, iw), sum);
  }
}

__global__ void conv2dBackwardFilterKernel(Ref x, Ref dy, Ref df, ImageDesc xi,
                                           FilterDesc fd, ImageDesc yi,
                                           WindowDesc w) {
  __shared__ float shared[32];
  int64_t e = blockIdx.x;
  int64_t kw = e % fd.w, kh = (e / fd.w) % fd.h;
  int64_t ci = (e / (fd.w * fd.h)) % fd.i, o = e / (fd.w * fd.h * fd.i);
  int64_t cx = o / (fd.o / fd.groups) * fd.i + ci; // the channel of x
  int64_t pixels = yi.h * yi.w, count = yi.n * pixels;
  float sum = 0;
  for (int64_t p = threadIdx.x; p < count; p += blockDim.x) {
    int64_t n = p / pixels, oh = (p % pixels) / yi.w, ow = p % yi.w;
    int64_t ih = oh * w.strideH - w.padTop + kh * w.dilationH;
    int64_t iw = ow * w.strideW - w.padLeft + kw * w.dilationW;
    if (ih >= 0 && ih < xi.h && iw >= 0 && iw < xi.w)
      sum += loadF(dy, at(yi, n, o, oh, ow)) * loadF(x, at(xi, n, cx, ih, iw));
  }
  sum = blockReduce(sum, 0.0f, Sum(), shared);
  if (threadIdx.x == 0)
    storeF(df, at(fd, o, ci, kh, kw), sum);
}

/// The x offset of the first maximum of output (n, c, oh, ow)'s window (the
/// first NaN if any): the reference's scan.
__device__ int64_t argMax(Ref x, const ImageDesc &xi, const WindowDesc &w,
                          int64_t n, int64_t c, int64_t oh, int64_t ow) {
  int64_t best = -1;
  float bestValue = 0;
  for (int64_t kh = 0; kh < w.sizeH; ++kh) {
    int64_t ih = oh * w.strideH - w.padTop + kh;
    if (ih < 0 || ih >= xi.h)
      continue;
    for (int64_t kw = 0; kw < w.sizeW; ++kw) {
      int64_t iw = ow * w.strideW - w.padLeft + kw;
      if (iw < 0 || iw >= xi.w)
        continue;
      int64_t i = at(xi, n, c, ih, iw);
      float v = loadF(x, i);
      if (ref::maxPoolTakes(best < 0, bestValue, v)) {
        best = i;
        bestValue = v;
      }
    }
  }
  return best;
}

__global__ void poolKernel(bool isMax, Ref x, Ref y, ImageDesc xi, ImageDesc yi,
                           WindowDesc w, int64_t total) {
  MP_GRID_STRIDE(e, total) {
    int64_t n, c, oh, ow;
    split(yi, e, n, c, oh, ow);
    float value;
    if (isMax) {
      value = loadF(x, argMax(x, xi, w, n, c, oh, ow));
    } else {
      float sum = 0;
      for (int64_t kh = 0; kh < w.sizeH; ++kh) {
        int64_t ih = oh * w.strideH - w.padTop + kh;
        if (ih < 0 || ih >= xi.h)
          continue;
        for (int64_t kw = 0; kw < w.sizeW; ++kw) {
          int64_t iw = ow * w.strideW - w.padLeft + kw;
          if (iw >= 0 && iw < xi.w)
            sum += loadF(x, at(xi, n, c, ih, iw));
        }
      }
      value = sum / static_cast<float>(w.sizeH * w.sizeW);
    }
    storeF(y, at(yi, n, c, oh, ow), value);
  }
}

/// The output rows (or columns) whose windows contain input index i.
__device__ __forceinline__ void windowsOf(int64_t i, int64_t size,
                                          int64_t stride, int64_t pad,
                                          int64_t outputs, int64_t &first,
                                          int64_t &last) {
  int64_t lo = i + pad - size + 1; // o * stride >= lo
  first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  last = (i + pad) / stride;
  if (last > outputs - 1)
    last = outputs - 1;
}

/// Each x element gathers the gradients of the windows that route to it, in
/// output order (the reference scatters them in that order).
__global__ void poolGradKernel(bool isMax, Ref grad, Ref x, Ref dx,
                               ImageDesc xi, ImageDesc yi, WindowDesc w,
                               int64_t total) {
  float area = static_cast<float>(w.sizeH * w.sizeW);
  MP_GRID_STRIDE(e, total) {
    int64_t n, c, ih, iw;
    split(xi, e, n, c, ih, iw);
    int64_t self = at(xi, n, c, ih, iw);
    int64_t h0, h1, w0, w1;
    windowsOf(ih, w.sizeH, w.strideH, w.padTop, yi.h, h0, h1);
    windowsOf(iw, w.sizeW, w.strideW, w.padLeft, yi.w, w0, w1);
    float sum = 0;
    for (int64_t oh = h0; oh <= h1; ++oh)
      for (int64_t ow = w0; ow <= w1; ++ow) {
        float g = loadF(grad, at(yi, n, c, oh, ow));
        if (!isMax)
          sum += g / area;
        else if (argMax(x, xi, w, n, c, oh, ow) == self)
          sum += g;
      }
    storeF(dx, self, sum);
  }
}

__global__ void globalPoolKernel(Ref x, Ref y, ImageDesc xi, int64_t total) {
  double area = static_cast<double>(xi.h * xi.w);
  MP_GRID_STRIDE(e, total) {
    int64_t n = e / xi.c, c = e % xi.c;
    double sum = 0; // f64, as every reduction (reference/Accumulate.h)
    for (int64_t h = 0; h < xi.h; ++h)
      for (int64_t w = 0; w < xi.w; ++w)
        sum += loadF(x, at(xi, n, c, h, w));
    storeF(y, e, static_cast<float>(sum / area));
  }
}

__global__ void globalPoolGradKernel(Ref grad, Ref dx, ImageDesc xi,
                                     int64_t total) {
  float area = static_cast<float>(xi.h * xi.w);
  MP_GRID_STRIDE(e, total) {
    int64_t n, c, h, w;
    split(xi, e, n, c, h, w);
    storeF(dx, at(xi, n, c, h, w), loadF(grad, n * xi.c + c) / area);
  }
}

/// PyTorch's adaptive window of output index i: [floor(i in / out),
/// ceil((i + 1) in / out)), as reference/Pooling.cpp.
__device__ __forceinline__ int64_t adaptiveBegin(int64_t i, int64_t in,
                                                 int64_t out) {
  return i * in / out;
}
__device__ __forceinline__ int64_t adaptiveEnd(int64_t i, int64_t in,
                                               int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

__global__ void adaptivePoolKernel(Ref x, Ref y, ImageDesc xi, ImageDesc yi,
                                   int64_t total) {
  MP_GRID_STRIDE(e, total) {
    int64_t n, c, i, j;
    split(yi, e, n, c, i, j);
    int64_t h0 = adaptiveBegin(i, xi.h, yi.h), h1 = adaptiveEnd(i, xi.h, yi.h);
    int64_t w0 = adaptiveBegin(j, xi.w, yi.w), w1 = adaptiveEnd(j, xi.w, yi.w);
    double sum = 0; // f64, as every reduction
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w)
        sum += loadF(x, at(xi, n, c, h, w));
    storeF(y, at(yi, n, c, i, j),
           static_cast<float>(sum / static_cast<double>((h1 - h0) * (w1 - w0))));
  }
}

/// Each input element adds grad / area of every window holding it, in the
/// reference's window order (rows, then columns), in f32.
__global__ void adaptivePoolGradKernel(Ref grad, Ref dx, ImageDesc xi,
                                       ImageDesc yi, int64_t total) {
  MP_GRID_STRIDE(e, total) {
    int64_t n, c, h, w;
    split(xi, e, n, c, h, w);
    float acc = 0;
    for (int64_t i = 0; i < yi.h; ++i) {
      int64_t h0 = adaptiveBegin(i, xi.h, yi.h), h1 = adaptiveEnd(i, xi.h, yi.h);
      if (h < h0 || h >= h1)
        continue;
      for (int64_t j = 0; j < yi.w; ++j) {
        int64_t w0 = adaptiveBegin(j, xi.w, yi.w);
        int64_t w1 = adaptiveEnd(j, xi.w, yi.w);
        if (w < w0 || w >= w1)
          continue;
        acc += loadF(grad, at(yi, n, c, i, j)) /
               static_cast<float>((h1 - h0) * (w1 - w0));
      }
    }
    storeF(dx, at(xi, n, c, h, w), acc);
  }
}

int64_t elements(const ImageDesc &im) { return im.n * im.c * im.h * im.w; }

} // namespace

int mp::rt::cuda::conv2d(const Context &ctx, Ref x, Ref f, Ref y,
                         const ImageDesc &xi, const FilterDesc &fd,
                         const ImageDesc &yi, const WindowDesc &w) {
  int64_t total = elements(yi);
  if (total == 0)
    return 0;
  conv2dKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(x, f, y, xi, fd,
                                                              yi, w, total);
  return lastError();
}

int mp::rt::cuda::conv2dBackwardData(const Context &ctx, Ref dy, Ref f, Ref dx,
                                     const ImageDesc &xi, const FilterDesc &fd,
                                     const ImageDesc &yi, const WindowDesc &w) {
  int64_t total = elements(xi);
  if (total == 0)
    return 0;
  conv2dBackwardDataKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      dy, f, dx, xi, fd, yi, w, total);
  return lastError();
}

int mp::rt::cuda::conv2dBackwardFilter(const Context &ctx, Ref x, Ref dy,
                                       Ref df, const ImageDesc &xi,
                                       const FilterDesc &fd,
                                       const ImageDesc &yi,
                                       const WindowDesc &w) {
  int64_t total = fd.o * fd.i * fd.h * fd.w;
  if (total == 0)
    return 0;
  conv2dBackwardFilterKernel<<<static_cast<unsigned>(total), kThreads, 0,
                               ctx.stream>>>(x, dy, df, xi, fd, yi, w);
  return lastError();
}

int mp::rt::cuda::maxPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi,
                          const ImageDesc &yi, const WindowDesc &w) {
  int64_t total = elements(yi);
  if (total == 0)
    return 0;
  poolKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(true, x, y, xi, yi,
                                                            w, total);
  return lastError();
}

int mp::rt::cuda::avgPool(const Context &ctx, Ref x, Ref y, const ImageDesc &xi,
                          const ImageDesc &yi, const WindowDesc &w) {
  int64_t total = elements(yi);
  if (total == 0)
    return 0;
  poolKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(false, x, y, xi, yi,
                                                            w, total);
  return lastError();
}

int mp::rt::cuda::maxPoolGrad(const Context &ctx, Ref grad, Ref x, Ref dx,
                              const ImageDesc &xi, const ImageDesc &yi,
                              const WindowDesc &w) {
  int64_t total = elements(xi);
  if (total == 0)
    return 0;
  poolGradKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      true, grad, x, dx, xi, yi, w, total);
  return lastError();
}

int mp::rt::cuda::avgPoolGrad(const Context &ctx, Ref grad, Ref dx,
                              const ImageDesc &xi, const ImageDesc &yi,
                              const WindowDesc &w) {
  int64_t total = elements(xi);
  if (total == 0)
    return 0;
  poolGradKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      false, grad, Ref{nullptr, 0}, dx, xi, yi, w, total);
  return lastError();
}

int mp::rt::cuda::globalAvgPool(const Context &ctx, Ref x, Ref y,
                                const ImageDesc &xi) {
  int64_t total = xi.n * xi.c;
  if (total == 0)
    return 0;
  globalPoolKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(x, y, xi,
                                                                  total);
  return lastError();
}

int mp::rt::cuda::globalAvgPoolGrad(const Context &ctx, Ref grad, Ref dx,
                                    const ImageDesc &xi) {
  int64_t total = elements(xi);
  if (total == 0)
    return 0;
  globalPoolGradKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      grad, dx, xi, total);
  return lastError();
}

int mp::rt::cuda::adaptiveAvgPool(const Context &ctx, Ref x, Ref y,
                                  const ImageDesc &xi, const ImageDesc &yi) {
  int64_t total = elements(yi);
  if (total == 0)
    return 0;
  adaptivePoolKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(x, y, xi,
                                                                    yi, total);
  return lastError();
}

int mp::rt::cuda::adaptiveAvgPoolGrad(const Context &ctx, Ref grad, Ref dx,
                                      const ImageDesc &xi,
                                      const ImageDesc &yi) {
  int64_t total = elements(xi);
  if (total == 0)
    return 0;
  adaptivePoolGradKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      grad, dx, xi, yi, total);
  return lastError();
}
