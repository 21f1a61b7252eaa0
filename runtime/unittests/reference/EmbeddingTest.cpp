//===- EmbeddingTest.cpp - embedding and embedding_grad -------------------===//
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

INSTANTIATE_TEST_SUITE_P(DTypes, EmbeddingTest,
                         ::testing::ValuesIn(floatDTypes()), dtypeTestName);
