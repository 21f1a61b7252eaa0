//===- EmbeddingTest.cpp - embedding, gather and their gradients ----------===//
#include "RefTestUtil.h"

using namespace mp::rt;
using namespace mp::rt::test;

namespace {
class EmbeddingTest : public ::testing::TestWithParam<DType> {};
} // namespace

TEST_P(EmbeddingTest, GatherAndScatterAdd) {
  DType dtype = GetParam();
  for (DType indexType : {DType::I32, DType::I64}) {
    HostTensor table = randomTensor(dtype, {5, 3}, -1, 1, 1);
    // Repeated indices: the gradient rows add up.
    HostTensor indices = makeTensor(indexType, {2, 3}, {4, 0, 4, 2, 4, 1});
    HostTensor rows(dtype, {2, 3, 3});
    ASSERT_OK(runKernel("train.embedding", {}, {&table, &indices}, {&rows}));
    Values want;
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t d = 0; d < 3; ++d)
        want.push_back(table.at(int64_t(indices.at(i)) * 3 + d));
    expectNear(rows, want, {0, 0}, "embedding (a bitwise gather)");

    HostTensor grad = randomTensor(dtype, {2, 3, 3}, -1, 1, 2);
    Values wantGrad(15, 0.0);
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t d = 0; d < 3; ++d)
        wantGrad[int64_t(indices.at(i)) * 3 + d] += grad.at(i * 3 + d);
    for (DType result : {dtype, DType::F32}) {
      HostTensor dtable(result, {5, 3});
      ASSERT_OK(
          runKernel("train.embedding_grad", {}, {&grad, &indices}, {&dtable}));
      expectNear(dtable, wantGrad, accumulateTolerance(result),
                 "embedding_grad");
    }
  }
}

TEST(Embedding, IndexOutOfRangeIsInvalidArgument) {
  HostTensor table(DType::F32, {5, 2}), rows(DType::F32, {3, 2});
  HostTensor grad(DType::F32, {3, 2}), dtable(DType::F32, {5, 2});
  for (int64_t bad : {5, -1}) {
    HostTensor indices = makeTensor(DType::I64, {3}, {0, 1, double(bad)});
    expectError(runKernel("train.embedding", {}, {&table, &indices}, {&rows}),
                StatusCode::InvalidArgument,
                "index " + std::to_string(bad) +
                    " at position 2 is outside [0, 5)");
    expectError(
        runKernel("train.embedding_grad", {}, {&grad, &indices}, {&dtable}),
        StatusCode::InvalidArgument, "index " + std::to_string(bad));
  }
  HostTensor indices(DType::I32, {4});
  expectError(checkKernel("train.embedding", {}, {&table, &indices}, {&rows}),
              StatusCode::InvalidArgument, "result of shape [4, 2]");
}

/// x [2, 4, 3] gathered along each axis at repeated indices, against the
/// definition result[a, i, b] = x[a, idx[i], b]; the gradient sums the
/// slices each index took.
TEST_P(EmbeddingTest, GatherAlongEveryAxisAndItsGradient) {
  DType dtype = GetParam();
  Shape shape{2, 4, 3};
  HostTensor x = randomTensor(dtype, shape, -1, 1, 3);
  HostTensor indices = makeTensor(DType::I64, {2, 2}, {1, 0, 1, 1});
  for (int64_t axis = 0; axis < 3; ++axis) {
    int64_t outer = 1, inner = 1, size = shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (int64_t d = axis + 1; d < 3; ++d)
      inner *= shape[d];
    Shape gathered(shape.begin(), shape.begin() + axis);
    gathered.push_back(2);
    gathered.push_back(2);
    gathered.insert(gathered.end(), shape.begin() + axis + 1, shape.end());
    HostTensor y(dtype, gathered);
    AttrMap attrs{{"axis", intsAttr({axis})}};
    ASSERT_OK(runKernel("train.gather", attrs, {&x, &indices}, {&y}));
    Values want, wantGrad(x.size(), 0.0);
    HostTensor grad = randomTensor(dtype, gathered, -1, 1, 4);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t b = 0; b < inner; ++b) {
          int64_t from = (o * size + int64_t(indices.at(i))) * inner + b;
          want.push_back(x.at(from));
          wantGrad[from] += grad.at((o * 4 + i) * inner + b);
        }
    expectNear(y, want, {0, 0}, "gather axis " + std::to_string(axis));
    for (DType result : {dtype, DType::F32}) {
      HostTensor dx(result, shape);
      ASSERT_OK(runKernel("train.gather_grad", attrs, {&grad, &indices}, {&dx}));
      expectNear(dx, wantGrad, accumulateTolerance(result),
                 "gather_grad axis " + std::to_string(axis));
    }
  }
}

TEST(Gather, IntegersAndErrors) {
  HostTensor ids = makeTensor(DType::I64, {2, 3}, {10, 11, 12, 20, 21, 22});
  HostTensor pick = makeTensor(DType::I32, {2}, {2, 0});
  HostTensor y(DType::I64, {2, 2});
  AttrMap last{{"axis", intsAttr({1})}};
  ASSERT_OK(runKernel("train.gather", last, {&ids, &pick}, {&y}));
  EXPECT_EQ(y.values(), (Values{12, 10, 22, 20}));
  HostTensor bad = makeTensor(DType::I32, {2}, {3, 0});
  expectError(runKernel("train.gather", last, {&ids, &bad}, {&y}),
              StatusCode::InvalidArgument, "index 3 at position 0 is outside [0, 3)");
  expectError(checkKernel("train.gather", {{"axis", intsAttr({2})}},
                          {&ids, &pick}, {&y}),
              StatusCode::InvalidArgument, "axis 2 of a rank-2 x");
  HostTensor wrong(DType::I64, {2, 3});
  expectError(checkKernel("train.gather", last, {&ids, &pick}, {&wrong}),
              StatusCode::InvalidArgument, "result of shape [2, 2]");
}

INSTANTIATE_TEST_SUITE_P(DTypes, EmbeddingTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
