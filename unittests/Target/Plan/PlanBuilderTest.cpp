//===- PlanBuilderTest.cpp - plans of the example steps -------------------===//
//
// Builds the plan of every example under every policy and checks the
// static memory plan: scratch tensors that are alive at the same time never
// share bytes, everything fits the arena, and reuse actually happens.
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/InitAll.h"
#include "mp/Target/Plan/PlanBuilder.h"
#include "mp/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;

#ifndef MP_EXAMPLES_DIR
#error "MP_EXAMPLES_DIR must name the examples folder"
#endif

namespace {

struct Case {
  const char *example;
  const char *policy;
};

class PlanBuilderTest : public ::testing::TestWithParam<Case> {
protected:
  PlanBuilderTest() {
    DialectRegistry registry;
    mp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  mp::rt::Plan compile(const Case &c, bool evaluation = false) {
    std::string path = std::string(MP_EXAMPLES_DIR) + "/" + c.example;
    module = parseSourceFile<ModuleOp>(path, &context);
    EXPECT_TRUE(module) << "cannot parse " << path;
    PassManager pm(&context);
    auto options = mp::MixedPrecisionOptions::createFromString(
        std::string("policy=") + c.policy);
    mp::buildMixedPrecisionPipeline(pm, *options);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    auto step = *module->getOps<FunctionOpInterface>().begin();
    mp::PlanOptions planOptions;
    planOptions.evaluation = evaluation;
    FailureOr<mp::rt::Plan> plan = mp::buildPlan(step, planOptions);
    EXPECT_TRUE(succeeded(plan));
    return succeeded(plan) ? std::move(*plan) : mp::rt::Plan();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// [first kernel, last kernel] during which each tensor holds a value.
static std::vector<std::pair<size_t, size_t>>
lifetimes(const mp::rt::Plan &plan) {
  std::vector<std::pair<size_t, size_t>> life(plan.tensors.size(),
                                              {SIZE_MAX, 0});
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (uint32_t t : plan.kernels[k].outputs) {
      life[t].first = std::min(life[t].first, k);
      life[t].second = std::max(life[t].second, k);
    }
    for (uint32_t t : plan.kernels[k].inputs)
      life[t].second = std::max(life[t].second, k);
  }
  for (const mp::rt::ResultDesc &r : plan.results)
    life[r.value].second = plan.kernels.size();
  return life;
}

TEST_P(PlanBuilderTest, LiveScratchTensorsNeverAlias) {
  mp::rt::Plan plan = compile(GetParam());
  ASSERT_FALSE(plan.kernels.empty());
  auto life = lifetimes(plan);
  // A reshape laid out as a view is its input's buffer: the chain is one
  // buffer, live from its first write to the last read of any member.
  // Double-buffered values and hoisted casts live outside the arena.
  std::vector<uint32_t> root = mp::rt::storageRoots(plan);
  std::vector<bool> outside = mp::rt::outsideArena(plan);
  size_t views = 0;
  for (const mp::rt::KernelDesc &k : plan.kernels)
    views += k.isView();
  for (uint32_t t = 0; t < root.size(); ++t)
    life[root[t]].second = std::max(life[root[t]].second, life[t].second);
  if (GetParam().example == std::string("transformer.mlir")) {
    EXPECT_GT(views, 0u) << "the attention's reshapes are views";
  }
  uint64_t total = 0;
  std::vector<uint32_t> scratch;
  for (uint32_t t = 0; t < plan.tensors.size(); ++t)
    if (plan.tensors[t].kind == mp::rt::TensorKind::Scratch && !outside[t]) {
      EXPECT_LE(plan.tensors[t].offset + plan.tensors[t].byteSize(),
                plan.arenaSize);
      if (root[t] != t)
        continue;
      scratch.push_back(t);
      total += plan.tensors[t].byteSize();
    }
  for (size_t i = 0; i < scratch.size(); ++i)
    for (size_t j = i + 1; j < scratch.size(); ++j) {
      const auto &a = plan.tensors[scratch[i]], &b = plan.tensors[scratch[j]];
      auto la = life[scratch[i]], lb = life[scratch[j]];
      bool together = la.first <= lb.second && lb.first <= la.second;
      bool overlap = a.offset < b.offset + b.byteSize() &&
                     b.offset < a.offset + a.byteSize() && a.byteSize() &&
                     b.byteSize();
      EXPECT_FALSE(together && overlap)
          << "tensors " << scratch[i] << " and " << scratch[j]
          << " are alive together and overlap";
    }
  // Reuse by liveness: the arena is smaller than all scratch together.
  EXPECT_LT(plan.arenaSize, total);
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
}

// mp-compile makes the layout decisions: every parameter update of the
// examples is a scratch value nothing else returns (double-buffered), and
// under a 16-bit policy every cast of a parameter reads a double-buffered
// state (hoisted out of the step).
TEST_P(PlanBuilderTest, RecordsTheLayoutItDecided) {
  mp::rt::Plan plan = compile(GetParam());
  std::vector<bool> doubleBuffered(plan.tensors.size(), false);
  size_t params = 0;
  for (const mp::rt::ResultDesc &r : plan.results)
    if (r.role == mp::rt::ResultRole::Param) {
      ++params;
      EXPECT_TRUE(r.isDoubleBuffered()) << "update of " << r.name;
      doubleBuffered[r.state] = r.isDoubleBuffered();
    }
  EXPECT_GT(params, 0u);
  size_t hoisted = 0;
  for (const mp::rt::KernelDesc &k : plan.kernels) {
    if (k.op != "mp.cast" ||
        plan.tensors[k.inputs[0]].kind != mp::rt::TensorKind::Param)
      continue;
    EXPECT_TRUE(k.isHoistedCast()) << plan.tensors[k.inputs[0]].name;
    hoisted += k.isHoistedCast();
  }
  if (std::string(GetParam().policy) != "float32") {
    EXPECT_GT(hoisted, 0u);
  } else {
    EXPECT_EQ(hoisted, 0u);
  }
  // Every batch norm's ReLU runs in its pass, and every ReLU gradient in
  // its batch norm gradient's (the CNN: two of each); the other examples
  // have no batch norm.
  size_t norms = 0, fused = 0;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const mp::rt::KernelDesc &kernel = plan.kernels[k];
    norms += kernel.op == "train.batch_norm" ||
             kernel.op == "train.batch_norm_grad";
    if (!kernel.isFusedActivation())
      continue;
    ++fused;
    int64_t host = mp::rt::fusedActivationHost(plan, k);
    ASSERT_GE(host, 0) << kernel.op;
    EXPECT_EQ(plan.kernels[host].op, kernel.op == "train.relu"
                                         ? "train.batch_norm"
                                         : "train.batch_norm_grad");
  }
  EXPECT_EQ(fused, norms);
  // The arena excludes what lives outside it: planned once, by mp-compile.
  // (Fused activations keep their flags: their pairs' lifetimes are longer,
  // not elsewhere.)
  mp::rt::Plan unflagged = plan;
  for (mp::rt::KernelDesc &k : unflagged.kernels)
    k.flags &= mp::rt::KernelDesc::kFusedActivationKernel;
  for (mp::rt::ResultDesc &r : unflagged.results)
    r.flags = 0;
  mp::rt::planMemory(unflagged);
  EXPECT_LE(plan.arenaSize, unflagged.arenaSize);
}

TEST_P(PlanBuilderTest, EvaluationPlanHasNoUpdates) {
  mp::rt::Plan plan = compile(GetParam(), /*evaluation=*/true);
  ASSERT_EQ(plan.results.size(), 2u);
  EXPECT_EQ(plan.results[0].role, mp::rt::ResultRole::Loss);
  EXPECT_EQ(plan.results[1].name, "logits");
  for (const mp::rt::KernelDesc &k : plan.kernels) {
    EXPECT_NE(k.op, "train.grad_seed");
    EXPECT_NE(k.op.rfind("train.sgd", 0), 0u) << k.op;
    EXPECT_NE(k.op.rfind("train.adam", 0), 0u) << k.op;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, PlanBuilderTest,
    ::testing::Values(Case{"mlp.mlir", "float32"},
                      Case{"mlp.mlir", "mixed_bfloat16"},
                      Case{"mlp.mlir", "mixed_float16"},
                      Case{"cnn.mlir", "mixed_bfloat16"},
                      Case{"cnn.mlir", "mixed_float16"},
                      Case{"transformer.mlir", "float32"},
                      Case{"transformer.mlir", "mixed_bfloat16"},
                      Case{"transformer.mlir", "mixed_float16"}),
    [](const auto &info) {
      std::string name = std::string(info.param.example) + "_" +
                         info.param.policy;
      for (char &c : name)
        if (!isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

} // namespace
