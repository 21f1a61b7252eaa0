//===- ShapeTest.cpp - reshape, transpose, broadcast, slice, concat, fill -===//
//
// Data movement copies bits: results must match exactly, for every dtype.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class ShapeTest : public ::testing::TestWithParam<DType> {};

const Tolerance kExact = {0, 0};

/// 0, 1, 2, ... (0/1 alternating for i1), exact in every dtype.
HostTensor iota(DType dtype, Shape shape) {
  HostTensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i)
    t.set(i, dtype == DType::I1 ? i % 2 : double(i % 200) - 50);
  return t;
}

const std::vector<DType> kAllDTypes = {DType::F32, DType::BF16, DType::F16,
                                       DType::I1,  DType::I32,  DType::I64};
} // namespace

TEST_P(ShapeTest, ReshapeAndTranspose) {
  DType dtype = GetParam();
  HostTensor x = iota(dtype, {2, 3, 4});
  HostTensor r(dtype, {6, 4});
  ASSERT_OK(runKernel("train.reshape", {}, {&x}, {&r}));
  expectNear(r, x.values(), kExact, "reshape");

  HostTensor t(dtype, {4, 2, 3});
  ASSERT_OK(runKernel("train.transpose", {{"permutation", intsAttr({2, 0, 1})}},
                      {&x}, {&t}));
  Values want;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t k = 0; k < 3; ++k)
        want.push_back(x.at((j * 3 + k) * 4 + i)); // t[i,j,k] = x[j,k,i]
  expectNear(t, want, kExact, "transpose");
}

TEST_P(ShapeTest, Broadcast) {
  DType dtype = GetParam();
  HostTensor x = iota(dtype, {3, 1});
  HostTensor r(dtype, {3, 4, 5});
  ASSERT_OK(
      runKernel("train.broadcast", {{"dims", intsAttr({0, 2})}}, {&x}, {&r}));
  Values want;
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 5; ++c)
        want.push_back(x.at(a));
  expectNear(r, want, kExact, "broadcast [3,1] -> [3,4,5]");

  HostTensor row = iota(dtype, {4}), rows(dtype, {3, 4});
  ASSERT_OK(
      runKernel("train.broadcast", {{"dims", intsAttr({1})}}, {&row}, {&rows}));
  want.clear();
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      want.push_back(row.at(b));
  expectNear(rows, want, kExact, "broadcast [4] -> [3,4]");

  HostTensor scalar = iota(dtype, {}), filled(dtype, {2, 2});
  ASSERT_OK(runKernel("train.broadcast", {{"dims", intsAttr({})}}, {&scalar},
                      {&filled}));
  expectNear(filled, Values(4, scalar.at(0)), kExact, "broadcast scalar");

  expectError(checkKernel("train.broadcast", {{"dims", intsAttr({0})}}, {&row},
                          {&rows}),
              StatusCode::InvalidArgument, "cannot broadcast dimension 0");
}

TEST_P(ShapeTest, SliceAndConcat) {
  DType dtype = GetParam();
  HostTensor x = iota(dtype, {5, 6});
  HostTensor s(dtype, {2, 3});
  ASSERT_OK(
      runKernel("train.slice",
                {{"offsets", intsAttr({1, 2})}, {"strides", intsAttr({2, 1})}},
                {&x}, {&s}));
  Values want;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      want.push_back(x.at((1 + 2 * i) * 6 + 2 + j));
  expectNear(s, want, kExact, "strided slice");
  HostTensor plain(dtype, {1, 6});
  ASSERT_OK(runKernel("train.slice", {{"offsets", intsAttr({4, 0})}}, {&x},
                      {&plain}));
  Values xs = x.values();
  expectNear(plain, Values(xs.begin() + 24, xs.end()), kExact,
             "slice without strides");
  HostTensor tooFar(dtype, {3, 3});
  expectError(checkKernel("train.slice",
                          {{"offsets", intsAttr({1, 2})},
                           {"strides", intsAttr({2, 1})}},
                          {&x}, {&tooFar}),
              StatusCode::InvalidArgument, "slice of dimension 0 reads past");

  HostTensor a = iota(dtype, {2, 1, 3}), b = iota(dtype, {2, 2, 3});
  for (int64_t dim : {1, -2}) {
    HostTensor c(dtype, {2, 3, 3});
    ASSERT_OK(
        runKernel("train.concat", {{"dim", intsAttr({dim})}}, {&a, &b}, {&c}));
    want.clear();
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t k = 0; k < 3; ++k)
        want.push_back(a.at(i * 3 + k));
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 3; ++k)
          want.push_back(b.at((i * 2 + j) * 3 + k));
    }
    expectNear(c, want, kExact, "concat dim " + std::to_string(dim));
  }
  HostTensor c0(dtype, {4, 1, 3});
  ASSERT_OK(
      runKernel("train.concat", {{"dim", intsAttr({0})}}, {&a, &a}, {&c0}));
  Values once = a.values(), twice = once;
  twice.insert(twice.end(), once.begin(), once.end());
  expectNear(c0, twice, kExact, "concat dim 0");
  HostTensor bad(dtype, {2, 4, 3});
  expectError(
      checkKernel("train.concat", {{"dim", intsAttr({1})}}, {&a, &b}, {&bad}),
      StatusCode::InvalidArgument, "inputs add up to 3");
}

TEST(Shape, FillRoundsTheDoubleOnce) {
  // Just above a tie of the 16-bit format, but within half an f32 ulp of
  // it: rounding through f32 to nearest would land on the tie and round
  // to even, the wrong way.
  const std::pair<DType, double> cases[] = {
      {DType::BF16, 1 + 0x1p-8 + 0x1p-40}, {DType::F16, 1 + 0x1p-11 + 0x1p-40}};
  for (const auto &[dtype, value] : cases) {
    HostTensor r(dtype, {3});
    ASSERT_OK(runKernel("train.fill", {{"value", floatAttr(value)}}, {}, {&r}));
    double want = dtype == DType::BF16 ? 1 + 0x1p-7 : 1 + 0x1p-10;
    expectNear(r, Values(3, want), kExact, "fill");
  }
  HostTensor f(DType::F32, {2});
  ASSERT_OK(runKernel("train.fill", {{"value", floatAttr(0.1)}}, {}, {&f}));
  expectNear(f, Values(2, double(0.1f)), kExact, "fill f32");
  HostTensor i(DType::I32, {2}), p(DType::I1, {2});
  ASSERT_OK(runKernel("train.fill", {{"value", floatAttr(-3)}}, {}, {&i}));
  ASSERT_OK(runKernel("train.fill", {{"value", floatAttr(1)}}, {}, {&p}));
  expectNear(i, {-3, -3}, kExact, "fill i32");
  EXPECT_EQ(p.bytes, (std::vector<uint8_t>{1, 1}));
  expectError(checkKernel("train.fill", {{"value", floatAttr(0.5)}}, {}, {&i}),
              StatusCode::InvalidArgument, "cannot fill an i32 tensor");
  expectError(checkKernel("train.fill", {{"value", floatAttr(2)}}, {}, {&p}),
              StatusCode::InvalidArgument, "cannot fill an i1 tensor");
  expectError(checkKernel("train.fill", {}, {}, {&f}),
              StatusCode::InvalidArgument, "'value'");
}

TEST(Shape, GradSeedIsOne) {
  for (DType dtype : floatDTypes()) {
    HostTensor loss = makeTensor(dtype, {}, {3.5}), seed(dtype, {});
    ASSERT_OK(runKernel("train.grad_seed", {}, {&loss}, {&seed}));
    EXPECT_EQ(seed.at(0), 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, ShapeTest, ::testing::ValuesIn(kAllDTypes),
                         dtypeTestName);

TEST(PadTest, ConstantAroundTheInput) {
  HostTensor x = makeTensor(DType::F32, {2, 2}, {1, 2, 3, 4});
  HostTensor y = zerosTensor(DType::F32, {3, 5});
  ASSERT_OK(runKernel("train.pad",
                      {{"low", intsAttr({1, 2})},
                       {"high", intsAttr({0, 1})},
                       {"value", floatAttr(-1)}},
                      {&x}, {&y}));
  EXPECT_EQ(y.values(), (Values{-1, -1, -1, -1, -1, //
                                -1, -1, 1, 2, -1,   //
                                -1, -1, 3, 4, -1}));
  HostTensor ints = makeTensor(DType::I64, {2}, {7, 8});
  HostTensor padded = zerosTensor(DType::I64, {3});
  expectError(runKernel("train.pad",
                        {{"low", intsAttr({1})}, {"high", intsAttr({0})},
                         {"value", floatAttr(0.5)}},
                        {&ints}, {&padded}),
              StatusCode::InvalidArgument, "cannot fill");
}

TEST(OneHotTest, OnesAtTheIndicesAndOutOfRangeIsAnError) {
  HostTensor idx = makeTensor(DType::I64, {3}, {2, 0, 1});
  HostTensor y = zerosTensor(DType::BF16, {3, 3});
  ASSERT_OK(runKernel("train.one_hot", {}, {&idx}, {&y}));
  EXPECT_EQ(y.values(), (Values{0, 0, 1, 1, 0, 0, 0, 1, 0}));
  HostTensor bad = makeTensor(DType::I32, {2}, {1, 3});
  HostTensor z = zerosTensor(DType::F32, {2, 3});
  expectError(runKernel("train.one_hot", {}, {&bad}, {&z}),
              StatusCode::InvalidArgument, "index 3 at position 1");
}
