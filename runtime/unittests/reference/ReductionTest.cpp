//===- ReductionTest.cpp - reduce_sum, reduce_mean, reduce_max ------------===//
#include "RefTestUtil.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class ReductionTest : public ::testing::TestWithParam<DType> {};

enum class Kind { Sum, Mean, Max };

/// Reduces x over the dims in `mask`, in double, result in row-major order
/// of the kept dims.
Values referenceReduce(const HostTensor &x, const std::vector<bool> &mask,
                       Kind kind) {
  const Shape &shape = x.shape;
  int64_t rank = shape.size();
  Shape kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!mask[d])
      kept.push_back(shape[d]);
  int64_t resultSize = 1;
  for (int64_t k : kept)
    resultSize *= k;
  Values out(resultSize, kind == Kind::Max ? -HUGE_VAL : 0.0);
  Values count(resultSize, 0);
  Shape index(rank, 0);
  for (int64_t e = 0; e < x.size(); ++e) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!mask[d])
        o = o * shape[d] + index[d];
    out[o] = kind == Kind::Max ? std::max(out[o], x.at(e)) : out[o] + x.at(e);
    count[o] += 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  if (kind == Kind::Mean)
    for (int64_t o = 0; o < resultSize; ++o)
      out[o] /= count[o];
  return out;
}
} // namespace

TEST_P(ReductionTest, MatchDoubleReference) {
  DType dtype = GetParam();
  Shape shape{3, 4, 5};
  const std::vector<std::vector<int64_t>> dimSets = {
      {0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}, {}};
  const std::pair<const char *, Kind> ops[] = {
      {"train.reduce_sum", Kind::Sum},
      {"train.reduce_mean", Kind::Mean},
      {"train.reduce_max", Kind::Max}};
  unsigned seed = 1;
  for (const auto &dims : dimSets) {
    std::vector<bool> mask(3, false);
    for (int64_t d : dims)
      mask[d < 0 ? d + 3 : d] = true;
    HostTensor x = randomTensor(dtype, shape, -2, 2, seed++);
    for (bool keepDims : {false, true}) {
      Shape resultShape;
      for (int64_t d = 0; d < 3; ++d)
        if (!mask[d])
          resultShape.push_back(shape[d]);
        else if (keepDims)
          resultShape.push_back(1);
      AttrMap attrs = {{"dims", intsAttr(dims)},
                       {"keep_dims", intsAttr({keepDims})}};
      for (const auto &[op, kind] : ops) {
        // sum and mean may accumulate into f32; max keeps the dtype.
        for (DType result : {dtype, DType::F32}) {
          if (kind == Kind::Max && result != dtype)
            continue;
          HostTensor r(result, resultShape);
          ASSERT_OK(runKernel(op, attrs, {&x}, {&r}));
          expectNear(r, referenceReduce(x, mask, kind),
                     accumulateTolerance(result),
                     std::string(op) + " dims " + formatShape(dims));
        }
      }
    }
  }
}

TEST(Reduction, MaxPropagatesNaN) {
  HostTensor x =
      makeTensor(DType::F32, {2, 3}, {1, std::nan(""), 3, -1, -2, -3});
  HostTensor r(DType::F32, {2});
  ASSERT_OK(
      runKernel("train.reduce_max", {{"dims", intsAttr({1})}}, {&x}, {&r}));
  EXPECT_TRUE(std::isnan(r.at(0)));
  EXPECT_EQ(r.at(1), -1);
}

TEST(Reduction, RejectsBadDims) {
  HostTensor x(DType::F32, {3, 4}), r(DType::F32, {3});
  expectError(checkKernel("train.reduce_sum", {{"dims", intsAttr({1, -1})}},
                          {&x}, {&r}),
              StatusCode::InvalidArgument, "reduces dimension 1 twice");
  expectError(
      checkKernel("train.reduce_sum", {{"dims", intsAttr({2})}}, {&x}, {&r}),
      StatusCode::InvalidArgument, "out of range");
  expectError(checkKernel("train.reduce_sum", {}, {&x}, {&r}),
              StatusCode::InvalidArgument, "'dims'");
  HostTensor wrong(DType::F32, {4});
  expectError(checkKernel("train.reduce_sum", {{"dims", intsAttr({1})}}, {&x},
                          {&wrong}),
              StatusCode::InvalidArgument, "result of shape [3]");
  HostTensor b(DType::BF16, {3, 4}), f(DType::F32, {3});
  expectError(
      checkKernel("train.reduce_max", {{"dims", intsAttr({1})}}, {&b}, {&f}),
      StatusCode::Unimplemented, "result of dtype bf16");
}

INSTANTIATE_TEST_SUITE_P(DTypes, ReductionTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
