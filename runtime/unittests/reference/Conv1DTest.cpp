//===- Conv1DTest.cpp - conv1d against conv2d on a unit height ------------===//
//
// The direct 1-D loops against the 2-D reference kernels on the tensors
// mp-decompose makes (NCL / OIK as NCHW [N, C, 1, L] / OIHW [O, I, 1, K];
// NLC / KIO as NHWC [N, 1, L, C] / HWIO [1, K, I, O], the same bytes):
// this checks the compiler's rewrite numerically, for the three ops, with
// stride, padding, dilation and groups.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

using namespace mp::rt;
using namespace mp::rt::test;

namespace {

Shape withUnit(Shape s, size_t at) {
  s.insert(s.begin() + at, 1);
  return s;
}

/// The same bytes as a 4-D tensor.
HostTensor viewed(const HostTensor &t, size_t at) {
  HostTensor v = t;
  v.shape = withUnit(t.shape, at);
  return v;
}

class Conv1DTest : public ::testing::TestWithParam<DType> {};

TEST_P(Conv1DTest, MatchesConv2DOnAUnitHeight) {
  DType d = GetParam();
  const int64_t n = 2, c = 4, l = 11, o = 6, k = 3, groups = 2;
  const int64_t stride = 2, lo = 2, hi = 1, dilation = 2;
  const int64_t out = (l + lo + hi - dilation * (k - 1) - 1) / stride + 1;
  for (bool ncl : {true, false}) {
    size_t image = ncl ? 2 : 1, filter = ncl ? 2 : 0;
    Shape xs = ncl ? Shape{n, c, l} : Shape{n, l, c};
    Shape fs = ncl ? Shape{o, c / groups, k} : Shape{k, c / groups, o};
    Shape ys = ncl ? Shape{n, o, out} : Shape{n, out, o};
    HostTensor x = randomTensor(d, xs, -1, 1, 1);
    HostTensor f = randomTensor(d, fs, -1, 1, 2);
    HostTensor dy = randomTensor(d, ys, -1, 1, 3);
    AttrMap one{{"layout", stringAttr(ncl ? "NCL" : "NLC")},
                {"stride", intsAttr({stride})},
                {"padding", intsAttr({lo, hi})},
                {"dilation", intsAttr({dilation})},
                {"groups", intsAttr({groups})}};
    AttrMap two{{"layout", stringAttr(ncl ? "NCHW" : "NHWC")},
                {"strides", intsAttr({1, stride})},
                {"padding", intsAttr({0, 0, lo, hi})},
                {"dilations", intsAttr({1, dilation})},
                {"groups", intsAttr({groups})}};
    HostTensor x4 = viewed(x, image), f4 = viewed(f, filter),
               dy4 = viewed(dy, image);
    struct Op {
      const char *one, *two;
      std::vector<HostTensor *> in1, in2;
      Shape result;
      size_t unitAt;
    } ops[] = {
        {"train.conv1d", "train.conv2d", {&x, &f}, {&x4, &f4}, ys, image},
        {"train.conv1d_backward_data", "train.conv2d_backward_data",
         {&dy, &f}, {&dy4, &f4}, xs, image},
        {"train.conv1d_backward_filter", "train.conv2d_backward_filter",
         {&x, &dy}, {&x4, &dy4}, fs, filter},
    };
    for (Op &op : ops) {
      HostTensor got = zerosTensor(DType::F32, op.result);
      HostTensor want = zerosTensor(DType::F32, withUnit(op.result, op.unitAt));
      ASSERT_OK(runKernel(op.one, one, op.in1, {&got}));
      ASSERT_OK(runKernel(op.two, two, op.in2, {&want}));
      expectNear(got, want.values(), accumulateTolerance(DType::F32),
                 std::string(op.one) + (ncl ? " NCL" : " NLC"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, Conv1DTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);

TEST(Conv1DErrors, NameTheProblem) {
  HostTensor x(DType::F32, {2, 4, 5}), f(DType::F32, {3, 4, 7});
  HostTensor y(DType::F32, {2, 3, 1});
  expectError(runKernel("train.conv1d", {{"layout", stringAttr("NCL")}},
                        {&x, &f}, {&y}),
              StatusCode::InvalidArgument, "does not fit the padded length");
  expectError(runKernel("train.conv1d", {{"layout", stringAttr("NCHW")}},
                        {&x, &f}, {&y}),
              StatusCode::InvalidArgument, "NCL or NLC");
}

} // namespace
