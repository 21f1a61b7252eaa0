//===- MPOps.cpp - mp dialect ops -----------------------------------------===//
#include "mp/Dialect/MP/IR/MPOps.h"

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

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  return text + "]";
}

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
  ArrayRef<int64_t> l = getLhs().getType().getShape();
  ArrayRef<int64_t> r = getRhs().getType().getShape();
  if (l.size() < 2 || r.size() < 2)
    return emitOpError() << "expects operands of rank >= 2 but got ranks "
                         << l.size() << " and " << r.size();
  size_t lr = l.size(), rr = r.size();
  int64_t m = getTransposeLhs() ? l[lr - 1] : l[lr - 2];
  int64_t k = getTransposeLhs() ? l[lr - 2] : l[lr - 1];
  int64_t k2 = getTransposeRhs() ? r[rr - 1] : r[rr - 2];
  int64_t n = getTransposeRhs() ? r[rr - 2] : r[rr - 1];
  if (k != k2)
    return emitOpError() << "contracts lhs dimension of size " << k
                         << " with rhs dimension of size " << k2;
  ArrayRef<int64_t> batch = l.drop_back(2);
  if (rr != 2 && r.drop_back(2) != batch)
    return emitOpError() << "expects rhs batch dimensions "
                         << shapeString(batch) << " (or a rank-2 rhs) but got "
                         << shapeString(r.drop_back(2));
  SmallVector<int64_t> expected(batch);
  expected.append({m, n});
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expects a result of shape "
                         << shapeString(expected) << " but got "
                         << shapeString(getType().getShape());
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getShape() != ArrayRef<int64_t>{n})
      return emitOpError() << "expects a bias of shape [" << n
                           << "] (the result's last dimension) but got "
                           << shapeString(biasType.getShape());
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
