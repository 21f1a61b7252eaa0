//===- MPOps.cpp - mp dialect ops -----------------------------------------===//
#include "mp/Dialect/MP/IR/MPOps.h"

#include "mp/IR/MatmulShapes.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mp::mpd;

bool mp::mpd::isExactFloatConversion(Type from, Type to) {
  if (from == to)
    return true;
  auto f = dyn_cast<FloatType>(from), t = dyn_cast<FloatType>(to);
  return f && t &&
         llvm::APFloat::isRepresentableBy(f.getFloatSemantics(),
                                          t.getFloatSemantics());
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A -> B) : B -> C) == cast(x : A -> C) when A -> B is exact.
  auto inner = getInput().getDefiningOp<CastOp>();
  if (!inner)
    return {};
  Value source = inner.getInput();
  if (!isExactFloatConversion(getElementTypeOrSelf(source),
                              getElementTypeOrSelf(inner.getType())))
    return {};
  if (source.getType() == getType())
    return source;
  getInputMutable().assign(source);
  return getResult();
}

//===----------------------------------------------------------------------===//
// Loss-scaling ops
//===----------------------------------------------------------------------===//

LogicalResult UnscaleAndCheckOp::verify() {
  if (getGrads().empty())
    return emitOpError() << "expects at least one gradient";
  if (getGrads().size() != getUnscaled().size())
    return emitOpError() << "has " << getGrads().size() << " gradients but "
                         << getUnscaled().size() << " unscaled results";
  for (auto [i, grad, out] :
       llvm::enumerate(getGrads().getTypes(), getUnscaled().getTypes())) {
    if (cast<ShapedType>(grad).getShape() != cast<ShapedType>(out).getShape())
      return emitOpError() << "gradient #" << i << " is " << grad
                           << " but its unscaled result is " << out;
  }
  return success();
}

LogicalResult AllFiniteOp::verify() {
  if (getValues().empty())
    return emitOpError() << "expects at least one operand";
  return success();
}

/// `mp.select` prints the state types once: new and old values share them.
static ParseResult parseSameTypes(OpAsmParser &parser,
                                  SmallVectorImpl<Type> &newTypes,
                                  SmallVectorImpl<Type> &oldTypes) {
  if (parser.parseTypeList(newTypes))
    return failure();
  oldTypes.assign(newTypes.begin(), newTypes.end());
  return success();
}

static void printSameTypes(OpAsmPrinter &printer, Operation *,
                           TypeRange newTypes, TypeRange) {
  llvm::interleaveComma(newTypes, printer);
}

LogicalResult SelectOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  // Operand segments: pred, new values, old values.
  int32_t numNew = props->operandSegmentSizes[1];
  for (Value v : operands.slice(1, numNew))
    inferred.push_back(v.getType());
  return success();
}

LogicalResult SelectOp::verify() {
  if (getNewValues().empty())
    return emitOpError() << "expects at least one state value";
  if (getNewValues().size() != getOldValues().size())
    return emitOpError() << "selects between " << getNewValues().size()
                         << " new and " << getOldValues().size()
                         << " old values";
  for (auto [i, a, b] : llvm::enumerate(getNewValues().getTypes(),
                                        getOldValues().getTypes()))
    if (a != b)
      return emitOpError() << "new value #" << i << " is " << a
                           << " but old value #" << i << " is " << b;
  return success();
}

LogicalResult UpdateScaleOp::verify() {
  if (getGrowthInterval() < 1)
    return emitOpError() << "expects growth_interval >= 1 but got "
                         << getGrowthInterval();
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  double lo = getMinScale().convertToDouble();
  double hi = getMaxScale().convertToDouble();
  if (!(growth >= 1))
    return emitOpError() << "expects growth_factor >= 1 but got " << growth;
  if (!(backoff > 0 && backoff < 1))
    return emitOpError() << "expects backoff_factor in (0, 1) but got "
                         << backoff;
  if (!(lo >= 0 && lo <= hi))
    return emitOpError() << "expects 0 <= min_scale <= max_scale but got "
                         << lo << " and " << hi;
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulEpilogueOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulEpilogueOp::verify() {
  Type in = getElementTypeOrSelf(getLhs().getType());
  Type out = getElementTypeOrSelf(getType());
  if (getElementTypeOrSelf(getRhs().getType()) != in)
    return emitOpError() << "expects lhs and rhs of one element type but got "
                         << in << " and "
                         << getElementTypeOrSelf(getRhs().getType());
  if (out != in && !out.isF32())
    return emitOpError() << "expects a result of element type " << in
                         << " or f32 (the accumulator) but got " << out;
  int64_t n;
  if (failed(mp::verifyMatmulShapes(
          *this, getLhs().getType().getShape(), getRhs().getType().getShape(),
          getType().getShape(), getTransposeLhs(), getTransposeRhs(), n)))
    return failure();
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getShape() != ArrayRef<int64_t>{n})
      return emitOpError() << "expects a bias of shape [" << n
                           << "] (the result's last dimension) but got "
                           << mp::formatShape(biasType.getShape());
    Type b = biasType.getElementType();
    if (b != out && !b.isF32())
      return emitOpError() << "expects a bias of element type f32 or " << out
                           << " (the result's) but got " << b;
  }
  StringRef activation = getActivation();
  if (activation != "none" && activation != "relu")
    return emitOpError() << "expects activation \"none\" or \"relu\" but got \""
                         << activation << "\"";
  return success();
}

#define GET_OP_CLASSES
#include "mp/Dialect/MP/IR/MPOps.cpp.inc"
