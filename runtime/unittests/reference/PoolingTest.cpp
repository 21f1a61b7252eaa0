//===- PoolingTest.cpp - max/avg/global-avg pooling and their grads -------===//
#include "RefTestUtil.h"

#include <algorithm>
#include <numeric>
#include <random>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class PoolingTest : public ::testing::TestWithParam<DType> {};

struct PoolCase {
  bool nhwc;
  int64_t n, c, h, w, kh, kw, strideH, strideW;
  int64_t padTop, padBottom, padLeft, padRight;

  int64_t outH() const { return (h + padTop + padBottom - kh) / strideH + 1; }
  int64_t outW() const { return (w + padLeft + padRight - kw) / strideW + 1; }
  Shape image(int64_t hh, int64_t ww) const {
    return nhwc ? Shape{n, hh, ww, c} : Shape{n, c, hh, ww};
  }
  int64_t at(int64_t hh, int64_t ww, int64_t in, int64_t ic, int64_t ih,
             int64_t iw) const {
    return nhwc ? ((in * hh + ih) * ww + iw) * c + ic
                : ((in * c + ic) * hh + ih) * ww + iw;
  }
  AttrMap attrs() const {
    return {{"layout", stringAttr(nhwc ? "NHWC" : "NCHW")},
            {"kernel", intsAttr({kh, kw})},
            {"strides", intsAttr({strideH, strideW})},
            {"padding", intsAttr({padTop, padBottom, padLeft, padRight})}};
  }
};

/// Forward outputs and input gradients of both pooling ops, in double.
struct PoolReference {
  Values maxY, avgY, maxDx, avgDx;
};
PoolReference referencePool(const PoolCase &p, const HostTensor &x,
                            const HostTensor &dy) {
  int64_t outputs = p.n * p.c * p.outH() * p.outW();
  PoolReference r{Values(outputs), Values(outputs), Values(x.size(), 0.0),
                  Values(x.size(), 0.0)};
  double area = double(p.kh * p.kw);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t oh = 0; oh < p.outH(); ++oh)
        for (int64_t ow = 0; ow < p.outW(); ++ow) {
          int64_t o = p.at(p.outH(), p.outW(), n, c, oh, ow);
          int64_t best = -1;
          double sum = 0;
          for (int64_t kh = 0; kh < p.kh; ++kh)
            for (int64_t kw = 0; kw < p.kw; ++kw) {
              int64_t ih = oh * p.strideH - p.padTop + kh;
              int64_t iw = ow * p.strideW - p.padLeft + kw;
              if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w)
                continue;
              int64_t i = p.at(p.h, p.w, n, c, ih, iw);
              sum += x.at(i);
              r.avgDx[i] += dy.at(o) / area;
              if (best < 0 || x.at(i) > x.at(best))
                best = i;
            }
          r.maxY[o] = x.at(best);
          r.maxDx[best] += dy.at(o);
          r.avgY[o] = sum / area;
        }
  return r;
}

const PoolCase kCases[] = {
    {false, 2, 3, 6, 6, 2, 2, 2, 2, 0, 0, 0, 0},
    {false, 2, 2, 7, 6, 3, 3, 2, 2, 1, 1, 1, 0}, // overlapping, padded
    {true, 2, 3, 6, 6, 2, 2, 2, 2, 0, 0, 0, 0},
    {true, 1, 4, 5, 7, 3, 2, 1, 2, 2, 1, 0, 1},
};

/// Distinct values 0.1 apart in random order: no ties, and a 1e-2
/// finite-difference step never changes which element is a window's max.
HostTensor distinctValues(DType dtype, const Shape &shape, unsigned seed) {
  HostTensor t(dtype, shape);
  std::vector<int64_t> order(t.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  for (int64_t i = 0; i < t.size(); ++i)
    t.set(i, 0.1 * double(order[i]) - 3);
  return t;
}
} // namespace

TEST_P(PoolingTest, WindowPoolsMatchDoubleReference) {
  DType dtype = GetParam();
  unsigned seed = 1;
  for (const PoolCase &p : kCases) {
    Shape in = p.image(p.h, p.w), out = p.image(p.outH(), p.outW());
    std::string name = std::string(p.nhwc ? "NHWC " : "NCHW ") +
                       formatShape(in) + " -> " + formatShape(out);
    HostTensor x = randomTensor(dtype, in, -2, 2, seed++);
    HostTensor dy = randomTensor(dtype, out, -1, 1, seed++);
    PoolReference want = referencePool(p, x, dy);
    Tolerance tol = accumulateTolerance(dtype);
    HostTensor maxY(dtype, out), avgY(dtype, out);
    ASSERT_OK(runKernel("train.max_pool2d", p.attrs(), {&x}, {&maxY}));
    ASSERT_OK(runKernel("train.avg_pool2d", p.attrs(), {&x}, {&avgY}));
    expectNear(maxY, want.maxY, tol, "max_pool2d " + name);
    expectNear(avgY, want.avgY, tol, "avg_pool2d " + name);
    HostTensor maxDx(dtype, in), avgDx(dtype, in);
    ASSERT_OK(
        runKernel("train.max_pool2d_grad", p.attrs(), {&dy, &x}, {&maxDx}));
    ASSERT_OK(runKernel("train.avg_pool2d_grad", p.attrs(), {&dy}, {&avgDx}));
    expectNear(maxDx, want.maxDx, tol, "max_pool2d_grad " + name);
    expectNear(avgDx, want.avgDx, tol, "avg_pool2d_grad " + name);
  }
}

TEST(Pooling, MaxPoolGradRoutesToTheFirstMaximum) {
  // One 2x2 window of equal values: the whole gradient goes to the first.
  PoolCase p{false, 1, 1, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0};
  HostTensor x = makeTensor(DType::F32, {1, 1, 2, 2}, {5, 5, 5, 5});
  HostTensor dy = makeTensor(DType::F32, {1, 1, 1, 1}, {3});
  HostTensor dx(DType::F32, x.shape);
  ASSERT_OK(runKernel("train.max_pool2d_grad", p.attrs(), {&dy, &x}, {&dx}));
  expectNear(dx, {3, 0, 0, 0}, {0, 0}, "tie");
}

TEST(Pooling, GradsMatchFiniteDifferences) {
  for (const PoolCase &p : {kCases[1], kCases[3]}) {
    Shape in = p.image(p.h, p.w), out = p.image(p.outH(), p.outW());
    HostTensor x = distinctValues(DType::F32, in, 3);
    HostTensor w = randomTensor(DType::F32, out, -1, 1, 4);
    for (const char *op : {"train.max_pool2d", "train.avg_pool2d"}) {
      auto loss = [&] {
        HostTensor y(DType::F32, out);
        EXPECT_TRUE(runKernel(op, p.attrs(), {&x}, {&y}).isOk());
        return dot(y, w);
      };
      Values numeric = numericGradient(x, loss);
      HostTensor dx(DType::F32, in);
      std::string grad = std::string(op) + "_grad";
      if (grad == "train.max_pool2d_grad")
        ASSERT_OK(runKernel(grad, p.attrs(), {&w, &x}, {&dx}));
      else
        ASSERT_OK(runKernel(grad, p.attrs(), {&w}, {&dx}));
      expectNear(dx, numeric, finiteDifferenceTolerance(), grad);
    }
  }
}

TEST_P(PoolingTest, GlobalAveragePool) {
  DType dtype = GetParam();
  for (bool nhwc : {false, true}) {
    Shape in = nhwc ? Shape{2, 3, 4, 5} : Shape{2, 5, 3, 4};
    AttrMap attrs = {{"layout", stringAttr(nhwc ? "NHWC" : "NCHW")}};
    HostTensor x = randomTensor(dtype, in, -2, 2, 7);
    HostTensor dy = randomTensor(dtype, {2, 5}, -1, 1, 8);
    Values want(10, 0.0), wantDx(x.size());
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 5; ++c)
        for (int64_t h = 0; h < 3; ++h)
          for (int64_t w = 0; w < 4; ++w) {
            int64_t i = nhwc ? ((n * 3 + h) * 4 + w) * 5 + c
                             : ((n * 5 + c) * 3 + h) * 4 + w;
            want[n * 5 + c] += x.at(i) / 12;
            wantDx[i] = dy.at(n * 5 + c) / 12;
          }
    for (DType result : {dtype, DType::F32}) {
      HostTensor y(result, {2, 5});
      ASSERT_OK(runKernel("train.global_avg_pool2d", attrs, {&x}, {&y}));
      expectNear(y, want, accumulateTolerance(result), "global_avg_pool2d");
    }
    HostTensor dx(dtype, in);
    ASSERT_OK(runKernel("train.global_avg_pool2d_grad", attrs, {&dy}, {&dx}));
    expectNear(dx, wantDx, elementwiseTolerance(dtype),
               "global_avg_pool2d_grad");
  }
}

TEST(Pooling, RejectsBadWindows) {
  PoolCase p = kCases[0];
  HostTensor x(DType::F32, p.image(6, 6)), y(DType::F32, p.image(3, 3));
  AttrMap attrs = p.attrs();
  attrs["padding"] = intsAttr({2, 0, 0, 0});
  expectError(checkKernel("train.max_pool2d", attrs, {&x}, {&y}),
              StatusCode::InvalidArgument, "padding smaller than the kernel");
  attrs = p.attrs();
  attrs.erase("kernel");
  expectError(checkKernel("train.avg_pool2d", attrs, {&x}, {&y}),
              StatusCode::InvalidArgument, "'kernel'");
  HostTensor wrong(DType::F32, p.image(2, 3));
  expectError(checkKernel("train.avg_pool2d", p.attrs(), {&x}, {&wrong}),
              StatusCode::InvalidArgument, "result of shape [2, 3, 3, 3]");
}

INSTANTIATE_TEST_SUITE_P(DTypes, PoolingTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

/// PyTorch's adaptive windows: 5 rows into 3 are [0, 2), [1, 4), [3, 5)
/// (overlapping), 4 columns into 2 are [0, 2), [2, 4); the gradient spreads
/// each output's gradient over its window, adding where windows overlap.
TEST(Pooling, AdaptiveAveragePoolingWindows) {
  Values xs(20);
  for (int64_t i = 0; i < 20; ++i)
    xs[i] = static_cast<double>(i); // x[h][w] = 4 h + w
  HostTensor x = makeTensor(DType::F32, {1, 1, 5, 4}, xs);
  HostTensor y = zerosTensor(DType::F32, {1, 1, 3, 2});
  AttrMap nchw{{"layout", stringAttr("NCHW")}};
  ASSERT_OK(runKernel("train.adaptive_avg_pool2d", nchw, {&x}, {&y}));
  // Row windows' mean rows 0.5, 2, 3.5 (times 4), column means 0.5, 2.5.
  EXPECT_EQ(y.values(), (Values{2.5, 4.5, 8.5, 10.5, 14.5, 16.5}));
  HostTensor g = makeTensor(DType::F32, {1, 1, 3, 2}, {4, 8, 12, 16, 24, 32});
  HostTensor dx = zerosTensor(DType::F32, {1, 1, 5, 4});
  ASSERT_OK(runKernel("train.adaptive_avg_pool2d_grad", nchw, {&g}, {&dx}));
  // Windows of 2 x 2 (first row), 3 x 2 (second), 2 x 2 (third).
  Values want = {1, 1, 2, 2,              // row 0: window 0
                 1 + 2, 1 + 2, 2 + 16.0 / 6, 2 + 16.0 / 6, // row 1: 0 and 1
                 2, 2, 16.0 / 6, 16.0 / 6, // row 2: window 1
                 2 + 6, 2 + 6, 16.0 / 6 + 8, 16.0 / 6 + 8, // row 3: 1 and 2
                 6, 6, 8, 8};             // row 4: window 2
  expectNear(dx, want, elementwiseTolerance(DType::F32), "grad");
  HostTensor wrong = zerosTensor(DType::F32, {1, 2, 3, 2});
  expectError(runKernel("train.adaptive_avg_pool2d", nchw, {&x}, {&wrong}),
              StatusCode::InvalidArgument, "keep N and C");
}
