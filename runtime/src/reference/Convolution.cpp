//===- Convolution.cpp - conv2d and its two backward ops ------------------===//
//
// All three ops go through im2col and one f32 gemm per image: the filter as
// an [O, I*KH*KW] matrix, and each image's receptive fields as columns of a
// [I*KH*KW, OH*OW] matrix (zero where a tap falls in the padding).
//   forward:         y_n   = Wmat x col_n
//   backward data:   dcol  = Wmat^T x dy_n, scattered back (col2im)
//   backward filter: dWmat = sum_n dy_n x col_n^T
// With G groups each group g is its own convolution: its Og = O / G rows of
// Wmat (its filters, whose I = C / G channels are the group's), its I
// channels of x in col, its Og channels of y.
//
//===----------------------------------------------------------------------===//
#include "reference/Gemm.h"
#include "reference/Window.h"

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// The three tensors of a convolution (whichever is the result) and its
/// window, all through their layouts.
struct ConvGeometry {
  Image x, y;
  Filter f; ///< f.i: the channels of one group
  Window window;
  int64_t groups = 1;

  int64_t patch() const { return f.i * f.h * f.w; } ///< rows of col
  int64_t pixels() const { return y.h * y.w; }      ///< columns of col
  int64_t groupOutputs() const { return f.o / groups; }
};
} // namespace

/// Checks that conv2d(input, filter) gives `output`, all shapes given, and
/// fills `g`. `names` are the three tensors' roles in this op.
static Status getConvGeometry(const KernelDesc &k, const TensorView &input,
                              const TensorView &filter,
                              const TensorView &output, const char *names[3],
                              ConvGeometry &g) {
  Layout layout;
  MP_RETURN_IF_ERROR(getLayout(k, layout));
  FilterLayout filterLayout;
  MP_RETURN_IF_ERROR(getFilterLayout(k, layout, filterLayout));
  MP_RETURN_IF_ERROR(getConvWindow(k, g.window));
  MP_RETURN_IF_ERROR(checkRank(k, input, 4, names[0]));
  MP_RETURN_IF_ERROR(checkRank(k, filter, 4, names[1]));
  MP_RETURN_IF_ERROR(checkRank(k, output, 4, names[2]));
  g.x = imageOf(input.shape, layout);
  g.f = filterOf(filter.shape, filterLayout);
  g.groups = k.getInt(AttrName::groups, 1);
  if (g.groups < 1 || g.x.c % g.groups != 0 || g.f.o % g.groups != 0)
    return kernelError(k, "needs groups >= 1 dividing the " +
                              std::to_string(g.x.c) + " channels and the " +
                              std::to_string(g.f.o) + " outputs");
  if (g.x.c != g.f.i * g.groups)
    return kernelError(k, std::string(names[0]) + " has " +
                              std::to_string(g.x.c) + " channels but " +
                              names[1] + " expects " +
                              std::to_string(g.f.i * g.groups));
  g.window.sizeH = g.f.h;
  g.window.sizeW = g.f.w;
  Shape expected;
  MP_RETURN_IF_ERROR(
      windowOutputShape(k, input.shape, layout, g.f.o, g.window, expected));
  MP_RETURN_IF_ERROR(checkShape(k, output, expected, names[2]));
  g.y = imageOf(output.shape, layout);
  return Status::ok();
}

static const char *kForwardNames[3] = {"input", "filter", "result"};
static const char *kDataNames[3] = {"result", "filter", "grad_output"};
static const char *kFilterNames[3] = {"input", "result", "grad_output"};

/// The input position of tap `k` of output position `o`, or -1 in padding.
static int64_t tapPosition(int64_t o, int64_t k, int64_t stride, int64_t pad,
                           int64_t dilation, int64_t size) {
  int64_t i = o * stride - pad + k * dilation;
  return i >= 0 && i < size ? i : -1;
}

/// col[(ci*KH + kh)*KW + kw][oh*OW + ow] = x[n, c0 + ci, ih, iw] (0 in
/// padding): the receptive fields of the group whose first channel is c0.
static void im2col(const ConvGeometry &g, const float *x, int64_t n,
                   int64_t c0, float *col) {
  const Window &w = g.window;
  int64_t row = 0;
  for (int64_t ci = c0; ci < c0 + g.f.i; ++ci)
    for (int64_t kh = 0; kh < g.f.h; ++kh)
      for (int64_t kw = 0; kw < g.f.w; ++kw, ++row) {
        float *dst = col + row * g.pixels();
        for (int64_t oh = 0; oh < g.y.h; ++oh) {
          int64_t ih =
              tapPosition(oh, kh, w.strideH, w.padTop, w.dilationH, g.x.h);
          for (int64_t ow = 0; ow < g.y.w; ++ow) {
            int64_t iw =
                tapPosition(ow, kw, w.strideW, w.padLeft, w.dilationW, g.x.w);
            dst[oh * g.y.w + ow] =
                ih < 0 || iw < 0 ? 0.0f : x[g.x.at(n, ci, ih, iw)];
          }
        }
      }
}

/// The inverse scatter of im2col: x[n, ci, ih, iw] += every column entry
/// that im2col read from it.
static void col2im(const ConvGeometry &g, const float *col, int64_t n,
                   int64_t c0, float *x) {
  const Window &w = g.window;
  int64_t row = 0;
  for (int64_t ci = c0; ci < c0 + g.f.i; ++ci)
    for (int64_t kh = 0; kh < g.f.h; ++kh)
      for (int64_t kw = 0; kw < g.f.w; ++kw, ++row) {
        const float *src = col + row * g.pixels();
        for (int64_t oh = 0; oh < g.y.h; ++oh) {
          int64_t ih =
              tapPosition(oh, kh, w.strideH, w.padTop, w.dilationH, g.x.h);
          if (ih < 0)
            continue;
          for (int64_t ow = 0; ow < g.y.w; ++ow) {
            int64_t iw =
                tapPosition(ow, kw, w.strideW, w.padLeft, w.dilationW, g.x.w);
            if (iw >= 0)
              x[g.x.at(n, ci, ih, iw)] += src[oh * g.y.w + ow];
          }
        }
      }
}

/// Copies image n of `y` (any layout) into a dense [C, H*W] matrix, or back.
static void gatherImage(const Image &im, const float *src, int64_t n,
                        float *dense) {
  for (int64_t c = 0; c < im.c; ++c)
    for (int64_t h = 0; h < im.h; ++h)
      for (int64_t w = 0; w < im.w; ++w)
        *dense++ = src[im.at(n, c, h, w)];
}
static void scatterImage(const Image &im, const float *dense, int64_t n,
                         float *dst) {
  for (int64_t c = 0; c < im.c; ++c)
    for (int64_t h = 0; h < im.h; ++h)
      for (int64_t w = 0; w < im.w; ++w)
        dst[im.at(n, c, h, w)] = *dense++;
}

/// The filter as Wmat[o][(i*KH + h)*KW + w], or back.
static void gatherFilter(const Filter &f, const float *src, float *dense) {
  for (int64_t o = 0; o < f.o; ++o)
    for (int64_t i = 0; i < f.i; ++i)
      for (int64_t h = 0; h < f.h; ++h)
        for (int64_t w = 0; w < f.w; ++w)
          *dense++ = src[f.at(o, i, h, w)];
}
static void scatterFilter(const Filter &f, const float *dense, float *dst) {
  for (int64_t o = 0; o < f.o; ++o)
    for (int64_t i = 0; i < f.i; ++i)
      for (int64_t h = 0; h < f.h; ++h)
        for (int64_t w = 0; w < f.w; ++w)
          dst[f.at(o, i, h, w)] = *dense++;
}

//===----------------------------------------------------------------------===//
// The three ops
//===----------------------------------------------------------------------===//

/// Common dtype rules: both operands share a float dtype; the result has it
/// or is f32.
static Status checkConvDTypes(const KernelDesc &k, const Views &in,
                              const Views &out, const char *a, const char *b) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], a));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, b));
  return checkAccumulator(k, in[0], out[0]);
}

static Status checkConv(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkConvDTypes(k, in, out, "input", "filter"));
  ConvGeometry g;
  return getConvGeometry(k, in[0], in[1], out[0], kForwardNames, g);
}

static Status runConv(const KernelDesc &k, const Views &in, const Views &out) {
  ConvGeometry g;
  MP_RETURN_IF_ERROR(
      getConvGeometry(k, in[0], in[1], out[0], kForwardNames, g));
  FloatIn x(in[0]), filter(in[1]);
  FloatOut y(out[0]);
  std::vector<float> wmat(g.f.o * g.patch()), col(g.patch() * g.pixels()),
      image(g.f.o * g.pixels());
  gatherFilter(g.f, filter.data(), wmat.data());
  int64_t og = g.groupOutputs();
  for (int64_t n = 0; n < g.x.n; ++n) {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      im2col(g, x.data(), n, gi * g.f.i, col.data());
      gemm(false, false, og, g.pixels(), g.patch(),
           wmat.data() + gi * og * g.patch(), col.data(),
           image.data() + gi * og * g.pixels(), false);
    }
    scatterImage(g.y, image.data(), n, y.data());
  }
  y.finish();
  return Status::ok();
}

static Status checkConvBackwardData(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  MP_RETURN_IF_ERROR(checkConvDTypes(k, in, out, "grad_output", "filter"));
  ConvGeometry g;
  return getConvGeometry(k, out[0], in[1], in[0], kDataNames, g);
}

static Status runConvBackwardData(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  ConvGeometry g;
  MP_RETURN_IF_ERROR(getConvGeometry(k, out[0], in[1], in[0], kDataNames, g));
  FloatIn dy(in[0]), filter(in[1]);
  FloatOut dx(out[0], /*zeroed=*/true);
  std::vector<float> wmat(g.f.o * g.patch()), col(g.patch() * g.pixels()),
      image(g.f.o * g.pixels());
  gatherFilter(g.f, filter.data(), wmat.data());
  int64_t og = g.groupOutputs();
  for (int64_t n = 0; n < g.x.n; ++n) {
    gatherImage(g.y, dy.data(), n, image.data());
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      gemm(/*transA=*/true, false, g.patch(), g.pixels(), og,
           wmat.data() + gi * og * g.patch(),
           image.data() + gi * og * g.pixels(), col.data(), false);
      col2im(g, col.data(), n, gi * g.f.i, dx.data());
    }
  }
  dx.finish();
  return Status::ok();
}

static Status checkConvBackwardFilter(const KernelDesc &k, const Views &in,
                                      const Views &out) {
  MP_RETURN_IF_ERROR(checkConvDTypes(k, in, out, "input", "grad_output"));
  ConvGeometry g;
  return getConvGeometry(k, in[0], out[0], in[1], kFilterNames, g);
}

static Status runConvBackwardFilter(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  ConvGeometry g;
  MP_RETURN_IF_ERROR(getConvGeometry(k, in[0], out[0], in[1], kFilterNames, g));
  FloatIn x(in[0]), dy(in[1]);
  FloatOut dfilter(out[0]);
  std::vector<float> dwmat(g.f.o * g.patch(), 0.0f),
      col(g.patch() * g.pixels()), image(g.f.o * g.pixels());
  int64_t og = g.groupOutputs();
  for (int64_t n = 0; n < g.x.n; ++n) {
    gatherImage(g.y, dy.data(), n, image.data());
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      im2col(g, x.data(), n, gi * g.f.i, col.data());
      gemm(false, /*transB=*/true, og, g.patch(), g.pixels(),
           image.data() + gi * og * g.pixels(), col.data(),
           dwmat.data() + gi * og * g.patch(), /*accumulate=*/true);
    }
  }
  scatterFilter(g.f, dwmat.data(), dfilter.data());
  dfilter.finish();
  return Status::ok();
}

void ref::addConvolutionKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainConv2d, checkConv, runConv},
                   {OpId::TrainConv2dBackwardData, checkConvBackwardData,
                    runConvBackwardData},
                   {OpId::TrainConv2dBackwardFilter, checkConvBackwardFilter,
                    runConvBackwardFilter},
               });
}
