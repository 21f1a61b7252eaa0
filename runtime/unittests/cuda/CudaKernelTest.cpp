//===- CudaKernelTest.cpp - every cuda kernel against the reference -------===//
//
// Each op the cuda backend runs, in f32, bf16 and f16 (and the integer
// dtypes where the op takes them), on shapes with no dimension a multiple
// of a warp or a tile, compared with the reference backend on the same
// inputs (CudaTestSupport.cpp has the tolerances: one unit in the last
// place of a 16-bit result, a few f32 ulps plus 1e-5 of the largest value
// for f32 results, for sums taken in another order). Skipped, with the
// reason, where no GPU can run the backend; the coverage tests run anyway.
//
//===----------------------------------------------------------------------===//
#include "CudaKernelCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

using namespace mp::rt;
using namespace mp::rt::testing;
using namespace mp::rt::testing::cases;

namespace {

void runAll(const Cases &cases) {
  for (const Case &c : cases)
    runCase(c);
}

} // namespace

// Runs without a GPU: the cases cover every op the backend claims, and
// the ops it does not run are exactly the documented ones.
TEST(CudaCoverage, EveryOpHasCases) {
  std::set<std::string> tested;
  for (const Case &c : allCases())
    tested.insert(c.op);
  for (const std::string &op : cudaBackendOps())
    EXPECT_TRUE(tested.count(op)) << op << " has no test case";
}

TEST(CudaCoverage, CasesAreWellFormed) {
  for (const Case &c : allCases()) {
    Status status = checkOnReference(c);
    EXPECT_TRUE(status.isOk()) << c.name << ": " << status.message();
  }
}

TEST(CudaCoverage, RunsOpsOfTheReferenceOnly) {
#ifdef MP_HAVE_CUDA
  std::set<std::string> reference(referenceBackendOps().begin(),
                                  referenceBackendOps().end());
  // A subset of the reference's ops: an op added without a CUDA kernel (the
  // reference kernel is what an op needs; CONTRIBUTING.md, "Add an op") makes
  // the cuda backend reject plans that use it at session creation, by name.
  for (const std::string &op : cudaBackendOps())
    EXPECT_TRUE(reference.count(op)) << op;
  for (const std::string &op : referenceBackendOps())
    if (!std::count(cudaBackendOps().begin(), cudaBackendOps().end(), op))
      std::printf("no CUDA kernel (yet): %s\n", op.c_str());
#else
  EXPECT_TRUE(cudaBackendOps().empty());
  EXPECT_FALSE(cudaBackendStatus().isOk());
  EXPECT_NE(cudaBackendStatus().message().find("MP_ENABLE_CUDA"),
            std::string::npos)
      << cudaBackendStatus().message();
#endif
}

TEST(CudaKernels, LossesAndEncodings) {
  MP_REQUIRE_GPU();
  runAll(lossAndEncodingCases());
}
TEST(CudaKernels, Recurrent) {
  MP_REQUIRE_GPU();
  runAll(recurrentCases());
}
TEST(CudaKernels, Elementwise) {
  MP_REQUIRE_GPU();
  runAll(elementwiseCases());
}
TEST(CudaKernels, Matmul) {
  MP_REQUIRE_GPU();
  runAll(matmulCases());
}
TEST(CudaKernels, MatmulEpilogue) {
  MP_REQUIRE_GPU();
  runAll(matmulEpilogueCases());
}
TEST(CudaKernels, MixedPrecision) {
  MP_REQUIRE_GPU();
  runAll(mixedPrecisionCases());
}
TEST(CudaKernels, Optimizers) {
  MP_REQUIRE_GPU();
  runAll(optimizerCases());
}
TEST(CudaKernels, SoftmaxAndLosses) {
  MP_REQUIRE_GPU();
  runAll(softmaxCases());
}
TEST(CudaKernels, Reductions) {
  MP_REQUIRE_GPU();
  runAll(reductionCases());
}
TEST(CudaKernels, Normalization) {
  MP_REQUIRE_GPU();
  runAll(normalizationCases());
}
TEST(CudaKernels, ShapeOps) {
  MP_REQUIRE_GPU();
  runAll(shapeCases());
}
TEST(CudaKernels, Embedding) {
  MP_REQUIRE_GPU();
  runAll(embeddingCases());
}

// Data errors only the device sees are reported when the step finishes,
// naming the op, and the next step starts clean.
TEST(CudaKernels, DataErrorsNameTheOp) {
  MP_REQUIRE_GPU();
  Case badLabel{
      "bad label",
      "train.sparse_cross_entropy",
      {},
      {uniform(DType::F32, {4, 10}, 1), values(DType::I32, {4}, {1, 2, 12, 3})},
      {{DType::F32, {}}}};
  Status status = runOnCuda(badLabel);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.message().find("train.sparse_cross_entropy"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("label 12 in row 2 is outside [0, 10)"),
            std::string::npos)
      << status.message();

  Case badIndex{
      "bad index",
      "train.embedding",
      {},
      {uniform(DType::F32, {5, 3}, 2), values(DType::I64, {3}, {0, -1, 4})},
      {{DType::F32, {3, 3}}}};
  status = runOnCuda(badIndex);
  EXPECT_NE(status.message().find("index -1 at position 1"), std::string::npos)
      << status.message();

  Case divide{
      "divide by zero",
      "train.div",
      {},
      {values(DType::I32, {3}, {1, 2, 3}), values(DType::I32, {3}, {1, 0, 1})},
      {{DType::I32, {3}}}};
  status = runOnCuda(divide);
  EXPECT_NE(status.message().find("integer division by zero at element 1"),
            std::string::npos)
      << status.message();

  // The error word was cleared: a good kernel runs clean.
  runCase({"after errors",
           "train.relu",
           {},
           {uniform(DType::F32, {8}, 3)},
           {{DType::F32, {8}}}});
}

TEST(CudaKernels, ConvolutionsAndPooling) {
  MP_REQUIRE_GPU();
  runAll(windowCases());
}

// What the kernels cannot take is refused by check(), naming the op: a
// transpose of rank 9 (the strided gather takes rank <= 8).
TEST(CudaKernels, LimitsAreRejectedByCheck) {
  MP_REQUIRE_GPU();
  Plan plan;
  TensorDesc desc;
  desc.shape = std::vector<int64_t>(9, 1);
  plan.tensors = {desc, desc};
  KernelDesc transpose;
  transpose.op = "train.transpose";
  transpose.inputs = {0};
  transpose.outputs = {1};
  transpose.attrs["permutation"] = ints({8, 7, 6, 5, 4, 3, 2, 1, 0});
  ASSERT_TRUE(createReferenceBackend()->prepare(transpose, plan).isOk());
  Status status = cudaBackend()->prepare(transpose, plan);
  EXPECT_EQ(status.code(), StatusCode::Unimplemented);
  EXPECT_NE(status.message().find("train.transpose"), std::string::npos)
      << status.message();
}
