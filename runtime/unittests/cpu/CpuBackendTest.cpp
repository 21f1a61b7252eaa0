//===- CpuBackendTest.cpp - the cpu backend against the reference ---------===//
//
// Every train.matmul form the verifier accepts (plain, transposed operands,
// batches of rank 1 and 2, a rank-2 rhs shared by the batch) in every dtype
// combination the reference runs (f32, bf16 and f16 inputs; the input dtype
// or f32 as the result), on the cpu backend and on the reference backend,
// from the same inputs; the same for mp.matmul_epilogue (bias, ReLU).
//
// Tolerances. Both backends widen the same (exactly representable) inputs
// and accumulate in f32; they may only sum in a different order. For any
// order, the f32 sum of K products is within gamma_K = K*u/(1-K*u) (u =
// 2^-24) of the exact sum times sum_p |a_ip * b_pj| (Higham, Accuracy and
// Stability, 3.1); two orders differ by at most twice that. A 16-bit result
// is one rounding of that f32 value, so the two may in addition land one
// unit in the last place apart: 2^-7 * |x| for bf16, 2^-10 * |x| for f16
// (relative). An implementation that accumulated in 16 bits would miss these
// bounds by orders of magnitude at K = 300.
//
//===----------------------------------------------------------------------===//
#include "../core/TestPlans.h"
#include "CpuKernelTestSupport.h"
#include "GemmTestSupport.h"
#include "OwnedTensor.h"
#include "cpu/Cast.h"
#include "cpu/OneDnn.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace mp::rt;

namespace {

using Host = test::OwnedTensor;
using namespace test::gemm;

struct MatmulForm {
  std::string name;
  std::vector<int64_t> lhs, rhs; ///< stored shapes
  bool transposeLhs, transposeRhs;
};

/// M = 13, K = 37 (or 300), N = 19: no dimension a multiple of a vector or
/// tile width, so that every kernel's edge handling runs.
std::vector<MatmulForm> matmulForms() {
  std::vector<MatmulForm> forms;
  const int64_t m = 13, k = 37, n = 19;
  for (int t = 0; t < 4; ++t) {
    bool tl = t & 1, tr = t & 2;
    std::vector<int64_t> l =
        tl ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
    std::vector<int64_t> r =
        tr ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
    auto batched = [](std::vector<int64_t> b, std::vector<int64_t> s) {
      b.insert(b.end(), s.begin(), s.end());
      return b;
    };
    std::string suffix = std::string(tl ? "_tl" : "") + (tr ? "_tr" : "");
    auto add = [&](std::string name, std::vector<int64_t> lhs,
                   std::vector<int64_t> rhs) {
      forms.push_back({name + suffix, std::move(lhs), std::move(rhs), tl, tr});
    };
    add("rank2", l, r);
    add("batch3", batched({3}, l), batched({3}, r));
    add("batch2x3", batched({2, 3}, l), batched({2, 3}, r));
    add("shared3", batched({3}, l), r);
    add("shared2x2", batched({2, 2}, l), r);
  }
  // A larger contraction, where the accumulator dtype shows.
  forms.push_back({"rank2_k300", {64, 300}, {300, 48}, false, false});
  forms.push_back({"shared_k300_tr", {2, 32, 300}, {48, 300}, false, true});
  // Where a widened problem takes several chunks (of 2 MiB of f32) and a
  // smaller last one: K = 4100 makes 64-column panels (3 of 64 and one of
  // 12 for N = 204); 40 batches of [4, 2048] x [2048, 8] make groups of 21
  // and 19; 150 batches with a shared rhs groups of 63, 63 and 24.
  forms.push_back({"panels", {9, 4100}, {4100, 204}, false, false});
  forms.push_back({"panels_tl_tr", {4100, 9}, {204, 4100}, true, true});
  forms.push_back({"shared_panels_tr", {3, 5, 4100}, {204, 4100}, false, true});
  forms.push_back({"groups", {40, 4, 2048}, {40, 2048, 8}, false, false});
  forms.push_back({"groups_tl_tr", {40, 2048, 4}, {40, 8, 2048}, true, true});
  forms.push_back({"shared_groups_tl", {150, 2048, 4}, {2048, 8}, true, false});
  return forms;
}

KernelDesc matmulKernel(bool transposeLhs, bool transposeRhs) {
  KernelDesc kernel;
  kernel.op = "train.matmul";
  kernel.inputs = {0, 1};
  kernel.outputs = {2};
  Attr tl, tr;
  tl.ints = {transposeLhs};
  tr.ints = {transposeRhs};
  kernel.attrs["transpose_lhs"] = tl;
  kernel.attrs["transpose_rhs"] = tr;
  return kernel;
}

std::vector<int64_t> resultShape(const MatmulForm &f) {
  std::vector<int64_t> out(f.lhs.begin(), f.lhs.end() - 2);
  size_t lr = f.lhs.size(), rr = f.rhs.size();
  out.push_back(f.transposeLhs ? f.lhs[lr - 1] : f.lhs[lr - 2]);
  out.push_back(f.transposeRhs ? f.rhs[rr - 2] : f.rhs[rr - 1]);
  return out;
}

/// sum_p |a_ip * b_pj| for every result element, in double.
std::vector<double> absoluteProducts(const MatmulForm &f, const Host &a,
                                     const Host &b) {
  size_t lr = f.lhs.size(), rr = f.rhs.size();
  int64_t m = f.transposeLhs ? f.lhs[lr - 1] : f.lhs[lr - 2];
  int64_t k = f.transposeLhs ? f.lhs[lr - 2] : f.lhs[lr - 1];
  int64_t n = f.transposeRhs ? f.rhs[rr - 2] : f.rhs[rr - 1];
  int64_t batch = a.view.numElements() / (m * k);
  bool shared = rr == 2;
  std::vector<double> out(batch * m * n);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          int64_t ai = bi * m * k + (f.transposeLhs ? p * m + i : i * k + p);
          int64_t bj = (shared ? 0 : bi * k * n) +
                       (f.transposeRhs ? j * k + p : p * n + j);
          sum += std::fabs(loadFloat(a.view, ai) * loadFloat(b.view, bj));
        }
        out[(bi * m + i) * n + j] = sum;
      }
  return out;
}

/// The length of form `f`'s sums (K).
int64_t contractionLength(const MatmulForm &f) {
  return f.transposeLhs ? f.lhs[f.lhs.size() - 2] : f.lhs.back();
}

/// Runs `kernel` on the reference backend into `expected` and on `cache`
/// into `got`, and expects the cache to have run it: natively where the CPU
/// has instructions for the dtype (fastOn), else natively or on f32 with
/// widened operands; never on the reference kernel.
void runOnBoth(Backend &reference, cpu::MatmulCache &cache,
               const KernelDesc &kernel, const std::vector<TensorView> &inputs,
               Host &expected, Host &got) {
  bool handled = false;
  Status checked = reference.run(kernel, inputs, {expected.view});
  ASSERT_TRUE(checked.isOk()) << checked.message();
  Status status = cache.run(kernel, inputs, {got.view}, handled);
  ASSERT_TRUE(status.isOk()) << status.message();
  ASSERT_TRUE(handled) << "left to the reference kernel";
  if (fastOn(inputs[0].dtype)) {
    EXPECT_FALSE(isWidened(cache.lastImplementation()))
        << cache.lastImplementation() << " on a CPU with " << cpuFeatures();
  }
}

/// Expects every element of `got` within the matmul bound of `expected`
/// (header comment): 2 gamma_K sum|a b| + one unit of a 16-bit result, plus
/// `extra(i)` (the epilogue's roundings); with `nonNegative`, never < 0.
void expectWithinMatmulBound(const Host &expected, const Host &got,
                             const std::vector<double> &abs, int64_t k,
                             const std::function<double(int64_t)> &extra,
                             bool nonNegative, const std::string &impl) {
  double u = std::ldexp(1.0, -24);
  double gamma = 2 * k * u / (1 - k * u);
  DType out = got.view.dtype;
  double ulp = out == DType::BF16  ? std::ldexp(1.0, -7)
               : out == DType::F16 ? std::ldexp(1.0, -10)
                                   : 0;
  int failures = 0;
  for (int64_t i = 0; i < got.view.numElements() && failures < 5; ++i) {
    double e = loadFloat(expected.view, i), g = loadFloat(got.view, i);
    double tol = gamma * abs[i] + ulp * std::fabs(e) + extra(i) + 1e-30;
    if (!(std::fabs(e - g) <= tol) || (nonNegative && !(g >= 0))) {
      ADD_FAILURE() << "element " << i << ": cpu " << g << ", reference " << e
                    << ", tolerance " << tol << " (" << impl << ")";
      ++failures;
    }
  }
}

class CpuBackendTest : public test::CpuBackendAvailable {};

TEST_F(CpuBackendTest, MatmulMatchesReferenceInEveryFormAndDType) {
  std::unique_ptr<Backend> reference = createReferenceBackend();
  cpu::MatmulCache cache;
  uint32_t seed = 1;
  size_t widened = 0, cases = 0;
  for (const MatmulForm &form : matmulForms()) {
    for (DTypePair dt : kDTypes) {
      SCOPED_TRACE(form.name + " " + dtypeName(dt.in) + " -> " +
                   dtypeName(dt.out));
      Host a = randomTensor(dt.in, form.lhs, seed++);
      Host b = randomTensor(dt.in, form.rhs, seed++);
      Host expected(dt.out, resultShape(form)), got(dt.out, resultShape(form));
      KernelDesc kernel = matmulKernel(form.transposeLhs, form.transposeRhs);
      runOnBoth(*reference, cache, kernel, {a.view, b.view}, expected, got);
      ASSERT_FALSE(HasFatalFailure());
      ++cases;
      widened += isWidened(cache.lastImplementation());
      expectWithinMatmulBound(
          expected, got, absoluteProducts(form, a, b), contractionLength(form),
          [](int64_t) { return 0.0; }, false, cache.lastImplementation());
    }
  }
  std::printf("cpu matmul: %zu cases on oneDNN, %zu of them widened to f32 "
              "(CPU: %s), %zu primitives\n",
              cases, widened, cpuFeatures().c_str(),
              cache.primitivesCreated());
}

TEST_F(CpuBackendTest, MatmulPrimitivesAreCreatedOncePerProblem) {
  cpu::MatmulCache cache;
  KernelDesc kernel = matmulKernel(false, true);
  Host a = randomTensor(DType::BF16, {8, 16}, 1);
  Host b = randomTensor(DType::BF16, {24, 16}, 2);
  Host c(DType::F32, {8, 24});
  for (int i = 0; i < 3; ++i) {
    bool handled = false;
    ASSERT_TRUE(cache.run(kernel, {a.view, b.view}, {c.view}, handled).isOk());
    EXPECT_TRUE(handled); // natively or widened
  }
  EXPECT_EQ(cache.primitivesCreated(), 1u);
  // Another shape is another primitive.
  Host a2 = randomTensor(DType::BF16, {4, 16}, 3);
  Host c2(DType::F32, {4, 24});
  bool handled = false;
  ASSERT_TRUE(cache.run(kernel, {a2.view, b.view}, {c2.view}, handled).isOk());
  EXPECT_EQ(cache.primitivesCreated(), 2u);
  EXPECT_FALSE(cache.lastImplementation().empty());
}

/// mp.matmul_epilogue: the same forms and dtypes with a bias (f32 or the
/// result's dtype) and / or a ReLU. Both backends add the bias to their f32
/// accumulator and round that sum once (u * |sum| each), and ReLU is
/// 1-Lipschitz, so the matmul bound plus 2u * (sum |a b| + |bias|) holds.
TEST_F(CpuBackendTest, MatmulEpilogueMatchesReference) {
  std::unique_ptr<Backend> reference = createReferenceBackend();
  cpu::MatmulCache cache;
  struct Epilogue {
    int bias; ///< 0: none, 1: f32, 2: the result's dtype
    bool relu;
  };
  const Epilogue epilogues[] = {{1, true}, {2, false}, {0, true}, {2, true}};
  uint32_t seed = 1000;
  size_t widened = 0, cases = 0;
  for (const MatmulForm &form : matmulForms()) {
    for (DTypePair dt : kDTypes) {
      for (Epilogue ep : epilogues) {
        SCOPED_TRACE(form.name + " " + dtypeName(dt.in) + " -> " +
                     dtypeName(dt.out) + " bias " + std::to_string(ep.bias) +
                     (ep.relu ? " relu" : ""));
        Host a = randomTensor(dt.in, form.lhs, seed++);
        Host b = randomTensor(dt.in, form.rhs, seed++);
        std::vector<int64_t> shape = resultShape(form);
        Host bias = randomTensor(ep.bias == 1 ? DType::F32 : dt.out,
                                 {shape.back()}, seed++);
        Host expected(dt.out, shape), got(dt.out, shape);
        KernelDesc kernel = matmulKernel(form.transposeLhs, form.transposeRhs);
        kernel.op = "mp.matmul_epilogue";
        Attr activation;
        activation.kind = Attr::Kind::String;
        activation.str = ep.relu ? "relu" : "none";
        kernel.attrs["activation"] = activation;
        std::vector<TensorView> inputs = {a.view, b.view};
        if (ep.bias) {
          inputs.push_back(bias.view);
          kernel.inputs.push_back(3);
        }
        runOnBoth(*reference, cache, kernel, inputs, expected, got);
        ASSERT_FALSE(HasFatalFailure());
        ++cases;
        widened += isWidened(cache.lastImplementation());
        std::vector<double> abs = absoluteProducts(form, a, b);
        int64_t n = shape.back();
        double u = std::ldexp(1.0, -24);
        auto epilogueRounding = [&](int64_t i) {
          double biasAbs = ep.bias ? std::fabs(loadFloat(bias.view, i % n)) : 0;
          return 2 * u * (abs[i] + biasAbs);
        };
        expectWithinMatmulBound(expected, got, abs, contractionLength(form),
                                epilogueRounding,
                                ep.relu, cache.lastImplementation());
      }
    }
  }
  std::printf("cpu matmul epilogue: %zu cases on oneDNN, %zu of them "
              "widened to f32, %zu primitives\n",
              cases, widened, cache.primitivesCreated());
}

/// NaN and infinities through the fused matmul + bias + ReLU: the cpu
/// backend (native and widened, every dtype, a ReLU or none) puts NaN
/// where the reference does (a NaN in an input row or a bias makes NaN
/// columns and rows, ReLU keeps it), the same infinities, and finite
/// values within the epilogue bound elsewhere. oneDNN's own ReLU post-op
/// would turn those NaN into 0.
TEST_F(CpuBackendTest, MatmulEpiloguePropagatesNaNAndInfLikeTheReference) {
  std::unique_ptr<Backend> reference = createReferenceBackend();
  cpu::MatmulCache cache;
  for (DTypePair dt : kDTypes)
    for (bool relu : {true, false}) {
      SCOPED_TRACE(std::string(dtypeName(dt.in)) + " -> " +
                   dtypeName(dt.out) + (relu ? " relu" : ""));
      // K = 4100: the widened path takes several panels.
      Host a = randomTensor(dt.in, {6, 4100}, 7),
           b = randomTensor(dt.in, {4100, 70}, 8);
      Host bias = randomTensor(DType::F32, {70}, 9);
      storeFloat(a.view, 1 * 4100 + 3, NAN);      // row 1: NaN
      storeFloat(a.view, 2 * 4100 + 5, INFINITY); // row 2: +-inf or NaN
      storeFloat(b.view, 11 * 70 + 40, -INFINITY);
      storeFloat(bias.view, 66, NAN);             // column 66: NaN
      KernelDesc kernel = matmulKernel(false, false);
      kernel.op = "mp.matmul_epilogue";
      kernel.inputs.push_back(3);
      Attr activation;
      activation.kind = Attr::Kind::String;
      activation.str = relu ? "relu" : "none";
      kernel.attrs["activation"] = activation;
      Host expected(dt.out, {6, 70}), got(dt.out, {6, 70});
      runOnBoth(*reference, cache, kernel, {a.view, b.view, bias.view},
                expected, got);
      ASSERT_FALSE(HasFatalFailure());
      int nans = 0;
      for (int64_t i = 0; i < got.view.numElements(); ++i) {
        float e = loadFloat(expected.view, i), g = loadFloat(got.view, i);
        nans += std::isnan(e);
        if (std::isnan(e) || std::isinf(e)) {
          EXPECT_TRUE(std::isnan(e) ? std::isnan(g) : g == e)
              << "element " << i << ": cpu " << g << ", reference " << e
              << " (" << cache.lastImplementation() << ")";
        } else {
          EXPECT_NEAR(g, e, 1e-2 * (1 + std::fabs(e))) << "element " << i;
        }
      }
      EXPECT_GE(nans, 6 + 5) << "the NaN row and column";
    }
}

TEST_F(CpuBackendTest, MatmulEpiloguePrimitivesAreCachedPerEpilogue) {
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  cpu::MatmulCache cache;
  KernelDesc kernel = matmulKernel(false, false);
  kernel.op = "mp.matmul_epilogue";
  kernel.inputs = {0, 1, 3};
  Host a = randomTensor(DType::F32, {8, 16}, 1);
  Host b = randomTensor(DType::F32, {16, 24}, 2);
  Host bias = randomTensor(DType::F32, {24}, 3);
  Host c(DType::F32, {8, 24});
  for (int i = 0; i < 2; ++i) {
    bool handled = false;
    ASSERT_TRUE(
        cache.run(kernel, {a.view, b.view, bias.view}, {c.view}, handled)
            .isOk());
    EXPECT_TRUE(handled);
  }
  EXPECT_EQ(cache.primitivesCreated(), 1u);
  // A ReLU is another primitive; so is the plain matmul.
  Attr relu;
  relu.kind = Attr::Kind::String;
  relu.str = "relu";
  kernel.attrs["activation"] = relu;
  bool handled = false;
  ASSERT_TRUE(
      cache.run(kernel, {a.view, b.view, bias.view}, {c.view}, handled)
          .isOk());
  EXPECT_EQ(cache.primitivesCreated(), 2u);
  for (int64_t i = 0; i < c.view.numElements(); ++i)
    EXPECT_GE(loadFloat(c.view, i), 0.0f);
  ASSERT_TRUE(cache
                  .run(matmulKernel(false, false), {a.view, b.view}, {c.view},
                       handled)
                  .isOk());
  EXPECT_EQ(cache.primitivesCreated(), 3u);
  // An unknown activation is left to the reference kernel, which rejects it.
  relu.str = "gelu";
  kernel.attrs["activation"] = relu;
  Status status = (*cpu)->run(kernel, {a.view, b.view, bias.view}, {c.view});
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.message();
}

TEST_F(CpuBackendTest, EmptyMatmulsRunOnTheReferenceKernel) {
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  Host a(DType::F32, {3, 0}), b(DType::F32, {0, 2});
  Host c(DType::F32, {3, 2});
  storeFloat(c.view, 0, 5.0f);
  ASSERT_TRUE((*cpu)
                  ->run(matmulKernel(false, false), {a.view, b.view}, {c.view})
                  .isOk());
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(loadFloat(c.view, i), 0.0f); // K = 0: zeros
}

/// Backend::run must not touch memory out of bounds when a caller skipped
/// check(): views that do not make the op go to the reference kernel, which
/// reports them.
TEST_F(CpuBackendTest, InvalidViewsAreReportedNotRun) {
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  Host a(DType::F32, {4, 5}), b(DType::F32, {6, 3}), c(DType::F32, {4, 3});
  Status status =
      (*cpu)->run(matmulKernel(false, false), {a.view, b.view}, {c.view});
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.message();
  Host b2(DType::F32, {5, 3}), small(DType::F32, {4, 2});
  status =
      (*cpu)->run(matmulKernel(false, false), {a.view, b2.view}, {small.view});
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.message();
  Host bf(DType::BF16, {5, 3});
  status = (*cpu)->run(matmulKernel(false, false), {a.view, bf.view}, {c.view});
  EXPECT_EQ(status.code(), StatusCode::Unimplemented) << status.message();
  KernelDesc conv;
  conv.op = "train.conv2d";
  conv.attrs["layout"].kind = Attr::Kind::String;
  conv.attrs["layout"].str = "NCHW";
  Host x(DType::F32, {1, 2, 5, 5}), w(DType::F32, {3, 2, 3, 3});
  Host wrong(DType::F32, {1, 3, 5, 5}); // 3x3 without padding gives 3x3
  status = (*cpu)->run(conv, {x.view, w.view}, {wrong.view});
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.message();
}

TEST_F(CpuBackendTest, DescribesItself) {
  StatusOr<std::unique_ptr<Backend>> cpu = createCpuBackend();
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  EXPECT_STREQ((*cpu)->name(), "cpu");
  std::string description = (*cpu)->describe();
  EXPECT_NE(description.find("oneDNN 3."), std::string::npos) << description;
  EXPECT_FALSE(cpuFeatures().empty());
  std::printf("%s\nCPU features: %s\n", description.c_str(),
              cpuFeatures().c_str());
}

/// implementationOf: what ran each kernel, from the backend's own decision.
TEST_F(CpuBackendTest, ReportsWhatRanEachKernel) {
  StatusOr<std::unique_ptr<Backend>> made = createCpuBackend();
  ASSERT_TRUE(made.isOk()) << made.status().message();
  Backend &cpu = **made;
  // Kernels are known by address, as a session's plan holds them.
  std::vector<KernelDesc> kernels(3, matmulKernel(false, false));
  int index = 0;
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    const KernelDesc &kernel = kernels[index++];
    Host a = randomTensor(dtype, {8, 16}, 1), b = randomTensor(dtype, {16, 4}, 2);
    Host c(DType::F32, {8, 4});
    EXPECT_EQ(cpu.implementationOf(kernel), "") << "before it ran";
    ASSERT_TRUE(cpu.run(kernel, {a.view, b.view}, {c.view}).isOk());
    std::string impl = cpu.implementationOf(kernel);
    EXPECT_EQ(impl.rfind("oneDNN ", 0), 0u) << impl;
    // Native where the CPU has the dtype's instructions; elsewhere native
    // (oneDNN emulates bf16 on AVX-512 without BF16 in its jit kernels) or
    // widened, never oneDNN's naive loop nest.
    if (fastOn(dtype)) {
      EXPECT_FALSE(isWidened(impl)) << impl;
    }
    EXPECT_EQ(impl.find("ref:"), std::string::npos) << impl;
  }
  // An op the backend has no own loop for; one it has.
  KernelDesc embedding;
  embedding.op = "train.embedding";
  Host table = randomTensor(DType::F32, {5, 3}, 3), out(DType::F32, {2, 3});
  Host ids(DType::I32, {2});
  ASSERT_TRUE(cpu.run(embedding, {table.view, ids.view}, {out.view}).isOk());
  EXPECT_EQ(cpu.implementationOf(embedding), "reference kernel");
  KernelDesc relu;
  relu.op = "train.relu";
  Host x = randomTensor(DType::F32, {4096}, 4), y(DType::F32, {4096});
  ASSERT_TRUE(cpu.run(relu, {x.view}, {y.view}).isOk());
  EXPECT_EQ(cpu.implementationOf(relu), "own loop");
}

/// supports() is a question: it answers from the plan and records nothing;
/// prepare() asks it and then chooses what runs the kernel. A kernel the
/// contract refuses is refused by both with the reference's words.
TEST_F(CpuBackendTest, SupportsAnswersWithoutChoosing) {
  using mp::rt::testing::TestPlanBuilder;
  TestPlanBuilder b;
  const DType f32 = DType::F32;
  uint32_t x = b.tensor(TensorKind::Input, f32, {4096}, "x");
  uint32_t y = b.scratch(f32, {4096}), loss = b.scratch(f32, {});
  uint32_t bad = b.scratch(f32, {7});
  b.kernel("train.relu", {x}, {y});
  b.kernel("train.reduce_sum", {y}, {loss},
           {{"dims", mp::rt::testing::ints({0})}});
  // relu of a 4096-element tensor into 7 elements: outside the contract.
  b.kernel("train.relu", {x}, {bad});
  b.result(ResultRole::Loss, loss, "loss");
  Plan plan = b.finishLaidOut();
  StatusOr<std::unique_ptr<Backend>> made = createCpuBackend();
  ASSERT_TRUE(made.isOk()) << made.status().message();
  Backend &cpu = **made;
  const KernelDesc &relu = plan.kernels[0];
  ASSERT_TRUE(cpu.supports(relu, plan).isOk());
  EXPECT_EQ(cpu.implementationOf(relu), "") << "supports() chose a path";
  ASSERT_TRUE(cpu.prepare(relu, plan).isOk());
  EXPECT_EQ(cpu.implementationOf(relu), "own loop");
  std::unique_ptr<Backend> reference = createReferenceBackend();
  Status declined = cpu.supports(plan.kernels[2], plan);
  Status referenceSays = reference->supports(plan.kernels[2], plan);
  ASSERT_FALSE(declined.isOk());
  EXPECT_EQ(declined.message(), referenceSays.message());
  EXPECT_FALSE(cpu.prepare(plan.kernels[2], plan).isOk());
  EXPECT_EQ(cpu.implementationOf(plan.kernels[2]), "");
}

/// mp.cast f32 <-> bf16 / f16 on the cpu backend is bitwise the reference's: on
/// random bit patterns (every class: normals, subnormals, inf, NaN with
/// payloads, signalling NaN) and the edges of rounding.
TEST_F(CpuBackendTest, CastIsBitwiseTheReference) {
  std::unique_ptr<Backend> reference = createReferenceBackend();
  StatusOr<std::unique_ptr<Backend>> cpuBackend = createCpuBackend();
  ASSERT_TRUE(cpuBackend.isOk()) << cpuBackend.status().message();
  KernelDesc cast;
  cast.op = "mp.cast";
  cast.inputs = {0};
  cast.outputs = {1};
  const int64_t n = 1 << 16;
  Host f32(DType::F32, {n});
  std::mt19937 rng(3);
  uint32_t *bits = f32.view.as<uint32_t>();
  for (int64_t i = 0; i < n; ++i)
    bits[i] = rng();
  const uint32_t edges[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff,
                            0x3f808000, 0x3f818000, 0x3f807fff, 0x7f7fffff,
                            0xff7f8000, 0x7f800000, 0xff800000, 0x7f800001,
                            0x7fc00000, 0xffbfffff, 0x00008000, 0x00018000};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; ++i)
    bits[i] = edges[i];
  Host bf16Ref(DType::BF16, {n}), bf16Cpu(DType::BF16, {n});
  ASSERT_TRUE(reference->run(cast, {f32.view}, {bf16Ref.view}).isOk());
  ASSERT_TRUE((*cpuBackend)->run(cast, {f32.view}, {bf16Cpu.view}).isOk());
  EXPECT_EQ(bf16Ref.bytes, bf16Cpu.bytes);
  // Back: every bf16 bit pattern.
  Host bf16All(DType::BF16, {65536});
  for (int64_t i = 0; i < 65536; ++i)
    bf16All.view.as<uint16_t>()[i] = static_cast<uint16_t>(i);
  Host f32Ref(DType::F32, {65536}), f32Cpu(DType::F32, {65536});
  ASSERT_TRUE(reference->run(cast, {bf16All.view}, {f32Ref.view}).isOk());
  ASSERT_TRUE((*cpuBackend)->run(cast, {bf16All.view}, {f32Cpu.view}).isOk());
  EXPECT_EQ(f32Ref.bytes, f32Cpu.bytes);
  // f32 <-> f16 (on the F16C path where the CPU has it), both directions.
  Host f16Ref(DType::F16, {n}), f16Cpu(DType::F16, {n});
  ASSERT_TRUE(reference->run(cast, {f32.view}, {f16Ref.view}).isOk());
  ASSERT_TRUE((*cpuBackend)->run(cast, {f32.view}, {f16Cpu.view}).isOk());
  EXPECT_EQ(f16Ref.bytes, f16Cpu.bytes);
  // Every f16 pattern (the same bits as bf16All) back to f32.
  Host f16All(DType::F16, {65536});
  f16All.bytes = bf16All.bytes;
  f16All.view.data = f16All.bytes.data();
  ASSERT_TRUE(reference->run(cast, {f16All.view}, {f32Ref.view}).isOk());
  ASSERT_TRUE((*cpuBackend)->run(cast, {f16All.view}, {f32Cpu.view}).isOk());
  EXPECT_EQ(f32Ref.bytes, f32Cpu.bytes);
  // f16 values around the f16 subnormal and overflow edges, from f32.
  const float f16Edges[] = {0x1p-25f, 0x1.8p-25f,   0x1p-24f, 0x1.8p-24f,
                            0x1p-14f, 0x1.ffcp-15f, 65504.0f, 65519.0f,
                            65520.0f, -65520.0f,    0x1p-26f, -0x1.8p-24f};
  Host edgesF32(DType::F32, {12}), edgesRef(DType::F16, {12}),
      edgesCpu(DType::F16, {12});
  std::memcpy(edgesF32.bytes.data(), f16Edges, sizeof f16Edges);
  ASSERT_TRUE(reference->run(cast, {edgesF32.view}, {edgesRef.view}).isOk());
  ASSERT_TRUE(
      (*cpuBackend)->run(cast, {edgesF32.view}, {edgesCpu.view}).isOk());
  EXPECT_EQ(edgesRef.bytes, edgesCpu.bytes);
  // A tensor big enough for the two-thread split (from 2^20 elements), with
  // an odd length.
  const int64_t big = (int64_t(3) << 19) + 7;
  Host bigF32(DType::F32, {big});
  for (int64_t i = 0; i < big; ++i)
    bigF32.view.as<uint32_t>()[i] = rng();
  for (DType to : {DType::BF16, DType::F16}) {
    Host bigRef(to, {big}), bigCpu(to, {big});
    ASSERT_TRUE(reference->run(cast, {bigF32.view}, {bigRef.view}).isOk());
    ASSERT_TRUE((*cpuBackend)->run(cast, {bigF32.view}, {bigCpu.view}).isOk());
    EXPECT_EQ(bigRef.bytes, bigCpu.bytes) << dtypeName(to);
    Host backRef(DType::F32, {big}), backCpu(DType::F32, {big});
    ASSERT_TRUE(reference->run(cast, {bigRef.view}, {backRef.view}).isOk());
    ASSERT_TRUE((*cpuBackend)->run(cast, {bigRef.view}, {backCpu.view}).isOk());
    EXPECT_EQ(backRef.bytes, backCpu.bytes) << dtypeName(to);
  }
  // bf16 <-> f16 is not on the fast path: the reference kernel runs it.
  EXPECT_FALSE(cpu::castFast(cpu::PathMode::Run, bf16All.view, f16All.view));
}

} // namespace
