//===- GuardFinite.cpp - check the gradients of an unscaled step ----------===//
//
// Loss scaling (LossScaling.cpp) already checks every gradient and skips
// the step when one is not finite. A step without it (float32, bf16) gets
// the same check without the skip: one mp.all_finite over the gradients
// the optimizers (or the clipping before them) read, returned with role `check`; the runtime fails the
// step (and keeps the state) when it is false.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Gradients.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mp {
#define GEN_PASS_DEF_GUARDFINITE
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

struct GuardFinitePass : public mp::impl::GuardFiniteBase<GuardFinitePass> {
  void runOnOperation() override {
    for (auto fn : functionsIn(getOperation()))
      if (train::isTrainStep(fn) && failed(guard(fn)))
        return signalPassFailure();
  }

  LogicalResult guard(FunctionOpInterface fn) {
    Block &body = fn.getFunctionBody().front();
    if (!body.getOps<mpd::UnscaleAndCheckOp>().empty())
      return success(); // loss scaling checks (and skips) already
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      if (train::getResultRole(fn, i) == train::Role::Check)
        return success(); // guarded before
    SmallVector<Value> grads;
    Operation *lastDef = nullptr;
    for (OpOperand *edge : findGradientEdges(body).edges) {
      Value grad = edge->get();
      grads.push_back(grad);
      if (Operation *def = grad.getDefiningOp())
        if (!lastDef || lastDef->isBeforeInBlock(def))
          lastDef = def;
    }
    if (grads.empty())
      return success(); // nothing is updated: no step to guard
    OpBuilder b(fn->getContext());
    if (lastDef)
      b.setInsertionPointAfter(lastDef);
    else
      b.setInsertionPointToStart(&body);
    auto check = mpd::AllFiniteOp::create(
        b, fn.getLoc(), RankedTensorType::get({}, b.getI1Type()), grads);
    // Under ZeRO-1 each rank checked the gradient shards it owns.
    Value verdict = check.getResult();
    if (!body.getOps<train::ReduceScatterOp>().empty())
      verdict = train::AllRanksOp::create(b, fn.getLoc(), verdict);
    unsigned n = fn.getNumResults();
    DictionaryAttr attrs = b.getDictionaryAttr(
        {b.getNamedAttr(train::TrainDialect::kRoleAttrName,
                        b.getStringAttr("check")),
         b.getNamedAttr(train::TrainDialect::kNameAttrName,
                        b.getStringAttr("finite_gradients"))});
    if (failed(fn.insertResults({n}, {verdict.getType()}, {attrs})))
      return fn.emitOpError() << "cannot add the gradient check's result";
    Operation *terminator = body.getTerminator();
    terminator->insertOperands(terminator->getNumOperands(), {verdict});
    return success();
  }
};

} // namespace
