//===- FusedCodegenTest.cpp - generated code against the reference -------===//
//
// Every op generated code computes, in every float dtype, on random values
// and the special ones (zeros of both signs, infinities, NaN, subnormals,
// values that overflow exp): a plan of the op and a second kernel reading
// its result (a fused region of two), run by the cpu backend on the
// generated code and by the reference backend kernel by kernel. Without a
// transcendental the two agree bitwise (the same f32 operations in the
// same order, each result rounded once to its dtype); with one (exp, log,
// tanh: MLIR's polynomial approximations) within the tolerance
// docs/codegen.md gives: 4 ulp of f32 plus 1e-7 near zero, and one unit in
// the last place of a 16-bit result (an approximation an ulp off in f32 can
// round to the neighbouring 16-bit value).
//
//===----------------------------------------------------------------------===//
#include "mp/Target/Cpu/FusedCode.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include <unistd.h>

using namespace mp;
using namespace mp::rt;

namespace {

struct OpCase {
  const char *op;
  int arity;              ///< 1 or 2 (the second operand: a gradient's x)
  bool transcendental;    ///< approximated: compared with a tolerance
  std::map<std::string, Attr> attrs = {};
};

Attr flag() {
  Attr a;
  a.kind = Attr::Kind::Ints;
  a.ints = {1};
  return a;
}
Attr number(double v) {
  Attr a;
  a.kind = Attr::Kind::Floats;
  a.floats = {v};
  return a;
}

const OpCase kCases[] = {
    {"train.neg", 1, false},
    {"train.abs", 1, false},
    {"train.exp", 1, true},
    {"train.log", 1, true},
    {"train.sqrt", 1, false},
    {"train.rsqrt", 1, false},
    {"train.tanh", 1, true},
    {"train.sigmoid", 1, true},
    {"train.relu", 1, false},
    {"train.silu", 1, true},
    {"train.gelu", 1, true, {{"tanh_approx", flag()}}},
    {"train.leaky_relu", 1, false, {{"negative_slope", number(0.2)}}},
    {"train.add", 2, false},
    {"train.sub", 2, false},
    {"train.mul", 2, false},
    {"train.div", 2, false},
    {"train.maximum", 2, false},
    {"train.minimum", 2, false},
    {"train.relu_grad", 2, false},
    {"train.tanh_grad", 2, false},
    {"train.sigmoid_grad", 2, false},
    {"train.gelu_grad", 2, true, {{"tanh_approx", flag()}}},
    {"train.silu_grad", 2, true},
    {"train.leaky_relu_grad", 2, false, {{"negative_slope", number(0.2)}}},
};

constexpr int64_t kRows = 96, kCols = 40; // not a multiple of any vector

/// Random values in [-8, 8] (some far larger), then the special ones.
std::vector<float> testValues(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-8.0f, 8.0f);
  std::vector<float> values(kRows * kCols);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = i % 17 == 0 ? uniform(rng) * 40.0f : uniform(rng);
  const float specials[] = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-40f,
                            -1e-40f,
                            88.8f,
                            -104.0f,
                            3.0f,
                            -3.0f,
                            1e-3f};
  for (size_t i = 0; i < std::size(specials); ++i)
    values[(seed * 7 + i * 13) % values.size()] = specials[i];
  return values;
}

/// This process's folder for the libraries it generates: ctest runs the
/// suite twice at once (the AVX2 variant), and the two must not write one
/// file.
std::string scratchPath() {
  static const std::string path = [] {
    std::string dir =
        ::testing::TempDir() + "/fused_codegen_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    return dir;
  }();
  return path;
}

/// Generates `plan`'s code into this process's folder as `<name>.code.so`
/// and attaches the library to the plan; true where it made one region.
bool attachCode(Plan &plan, const std::string &name) {
  mlir::MLIRContext context;
  CodegenOptions options;
  options.libraryPath = scratchPath() + "/" + name + ".code.so";
  if (failed(generateFusedCode(plan, options, mlir::UnknownLoc::get(&context))))
    return false;
  plan.code.resolvedPath = options.libraryPath;
  return plan.code.regions.size() == 1;
}

std::string caseName(const OpCase &c, DType dtype) {
  std::string name = std::string(c.op + 6) + (c.attrs.count("tanh_approx") ? "_tanh" : "");
  return name + "_" + dtypeName(dtype);
}

/// The loss = reduce_sum(b), a and b returned, the layout decided.
void finishPlan(Plan &plan, uint32_t a, uint32_t b, uint32_t loss) {
  Attr dims;
  dims.kind = Attr::Kind::Ints;
  dims.ints = {0, 1};
  plan.kernels.push_back({"train.reduce_sum", {b}, {loss}, {{"dims", dims}}});
  plan.results.push_back({ResultRole::Loss, loss, UINT32_MAX, "loss", 0});
  plan.results.push_back({ResultRole::Output, a, UINT32_MAX, "a", 0});
  plan.results.push_back({ResultRole::Output, b, UINT32_MAX, "b", 0});
  layOutPlan(plan);
}

/// op(x[, g]) -> a; neg(a) -> b, or for bias_add the bias first; a and b
/// returned; the loss a reduction of b.
Plan makePlan(const OpCase &c, DType dtype, bool bias) {
  Plan plan;
  plan.policy = "float32";
  auto add = [&](TensorKind kind, std::vector<int64_t> shape,
                 std::string name, DType type) {
    plan.tensors.push_back({kind, type, std::move(shape), std::move(name), 0, 0});
    return static_cast<uint32_t>(plan.tensors.size() - 1);
  };
  uint32_t x = add(TensorKind::Input, {kRows, kCols}, "x", dtype);
  uint32_t second = bias ? add(TensorKind::Input, {kCols}, "bias", dtype)
                         : add(TensorKind::Input, {kRows, kCols}, "g", dtype);
  uint32_t a = add(TensorKind::Scratch, {kRows, kCols}, "", dtype);
  uint32_t b = add(TensorKind::Scratch, {kRows, kCols}, "", dtype);
  uint32_t loss = add(TensorKind::Scratch, {}, "", dtype);
  if (bias)
    plan.kernels.push_back({"train.bias_add", {x, second}, {a}, {}});
  else if (c.arity == 1)
    plan.kernels.push_back({c.op, {x}, {a}, c.attrs});
  else // gradients read (upstream gradient, forward tensor)
    plan.kernels.push_back({c.op, {second, x}, {a}, c.attrs});
  plan.kernels.push_back({"train.neg", {a}, {b}, {}});
  finishPlan(plan, a, b, loss);
  return plan;
}

/// The 16-bit encoding of `values` in `dtype` (f32: the bytes as they are).
std::vector<uint8_t> encode(const std::vector<float> &values, DType dtype,
                            std::vector<int64_t> shape) {
  std::vector<uint8_t> bytes(values.size() * dtypeSize(dtype));
  storeFloats({dtype, std::move(shape), bytes.data()}, values.data());
  return bytes;
}

std::vector<float> run(const Plan &plan, const std::string &backend,
                       DType dtype, bool bias, bool &usedCode,
                       std::vector<float> &second) {
  StatusOr<std::unique_ptr<Session>> session = Session::create(plan, backend);
  EXPECT_TRUE(session.isOk()) << session.status().message();
  if (!session.isOk())
    return {};
  usedCode = (*session)->usesGeneratedCode();
  EXPECT_TRUE((*session)->generatedCodeStatus().size() > 0);
  std::vector<float> x = testValues(1), g = testValues(2);
  std::vector<int64_t> shape{kRows, kCols};
  std::vector<uint8_t> xb = encode(x, dtype, shape);
  EXPECT_TRUE((*session)->setTensor("x", dtype, shape, xb.data(), xb.size()).isOk());
  if (bias) {
    g.resize(kCols);
    std::vector<uint8_t> bb = encode(g, dtype, {kCols});
    EXPECT_TRUE(
        (*session)->setTensor("bias", dtype, {kCols}, bb.data(), bb.size()).isOk());
  } else {
    std::vector<uint8_t> gb = encode(g, dtype, shape);
    EXPECT_TRUE((*session)->setTensor("g", dtype, shape, gb.data(), gb.size()).isOk());
  }
  Status step = (*session)->runStep();
  EXPECT_TRUE(step.isOk()) << step.message();
  std::vector<float> out;
  for (const char *name : {"a", "b"}) {
    std::vector<uint8_t> bytes(kRows * kCols * dtypeSize(dtype));
    EXPECT_TRUE((*session)->getTensor(name, bytes.data(), bytes.size()).isOk());
    std::vector<float> values(kRows * kCols);
    loadFloats({dtype, shape, bytes.data()}, values.data());
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

/// The error allowed at reference value `ref` from input x (and, for a
/// gradient, upstream gradient g): none without a transcendental; else 4
/// ulp of f32 relative plus the approximations' absolute error (1e-6)
/// times what the op multiplies it by: max(1, |x|) (gelu's
/// 1 + erf(x / sqrt 2) cancels to small values for negative x, where
/// erf's absolute error is what is left), for a gradient max(1, |x|)^2
/// max(1, |g|) (gelu's tanh derivative scales 1 - tanh^2 by ~x^3 / 20);
/// and one ulp of a 16-bit result.
double allowed(float ref, float x, float g, bool gradient, DType dtype,
               bool transcendental) {
  if (!transcendental)
    return 0;
  double magnitude = std::fabs(static_cast<double>(ref));
  double scale = std::fmax(1.0, std::fabs(double(x)));
  double absolute = gradient ? 1e-6 * scale * scale *
                                   std::fmax(1.0, std::fabs(double(g)))
                             : 1e-6 * scale;
  switch (dtype) {
  case DType::BF16:
    return std::ldexp(magnitude, -7) + absolute;
  case DType::F16:
    return std::ldexp(magnitude, -10) + absolute;
  default:
    return 4 * std::ldexp(magnitude, -23) + absolute;
  }
}

class FusedCodegenTest
    : public ::testing::TestWithParam<std::tuple<size_t, DType>> {};

void compareWithReference(const OpCase &c, DType dtype, bool bias) {
  if (!cpuBackendStatus().isOk())
    GTEST_SKIP() << cpuBackendStatus().message();
  if (!cpuFeatureSet().avx2 || !cpuFeatureSet().f16c)
    GTEST_SKIP() << "generated code needs AVX2 and F16C; this CPU has "
                 << cpuFeatures();
  Plan plan = makePlan(c, dtype, bias);
  ASSERT_TRUE(attachCode(
      plan, "fused_" + (bias ? std::string("bias_add_") + dtypeName(dtype)
                             : caseName(c, dtype))));
  ASSERT_EQ(plan.code.regions[0].count, 2u);
  EXPECT_EQ(plan.code.regions[0].rowLength, bias ? kCols : 1);

  bool fused = false, unfused = true;
  std::vector<float> second;
  std::vector<float> got = run(plan, "cpu", dtype, bias, fused, second);
  std::vector<float> want = run(plan, "reference", dtype, bias, unfused, second);
  ASSERT_TRUE(fused) << "the cpu backend did not run the generated code";
  ASSERT_FALSE(unfused);
  ASSERT_EQ(got.size(), want.size());
  std::vector<float> x = testValues(1), g2 = testValues(2);
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    float g = got[i], w = want[i];
    if (std::isnan(w) && std::isnan(g))
      continue;
    bool same = std::memcmp(&g, &w, sizeof(float)) == 0;
    if (same)
      continue;
    bool close = std::isfinite(w) &&
                 std::fabs(double(g) - double(w)) <=
                     allowed(w, x[i % x.size()], g2[i % g2.size()], c.arity == 2,
                             dtype, c.transcendental);
    if (!close) {
      ++bad;
      ADD_FAILURE() << (i < got.size() / 2 ? "a" : "b") << "[" << i % (kRows * kCols)
                    << "]: generated " << g << ", reference " << w;
    }
  }
}

TEST_P(FusedCodegenTest, MatchesTheReference) {
  auto [index, dtype] = GetParam();
  compareWithReference(kCases[index], dtype, /*bias=*/false);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, FusedCodegenTest,
    ::testing::Combine(::testing::Range<size_t>(0, std::size(kCases)),
                       ::testing::Values(DType::F32, DType::BF16, DType::F16)),
    [](const ::testing::TestParamInfo<std::tuple<size_t, DType>> &info) {
      return caseName(kCases[std::get<0>(info.param)], std::get<1>(info.param));
    });

TEST(FusedCodegen, ExactGeluAndErfStayKernels) {
  // Measured slower on MLIR's erf approximation than on the cpu backend's
  // libmvec loop: not fused (the tanh GELU is).
  for (const char *op : {"train.erf", "train.gelu", "train.gelu_grad"}) {
    OpCase c{op, std::string(op) == "train.gelu_grad" ? 2 : 1, true};
    Plan plan = makePlan(c, DType::F32, /*bias=*/false);
    int64_t rowLength = 0;
    EXPECT_FALSE(isFusibleKernel(plan, 0, rowLength)) << op;
    EXPECT_TRUE(findFusedRegions(plan).empty()) << op;
    c.attrs = {{"tanh_approx", flag()}};
    if (std::string(op) != "train.erf") {
      EXPECT_TRUE(isFusibleKernel(makePlan(c, DType::F32, false), 0, rowLength))
          << op << " (tanh)";
    }
  }
}

TEST(FusedCodegen, BiasAddAlongTheLastDimension) {
  for (DType dtype : {DType::F32, DType::BF16, DType::F16})
    compareWithReference({"train.bias_add", 2, false}, dtype, /*bias=*/true);
}

/// One input of expectBitwiseTheReference: its name, dtype, shape, bytes.
struct Input {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

/// Runs one step of `plan` (generated code attached) on the cpu backend
/// and on the reference, from `inputs`, and expects outputs "a" and "b"
/// ([kRows, kCols] in `dtype`) bitwise the same (NaN of any payload alike).
void expectBitwiseTheReference(const Plan &plan, DType dtype,
                               const std::vector<Input> &inputs) {
  std::vector<std::vector<uint8_t>> results[2];
  for (int which = 0; which < 2; ++which) {
    StatusOr<std::unique_ptr<Session>> session =
        Session::create(plan, which == 0 ? "cpu" : "reference");
    ASSERT_TRUE(session.isOk()) << session.status().message();
    EXPECT_EQ((*session)->usesGeneratedCode(), which == 0);
    for (const Input &input : inputs)
      ASSERT_TRUE((*session)
                      ->setTensor(input.name, input.dtype, input.shape,
                                  input.bytes.data(), input.bytes.size())
                      .isOk())
          << input.name;
    Status step = (*session)->runStep();
    ASSERT_TRUE(step.isOk()) << step.message();
    for (const char *name : {"a", "b"}) {
      std::vector<uint8_t> bytes(kRows * kCols * dtypeSize(dtype));
      ASSERT_TRUE(
          (*session)->getTensor(name, bytes.data(), bytes.size()).isOk());
      results[which].push_back(bytes);
    }
  }
  size_t size = dtypeSize(dtype);
  for (size_t r = 0; r < 2; ++r)
    for (size_t i = 0; i < kRows * kCols; ++i) {
      float got = loadFloat({dtype, {1}, results[0][r].data() + i * size}, 0),
            want = loadFloat({dtype, {1}, results[1][r].data() + i * size}, 0);
      if (std::isnan(got) && std::isnan(want))
        continue;
      ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
          << (r ? "b" : "a") << "[" << i << "]: generated " << got
          << ", reference " << want;
    }
}

/// select with a byte condition (i1) in a region: select(keep, x, fill(-inf))
/// then mul, as the attention masks run; bitwise the reference (no
/// arithmetic but the product), in every float dtype, the condition's
/// nonzero bytes all true.
TEST(FusedCodegen, SelectOnAByteCondition) {
  if (!cpuBackendStatus().isOk())
    GTEST_SKIP() << cpuBackendStatus().message();
  if (!cpuFeatureSet().avx2 || !cpuFeatureSet().f16c)
    GTEST_SKIP() << "generated code needs AVX2 and F16C";
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    Plan plan;
    plan.policy = "float32";
    auto add = [&](TensorKind kind, std::string name, DType type) {
      plan.tensors.push_back({kind, type, {kRows, kCols}, std::move(name), 0, 0});
      return static_cast<uint32_t>(plan.tensors.size() - 1);
    };
    uint32_t keep = add(TensorKind::Input, "keep", DType::I1);
    uint32_t x = add(TensorKind::Input, "x", dtype);
    uint32_t g = add(TensorKind::Input, "g", dtype);
    uint32_t low = add(TensorKind::Scratch, "", dtype);
    uint32_t a = add(TensorKind::Scratch, "", dtype);
    uint32_t b = add(TensorKind::Scratch, "", dtype);
    plan.tensors.push_back({TensorKind::Scratch, dtype, {}, "", 0, 0});
    uint32_t loss = static_cast<uint32_t>(plan.tensors.size() - 1);
    plan.kernels.push_back(
        {"train.fill", {}, {low}, {{"value", number(-INFINITY)}}});
    plan.kernels.push_back({"train.select", {keep, x, low}, {a}, {}});
    plan.kernels.push_back({"train.mul", {a, g}, {b}, {}});
    finishPlan(plan, a, b, loss);
    ASSERT_TRUE(
        attachCode(plan, std::string("fused_select_") + dtypeName(dtype)));
    EXPECT_EQ(plan.code.regions[0].count, 3u);
    std::vector<int64_t> shape{kRows, kCols};
    std::vector<uint8_t> keepBytes(kRows * kCols);
    for (size_t i = 0; i < keepBytes.size(); ++i)
      keepBytes[i] = i % 3 == 0 ? 0 : (i % 3 == 1 ? 1 : 0xff);
    expectBitwiseTheReference(
        plan, dtype,
        {{"keep", DType::I1, shape, keepBytes},
         {"x", dtype, shape, encode(testValues(1), dtype, shape)},
         {"g", dtype, shape, encode(testValues(2), dtype, shape)}});
  }
}

Attr ints(std::vector<int64_t> values) {
  Attr a;
  a.kind = Attr::Kind::Ints;
  a.ints = std::move(values);
  return a;
}

/// Broadcasts read in place by generated code: a column (the trailing
/// dimension, given as [1, kCols] to check that size-1 dimensions are
/// skipped), a row (the leading one, a keep-dims sum broadcast back) and a
/// scalar, combined with x: a = x * column, b = (a - row) + scalar. One
/// region of all six kernels, bitwise the reference in every float dtype.
TEST(FusedCodegen, BroadcastsOfScalarsRowsAndColumns) {
  if (!cpuBackendStatus().isOk())
    GTEST_SKIP() << cpuBackendStatus().message();
  if (!cpuFeatureSet().avx2 || !cpuFeatureSet().f16c)
    GTEST_SKIP() << "generated code needs AVX2 and F16C";
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    Plan plan;
    plan.policy = "float32";
    auto add = [&](TensorKind kind, std::vector<int64_t> shape,
                   std::string name) {
      plan.tensors.push_back(
          {kind, dtype, std::move(shape), std::move(name), 0, 0});
      return static_cast<uint32_t>(plan.tensors.size() - 1);
    };
    uint32_t x = add(TensorKind::Input, {kRows, kCols}, "x");
    uint32_t column = add(TensorKind::Input, {1, kCols}, "column");
    uint32_t row = add(TensorKind::Input, {kRows}, "row");
    uint32_t scalar = add(TensorKind::Input, {}, "scalar");
    uint32_t columns = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t rows = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t scalars = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t a = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t t = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t b = add(TensorKind::Scratch, {kRows, kCols}, "");
    uint32_t loss = add(TensorKind::Scratch, {}, "");
    plan.kernels.push_back(
        {"train.broadcast", {column}, {columns}, {{"dims", ints({0, 1})}}});
    plan.kernels.push_back({"train.mul", {x, columns}, {a}, {}});
    plan.kernels.push_back(
        {"train.broadcast", {row}, {rows}, {{"dims", ints({0})}}});
    plan.kernels.push_back({"train.sub", {a, rows}, {t}, {}});
    plan.kernels.push_back(
        {"train.broadcast", {scalar}, {scalars}, {{"dims", ints({})}}});
    plan.kernels.push_back({"train.add", {t, scalars}, {b}, {}});
    finishPlan(plan, a, b, loss);
    ASSERT_TRUE(
        attachCode(plan, std::string("fused_broadcast_") + dtypeName(dtype)));
    EXPECT_EQ(plan.code.regions[0].count, 6u);
    EXPECT_EQ(plan.code.regions[0].rowLength, kCols);
    std::vector<Input> inputs = {{"x", dtype, {kRows, kCols}, {}},
                                 {"column", dtype, {1, kCols}, {}},
                                 {"row", dtype, {kRows}, {}},
                                 {"scalar", dtype, {}, {}}};
    uint32_t seed = 1;
    for (Input &input : inputs) {
      std::vector<float> v = testValues(seed++);
      int64_t n = 1;
      for (int64_t d : input.shape)
        n *= d;
      v.resize(static_cast<size_t>(n));
      input.bytes = encode(v, dtype, input.shape);
    }
    expectBitwiseTheReference(plan, dtype, inputs);
  }
}

/// What generated code leaves to the kernels: a broadcast into a middle
/// run of dimensions, and one tensor read as a row and as a column of a
/// square space.
TEST(FusedCodegen, BroadcastsItCannotReadInPlace) {
  auto planOf = [](std::vector<int64_t> shape, std::vector<int64_t> source,
                   std::vector<std::vector<int64_t>> dimsOfEach) {
    Plan plan;
    plan.policy = "float32";
    plan.tensors.push_back({TensorKind::Input, DType::F32, source, "v", 0, 0});
    plan.tensors.push_back({TensorKind::Input, DType::F32, shape, "x", 0, 0});
    uint32_t last = 1;
    for (const std::vector<int64_t> &dims : dimsOfEach) {
      plan.tensors.push_back(
          {TensorKind::Scratch, DType::F32, shape, "", 0, 0});
      uint32_t wide = static_cast<uint32_t>(plan.tensors.size() - 1);
      plan.tensors.push_back(
          {TensorKind::Scratch, DType::F32, shape, "", 0, 0});
      uint32_t sum = static_cast<uint32_t>(plan.tensors.size() - 1);
      plan.kernels.push_back(
          {"train.broadcast", {0}, {wide}, {{"dims", ints(dims)}}});
      plan.kernels.push_back({"train.add", {last, wide}, {sum}, {}});
      last = sum;
    }
    plan.results.push_back({ResultRole::Output, last, UINT32_MAX, "y", 0});
    layOutPlan(plan);
    return plan;
  };
  int64_t rowLength = 0;
  Plan middle = planOf({4, 3, 5}, {3}, {{1}});
  EXPECT_FALSE(isFusibleKernel(middle, 0, rowLength));
  Plan square = planOf({6, 6}, {6}, {{0}, {1}});
  EXPECT_TRUE(isFusibleKernel(square, 0, rowLength));
  EXPECT_EQ(rowLength, 6);
  EXPECT_TRUE(isFusibleKernel(square, 2, rowLength));
  EXPECT_TRUE(findFusedRegions(square).empty());
  Plan trailing = planOf({4, 3, 5}, {3, 5}, {{1, 2}});
  EXPECT_TRUE(isFusibleKernel(trailing, 0, rowLength));
  EXPECT_EQ(rowLength, 15);
}

/// A row kernel alone: x (and g) [kRows, kCols] in `dtype`, scale and
/// offset [kCols] and the statistics [kRows] in f32, as a mixed policy
/// leaves them; every output returned.
struct RowCase {
  const char *op;
  int inputs, outputs;
  bool transcendental;
};

const RowCase kRowCases[] = {
    {"train.layer_norm", 3, 3, false},
    {"train.rms_norm", 2, 2, false},
    {"train.softmax", 1, 1, true},
    {"train.log_softmax", 1, 1, true},
    {"train.softmax_grad", 2, 1, false},
    {"train.log_softmax_grad", 2, 1, true},
};

class RowKernelTest
    : public ::testing::TestWithParam<std::tuple<size_t, DType>> {};

TEST_P(RowKernelTest, MatchesTheReference) {
  if (!cpuBackendStatus().isOk())
    GTEST_SKIP() << cpuBackendStatus().message();
  if (!cpuFeatureSet().avx2 || !cpuFeatureSet().f16c)
    GTEST_SKIP() << "generated code needs AVX2 and F16C";
  // Not a structured binding: the lambdas below capture dtype, which
  // clang before 16 refuses for a binding.
  size_t index = std::get<0>(GetParam());
  DType dtype = std::get<1>(GetParam());
  const RowCase &c = kRowCases[index];
  bool norm = std::string(c.op).find("norm") != std::string::npos;
  Plan plan;
  plan.policy = "float32";
  auto add = [&](TensorKind kind, std::vector<int64_t> shape, std::string name,
                 DType type) {
    plan.tensors.push_back({kind, type, std::move(shape), std::move(name), 0, 0});
    return static_cast<uint32_t>(plan.tensors.size() - 1);
  };
  std::vector<uint32_t> inputs{add(TensorKind::Input, {kRows, kCols}, "x", dtype)};
  const char *inputNames[] = {"x", "scale", "offset"};
  for (int i = 1; i < c.inputs; ++i)
    inputs.push_back(norm ? add(TensorKind::Input, {kCols}, inputNames[i], DType::F32)
                          : add(TensorKind::Input, {kRows, kCols}, "g", dtype));
  std::vector<uint32_t> outputs{add(TensorKind::Scratch, {kRows, kCols}, "", dtype)};
  for (int o = 1; o < c.outputs; ++o)
    outputs.push_back(add(TensorKind::Scratch, {kRows}, "", DType::F32));
  uint32_t loss = add(TensorKind::Scratch, {}, "", dtype);
  plan.kernels.push_back({c.op, inputs, outputs, {}});
  Attr dims;
  dims.kind = Attr::Kind::Ints;
  dims.ints = {0, 1};
  plan.kernels.push_back({"train.reduce_sum", {outputs[0]}, {loss}, {{"dims", dims}}});
  plan.results.push_back({ResultRole::Loss, loss, UINT32_MAX, "loss", 0});
  for (size_t o = 0; o < outputs.size(); ++o)
    plan.results.push_back(
        {ResultRole::Output, outputs[o], UINT32_MAX, "out" + std::to_string(o), 0});
  layOutPlan(plan);

  ASSERT_TRUE(attachCode(plan, "row_" + std::string(c.op + 6) + "_" +
                                   dtypeName(dtype)));
  EXPECT_EQ(plan.code.regions[0].extent, kRows);
  EXPECT_EQ(plan.code.regions[0].rowLength, kCols);

  // x: the usual values (the special ones too: a NaN or inf row stays
  // NaN or inf alike); scale and offset in [-8, 8].
  std::vector<float> x = testValues(1), g = testValues(2);
  auto outputsOf = [&](const std::string &backend, bool &usedCode) {
    std::vector<float> all;
    StatusOr<std::unique_ptr<Session>> session = Session::create(plan, backend);
    EXPECT_TRUE(session.isOk()) << session.status().message();
    if (!session.isOk())
      return all;
    usedCode = (*session)->usesGeneratedCode();
    std::vector<int64_t> shape{kRows, kCols};
    std::vector<uint8_t> xb = encode(x, dtype, shape);
    EXPECT_TRUE((*session)->setTensor("x", dtype, shape, xb.data(), xb.size()).isOk());
    for (int i = 1; i < c.inputs; ++i) {
      if (norm) {
        std::vector<float> v(g.begin() + i * kCols, g.begin() + (i + 1) * kCols);
        for (float &f : v)
          if (!std::isfinite(f))
            f = 1.5f;
        EXPECT_TRUE((*session)
                        ->setTensor(inputNames[i], DType::F32, {kCols}, v.data(),
                                    v.size() * 4)
                        .isOk());
      } else {
        std::vector<uint8_t> gb = encode(g, dtype, shape);
        EXPECT_TRUE((*session)->setTensor("g", dtype, shape, gb.data(), gb.size()).isOk());
      }
    }
    Status step = (*session)->runStep();
    EXPECT_TRUE(step.isOk()) << step.message();
    for (size_t o = 0; o < outputs.size(); ++o) {
      const TensorDesc &desc = plan.tensors[outputs[o]];
      std::vector<uint8_t> bytes(desc.byteSize());
      EXPECT_TRUE((*session)
                      ->getTensor("out" + std::to_string(o), bytes.data(), bytes.size())
                      .isOk());
      std::vector<float> values(desc.numElements());
      loadFloats({desc.dtype, desc.shape, bytes.data()}, values.data());
      all.insert(all.end(), values.begin(), values.end());
    }
    return all;
  };
  bool fused = false, unfused = true;
  std::vector<float> got = outputsOf("cpu", fused);
  std::vector<float> want = outputsOf("reference", unfused);
  ASSERT_TRUE(fused);
  ASSERT_FALSE(unfused);
  ASSERT_EQ(got.size(), want.size());
  // The row sums are f64 in another order: a statistic may round to the
  // neighbouring f32. Allowed: 4 ulp of f32 relative (one of a 16-bit
  // result) plus 1e-6 absolute (the approximations near zero).
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    float gv = got[i], w = want[i];
    if ((std::isnan(w) && std::isnan(gv)) ||
        std::memcmp(&gv, &w, sizeof(float)) == 0)
      continue;
    DType type = i < size_t(kRows * kCols) ? dtype : DType::F32;
    double limit = allowed(w, 0.0f, 0.0f, false, type, true);
    if (!(std::isfinite(w) && std::fabs(double(gv) - double(w)) <= limit)) {
      ++bad;
      ADD_FAILURE() << "output element " << i << ": generated " << gv
                    << ", reference " << w;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, RowKernelTest,
    ::testing::Combine(::testing::Range<size_t>(0, std::size(kRowCases)),
                       ::testing::Values(DType::F32, DType::BF16, DType::F16)),
    [](const ::testing::TestParamInfo<std::tuple<size_t, DType>> &info) {
      return std::string(kRowCases[std::get<0>(info.param)].op + 6) + "_" +
             dtypeName(std::get<1>(info.param));
    });

TEST(FusedCodegen, RegionsAreMaximalRunsOfOneIterationSpace) {
  // neg -> exp over [96, 40], then a reduction (not fusible), then two
  // ops of another size: two regions, the reduction between them.
  Plan plan;
  plan.policy = "float32";
  auto add = [&](TensorKind kind, std::vector<int64_t> shape,
                 std::string name) {
    plan.tensors.push_back({kind, DType::F32, std::move(shape), std::move(name), 0, 0});
    return static_cast<uint32_t>(plan.tensors.size() - 1);
  };
  uint32_t x = add(TensorKind::Input, {kRows, kCols}, "x");
  uint32_t a = add(TensorKind::Scratch, {kRows, kCols}, "");
  uint32_t b = add(TensorKind::Scratch, {kRows, kCols}, "");
  uint32_t r = add(TensorKind::Scratch, {kCols}, "");
  uint32_t c = add(TensorKind::Scratch, {kCols}, "");
  uint32_t d = add(TensorKind::Scratch, {kCols}, "");
  uint32_t loss = add(TensorKind::Scratch, {}, "");
  Attr dims;
  dims.kind = Attr::Kind::Ints;
  dims.ints = {0};
  plan.kernels.push_back({"train.neg", {x}, {a}, {}});
  plan.kernels.push_back({"train.exp", {a}, {b}, {}});
  plan.kernels.push_back({"train.reduce_sum", {b}, {r}, {{"dims", dims}}});
  plan.kernels.push_back({"train.tanh", {r}, {c}, {}});
  plan.kernels.push_back({"train.mul", {c, r}, {d}, {}});
  plan.kernels.push_back({"train.reduce_sum", {d}, {loss}, {{"dims", dims}}});
  plan.results.push_back({ResultRole::Loss, loss, UINT32_MAX, "loss", 0});
  layOutPlan(plan);
  std::vector<FusedRegion> regions = findFusedRegions(plan);
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].first, 0u);
  EXPECT_EQ(regions[0].count, 2u);
  // x in; b out (a never leaves the region).
  EXPECT_EQ(regions[0].operands, (std::vector<uint32_t>{x, b}));
  EXPECT_EQ(regions[0].numInputs, 1u);
  EXPECT_EQ(regions[0].extent, kRows * kCols);
  EXPECT_EQ(regions[1].first, 3u);
  EXPECT_EQ(regions[1].operands, (std::vector<uint32_t>{r, d}));
  EXPECT_EQ(regions[1].extent, kCols);
}

} // namespace
