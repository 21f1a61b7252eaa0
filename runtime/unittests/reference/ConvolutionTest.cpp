//===- ConvolutionTest.cpp - conv2d and its backward ops ------------------===//
#include "RefTestUtil.h"

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class ConvolutionTest : public ::testing::TestWithParam<DType> {};

struct ConvCase {
  bool nhwc;
  int64_t n, c, h, w, o, kh, kw;
  int64_t strideH, strideW;
  int64_t padTop, padBottom, padLeft, padRight;
  int64_t dilationH, dilationW;
  /// The filter in the other layout than the images' own (`filter_layout`:
  /// OIHW with NHWC images, HWIO with NCHW ones).
  bool swapFilter = false;

  bool hwio() const { return nhwc != swapFilter; }
  int64_t outH() const {
    return (h + padTop + padBottom - dilationH * (kh - 1) - 1) / strideH + 1;
  }
  int64_t outW() const {
    return (w + padLeft + padRight - dilationW * (kw - 1) - 1) / strideW + 1;
  }
  Shape image(int64_t channels, int64_t hh, int64_t ww) const {
    return nhwc ? Shape{n, hh, ww, channels} : Shape{n, channels, hh, ww};
  }
  Shape inputShape() const { return image(c, h, w); }
  Shape outputShape() const { return image(o, outH(), outW()); }
  Shape filterShape() const {
    return hwio() ? Shape{kh, kw, c, o} : Shape{o, c, kh, kw};
  }
  int64_t imageAt(int64_t channels, int64_t hh, int64_t ww, int64_t in,
                  int64_t ic, int64_t ih, int64_t iw) const {
    return nhwc ? ((in * hh + ih) * ww + iw) * channels + ic
                : ((in * channels + ic) * hh + ih) * ww + iw;
  }
  int64_t filterAt(int64_t fo, int64_t fi, int64_t fh, int64_t fw) const {
    return hwio() ? ((fh * kw + fw) * c + fi) * o + fo
                  : ((fo * c + fi) * kh + fh) * kw + fw;
  }
  AttrMap attrs() const {
    AttrMap map = {
        {"layout", stringAttr(nhwc ? "NHWC" : "NCHW")},
        {"strides", intsAttr({strideH, strideW})},
        {"padding", intsAttr({padTop, padBottom, padLeft, padRight})},
        {"dilations", intsAttr({dilationH, dilationW})}};
    if (swapFilter)
      map["filter_layout"] = stringAttr(hwio() ? "HWIO" : "OIHW");
    return map;
  }
};

/// y = conv(x, f), dx = conv^T(dy, f) and df from the definition of a
/// cross-correlation, in double, with one loop nest over every tap.
struct ConvReference {
  Values y, dx, df;
};
ConvReference referenceConv(const ConvCase &c, const HostTensor &x,
                            const HostTensor &f, const HostTensor &dy) {
  ConvReference r{Values(c.n * c.o * c.outH() * c.outW(), 0.0),
                  Values(x.size(), 0.0), Values(f.size(), 0.0)};
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t o = 0; o < c.o; ++o)
      for (int64_t oh = 0; oh < c.outH(); ++oh)
        for (int64_t ow = 0; ow < c.outW(); ++ow) {
          int64_t yi = c.imageAt(c.o, c.outH(), c.outW(), n, o, oh, ow);
          for (int64_t i = 0; i < c.c; ++i)
            for (int64_t fh = 0; fh < c.kh; ++fh)
              for (int64_t fw = 0; fw < c.kw; ++fw) {
                int64_t ih = oh * c.strideH - c.padTop + fh * c.dilationH;
                int64_t iw = ow * c.strideW - c.padLeft + fw * c.dilationW;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
                  continue;
                int64_t xi = c.imageAt(c.c, c.h, c.w, n, i, ih, iw);
                int64_t fi = c.filterAt(o, i, fh, fw);
                r.y[yi] += x.at(xi) * f.at(fi);
                r.dx[xi] += dy.at(yi) * f.at(fi);
                r.df[fi] += dy.at(yi) * x.at(xi);
              }
        }
  return r;
}

const ConvCase kCases[] = {
    {false, 2, 3, 6, 5, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {false, 2, 3, 7, 8, 2, 3, 2, 2, 3, 1, 0, 2, 1, 1, 1},
    {false, 1, 2, 9, 9, 3, 3, 3, 2, 1, 1, 2, 0, 1, 2, 3}, // dilated
    {true, 2, 3, 6, 5, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1},
    {true, 2, 3, 7, 8, 2, 3, 2, 2, 3, 1, 0, 2, 1, 1, 1},
    {true, 1, 2, 9, 9, 3, 3, 3, 2, 1, 1, 2, 0, 1, 2, 3},
    {true, 3, 5, 4, 4, 6, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, // 1x1
    // The filter in the other layout (mp-channels-last's NHWC + OIHW).
    {true, 2, 3, 7, 8, 2, 3, 2, 2, 3, 1, 0, 2, 1, 1, 1, true},
    {false, 1, 2, 9, 9, 3, 3, 3, 2, 1, 1, 2, 0, 1, 2, 3, true},
};
} // namespace

TEST_P(ConvolutionTest, AllThreeOpsMatchDoubleReference) {
  DType dtype = GetParam();
  unsigned seed = 1;
  for (const ConvCase &c : kCases) {
    std::string name = std::string(c.nhwc ? "NHWC " : "NCHW ") +
                       (c.hwio() ? "HWIO " : "OIHW ") +
                       formatShape(c.inputShape()) + " * " +
                       formatShape(c.filterShape());
    HostTensor x = randomTensor(dtype, c.inputShape(), -1, 1, seed++);
    HostTensor f = randomTensor(dtype, c.filterShape(), -1, 1, seed++);
    HostTensor dy = randomTensor(dtype, c.outputShape(), -1, 1, seed++);
    ConvReference want = referenceConv(c, x, f, dy);
    for (DType result : {dtype, DType::F32}) {
      Tolerance tol = accumulateTolerance(result);
      HostTensor y(result, c.outputShape());
      ASSERT_OK(runKernel("train.conv2d", c.attrs(), {&x, &f}, {&y}));
      expectNear(y, want.y, tol, "conv2d " + name);
      HostTensor dx(result, c.inputShape());
      ASSERT_OK(
          runKernel("train.conv2d_backward_data", c.attrs(), {&dy, &f}, {&dx}));
      expectNear(dx, want.dx, tol, "conv2d_backward_data " + name);
      HostTensor df(result, c.filterShape());
      ASSERT_OK(runKernel("train.conv2d_backward_filter", c.attrs(), {&x, &dy},
                          {&df}));
      expectNear(df, want.df, tol, "conv2d_backward_filter " + name);
    }
  }
}

TEST(Convolution, GradientsMatchFiniteDifferences) {
  for (const ConvCase &c : {kCases[1], kCases[5]}) {
    HostTensor x = randomTensor(DType::F32, c.inputShape(), -1, 1, 40);
    HostTensor f = randomTensor(DType::F32, c.filterShape(), -1, 1, 41);
    HostTensor w = randomTensor(DType::F32, c.outputShape(), -1, 1, 42);
    auto loss = [&] {
      HostTensor y(DType::F32, c.outputShape());
      EXPECT_TRUE(runKernel("train.conv2d", c.attrs(), {&x, &f}, {&y}).isOk());
      return dot(y, w);
    };
    HostTensor dx(DType::F32, c.inputShape()), df(DType::F32, c.filterShape());
    ASSERT_OK(
        runKernel("train.conv2d_backward_data", c.attrs(), {&w, &f}, {&dx}));
    ASSERT_OK(
        runKernel("train.conv2d_backward_filter", c.attrs(), {&x, &w}, {&df}));
    expectNear(dx, numericGradient(x, loss), finiteDifferenceTolerance(),
               "d conv / d input");
    expectNear(df, numericGradient(f, loss), finiteDifferenceTolerance(),
               "d conv / d filter");
  }
}

TEST(Convolution, RejectsBadGeometry) {
  ConvCase c = kCases[0];
  HostTensor x(DType::F32, c.inputShape()), f(DType::F32, c.filterShape());
  HostTensor y(DType::F32, {2, 4, 3, 3});
  expectError(checkKernel("train.conv2d", c.attrs(), {&x, &f}, {&y}),
              StatusCode::InvalidArgument, "result of shape [2, 4, 4, 3]");
  HostTensor f2(DType::F32, {4, 2, 3, 3}), y2(DType::F32, c.outputShape());
  expectError(checkKernel("train.conv2d", c.attrs(), {&x, &f2}, {&y2}),
              StatusCode::InvalidArgument, "input has 3 channels");
  AttrMap attrs = c.attrs();
  attrs["strides"] = intsAttr({0, 1});
  expectError(checkKernel("train.conv2d", attrs, {&x, &f}, {&y2}),
              StatusCode::InvalidArgument, "'strides' entry to be >= 1");
  attrs = c.attrs();
  attrs.erase("layout");
  expectError(checkKernel("train.conv2d", attrs, {&x, &f}, {&y2}),
              StatusCode::InvalidArgument, "layout");
  HostTensor big(DType::F32, {4, 3, 9, 9});
  expectError(checkKernel("train.conv2d", c.attrs(), {&x, &big}, {&y2}),
              StatusCode::InvalidArgument, "does not fit");
}

INSTANTIATE_TEST_SUITE_P(DTypes, ConvolutionTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
