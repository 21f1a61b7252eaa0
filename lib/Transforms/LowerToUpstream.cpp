//===- LowerToUpstream.cpp - mp's decisions in upstream ops only ----------===//
//
// After the pipeline on upstream IR the only mp op left is mp.cast (loss
// scaling needs a train step; epilogue fusion a train.matmul) and the only
// mp traces the discardable `mp.*` attributes. This pass rewrites the casts
// into arith's and drops the attributes, so that another compiler reads the
// result without mp's dialects. Anything else of mp's or train's is named
// in an error: it has no upstream form here.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mp {
#define GEN_PASS_DEF_LOWERTOUPSTREAM
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// The float type of `type` (a tensor's element type, or itself).
FloatType elementFloat(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return dyn_cast<FloatType>(shaped.getElementType());
  return dyn_cast<FloatType>(type);
}

/// `value` converted to `type` (same shape) with arith: truncf to a
/// narrower type, extf to a wider one, through f32 between bf16 and f16.
Value convert(OpBuilder &b, Location loc, Value value, Type type) {
  FloatType from = elementFloat(value.getType()), to = elementFloat(type);
  if (from == to)
    return value;
  if (from.getWidth() == to.getWidth()) {
    Type f32 = cast<ShapedType>(value.getType()).clone(b.getF32Type());
    return convert(b, loc, convert(b, loc, value, f32), type);
  }
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(b, loc, type, value);
  return arith::ExtFOp::create(b, loc, type, value);
}

struct LowerToUpstreamPass
    : public mp::impl::LowerToUpstreamBase<LowerToUpstreamPass> {
  using LowerToUpstreamBase::LowerToUpstreamBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (castOp != "arith") {
      module.emitError() << "mp-lower-to-upstream: unknown cast-op '"
                         << castOp << "' (mp or arith)";
      return signalPassFailure();
    }
    SmallVector<mpd::CastOp> casts;
    bool failed = false;
    module.walk([&](Operation *op) {
      if (auto c = dyn_cast<mpd::CastOp>(op)) {
        casts.push_back(c);
        return;
      }
      StringRef dialect = op->getName().getDialectNamespace();
      if (dialect == "mp" || dialect == "train") {
        op->emitError() << "'" << op->getName()
                        << "' has no upstream form: upstream-only output "
                           "(cast-op=arith) needs upstream input (linalg, "
                           "arith, math, tensor, tosa, scf, cf); a train "
                           "step goes to mp-compile";
        failed = true;
      }
    });
    if (failed)
      return signalPassFailure();
    for (mpd::CastOp c : casts) {
      OpBuilder b(c);
      c.getResult().replaceAllUsesWith(
          convert(b, c.getLoc(), c.getInput(), c.getResult().getType()));
      c.erase();
    }
    // The annotations and overrides: mp.precision, mp.force, ... on ops,
    // and mp.* argument and result attributes of functions.
    module.walk([&](Operation *op) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (attr.getName().strref().starts_with("mp."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
    });
  }
};

} // namespace
