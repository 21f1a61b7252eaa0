//===- BuildStepTest.cpp - build a training step through the C++ API -----===//
//
// A compiler that embeds mp builds training steps with OpBuilder rather than
// parsing text: these tests build a linear-softmax-regression step (forward,
// loss, backward, SGD) and check what the verifier accepts and rejects.
//
//===----------------------------------------------------------------------===//
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace train = mp::train;

namespace {

class BuildStepTest : public ::testing::Test {
protected:
  BuildStepTest() {
    DialectRegistry registry;
    mp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Builds `step(w, x, labels) -> (loss, new_w)`: logits = x @ w, mean
  /// cross-entropy, its gradient back to w, and one SGD update.
  OwningOpRef<ModuleOp> buildStep(int64_t batch, int64_t in, int64_t out) {
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());

    Type f32 = b.getF32Type();
    auto wType = RankedTensorType::get({in, out}, f32);
    auto xType = RankedTensorType::get({batch, in}, f32);
    auto labelType = RankedTensorType::get({batch}, b.getI64Type());
    auto logitsType = RankedTensorType::get({batch, out}, f32);
    auto lossType = RankedTensorType::get({}, f32);

    auto fn = func::FuncOp::create(
        b, loc, "step",
        b.getFunctionType({wType, xType, labelType}, {lossType, wType}));
    fn->setAttr(train::TrainDialect::kStepAttrName, b.getUnitAttr());
    auto role = [&](StringRef r) { return b.getStringAttr(r); };
    fn.setArgAttr(0, train::TrainDialect::kRoleAttrName, role("param"));
    fn.setArgAttr(0, train::TrainDialect::kNameAttrName, role("w"));
    fn.setArgAttr(1, train::TrainDialect::kRoleAttrName, role("input"));
    fn.setArgAttr(2, train::TrainDialect::kRoleAttrName, role("label"));
    fn.setResultAttr(0, train::TrainDialect::kRoleAttrName, role("loss"));
    fn.setResultAttr(1, train::TrainDialect::kRoleAttrName, role("param"));
    fn.setResultAttr(1, train::TrainDialect::kNameAttrName, role("w"));

    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value w = entry->getArgument(0), x = entry->getArgument(1),
          labels = entry->getArgument(2);
    Value logits = train::MatmulOp::create(b, loc, logitsType, x, w);
    Value loss =
        train::SparseCrossEntropyOp::create(b, loc, lossType, logits, labels,
                                            b.getF64FloatAttr(0.0),
                                            IntegerAttr());
    Value seed = train::GradSeedOp::create(b, loc, loss);
    Value dLogits =
        train::SparseCrossEntropyGradOp::create(b, loc, logitsType, logits,
                                                labels, seed,
                                                b.getF64FloatAttr(0.0),
                                                IntegerAttr());
    // dW = x^T @ dLogits.
    Value dW = train::MatmulOp::create(b, loc, wType, x, dLogits,
                                       /*transpose_lhs=*/true);
    Value newW = train::SgdOp::create(b, loc, w, dW, b.getF64FloatAttr(0.1),
                                      llvm::APFloat(0.0), Value());
    func::ReturnOp::create(b, loc, ValueRange{loss, newW});
    return module;
  }

  /// Verifies `op`, returning the first diagnostic ("" when it verifies).
  std::string verifyAndCapture(Operation *op) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    if (succeeded(verify(op)))
      return "";
    return message.empty() ? "<failed without a message>" : message;
  }

  MLIRContext context;
};

TEST_F(BuildStepTest, WellFormedStepVerifies) {
  OwningOpRef<ModuleOp> module = buildStep(8, 4, 3);
  EXPECT_EQ(verifyAndCapture(*module), "");

  auto fn = cast<FunctionOpInterface>(&module->getBody()->front());
  EXPECT_TRUE(train::isTrainStep(fn));
  EXPECT_EQ(train::getArgRole(fn, 0), train::Role::Param);
  EXPECT_EQ(train::getArgName(fn, 0), "w");
  EXPECT_EQ(train::getArgRole(fn, 2), train::Role::Label);
  EXPECT_EQ(train::getResultRole(fn, 0), train::Role::Loss);
  // forward, loss, seed, loss grad, weight grad, update, return.
  EXPECT_EQ(fn.getFunctionBody().front().getOperations().size(), 7u);
}

TEST_F(BuildStepTest, MissingRoleIsRejected) {
  OwningOpRef<ModuleOp> module = buildStep(8, 4, 3);
  auto fn = cast<func::FuncOp>(&module->getBody()->front());
  fn.removeArgAttr(1, train::TrainDialect::kRoleAttrName);
  EXPECT_EQ(verifyAndCapture(*module),
            "'func.func' op training step argument #1 has no 'train.role'");
}

TEST_F(BuildStepTest, MissingUpdateIsRejected) {
  OwningOpRef<ModuleOp> module = buildStep(8, 4, 3);
  auto fn = cast<func::FuncOp>(&module->getBody()->front());
  fn.setResultAttr(1, train::TrainDialect::kNameAttrName,
                   StringAttr::get(&context, "v"));
  EXPECT_EQ(verifyAndCapture(*module),
            "'func.func' op result #1 (param 'v') updates no argument");
}

TEST_F(BuildStepTest, WrongShapeIsRejected) {
  OwningOpRef<ModuleOp> module = buildStep(8, 4, 3);
  // Rewire the weight-gradient matmul so that its contraction sizes differ.
  auto fn = cast<func::FuncOp>(&module->getBody()->front());
  train::MatmulOp gradMatmul;
  fn.walk([&](train::MatmulOp op) {
    if (op.getTransposeLhs())
      gradMatmul = op;
  });
  ASSERT_TRUE(gradMatmul);
  gradMatmul.setTransposeLhs(false);
  EXPECT_EQ(verifyAndCapture(*module),
            "'train.matmul' op contracts lhs dimension of size 4 with rhs "
            "dimension of size 8");
}

TEST(RolesTest, RoleNamesRoundTrip) {
  for (train::Role role :
       {train::Role::Param, train::Role::OptState, train::Role::Buffer,
        train::Role::ScalerState,
        train::Role::Input, train::Role::Label, train::Role::Loss,
        train::Role::Output})
    EXPECT_EQ(train::parseRole(train::stringifyRole(role)), role);
  EXPECT_EQ(train::parseRole("weights"), std::nullopt);
  EXPECT_TRUE(train::isPersistent(train::Role::ScalerState));
  EXPECT_FALSE(train::isPersistent(train::Role::Input));
  EXPECT_FALSE(train::isValidArgRole(train::Role::Loss));
  EXPECT_FALSE(train::isValidResultRole(train::Role::Label));
}

} // namespace
