//===- FusedCodegen.cpp - fused regions to native code --------------------===//
//
// Each fused region (FusedRegions.cpp) becomes one func.func holding one
// linalg.generic on memref views of [begin, end) of its operands. The
// generic's body is the region's kernels, element by element in f32: an
// input is widened, each kernel applies the reference's per-element rule
// (common/ElementMath.h, the same operations in the same order, so no
// rounding differs), and each result is rounded to its tensor's dtype
// before anything reads it, as the kernels round it when they store it.
// Only the transcendentals (exp, log, tanh, erf and what is built on them)
// differ: MLIR's polynomial approximations, which vectorize. The module
// goes down MLIR's own pipeline (linalg -> loops -> LLVM dialect), then
// LLVM's -O3 with its loop vectorizer, once per variant (x86-64-v4 with
// 512-bit vectors, x86-64-v3), to an object linked into a shared library.
//
//===----------------------------------------------------------------------===//
#include "mp/Target/Cpu/FusedCode.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <limits>
#include <map>

using namespace mlir;
using mp::rt::OpId;

namespace rt = mp::rt;

namespace {

/// The variants every library holds, best first (CodeLibrary.cpp picks).
struct Variant {
  const char *suffix, *cpu, *vectorWidth;
};
constexpr Variant kVariants[] = {{"avx512", "x86-64-v4", "512"},
                                 {"avx2", "x86-64-v3", "256"}};

constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kGeluCubic = 0.044715f;

Type elementType(MLIRContext *context, rt::DType dtype) {
  switch (dtype) {
  case rt::DType::BF16:
    return BFloat16Type::get(context);
  case rt::DType::F16:
    return Float16Type::get(context);
  case rt::DType::I1:
    // A predicate: one byte per element, nonzero for true.
    return IntegerType::get(context, 8);
  default:
    return Float32Type::get(context);
  }
}

/// f32 arithmetic of one generic body, as common/ElementMath.h spells it.
class ElementBuilder {
public:
  ElementBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value c(float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value c64(double value) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  }
  Value to64(Value x) {
    return arith::ExtFOp::create(b, loc, b.getF64Type(), x);
  }
  Value to32(Value x) {
    return arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  }
  /// acc + term with reassociation allowed: a reduction LLVM vectorizes.
  Value accumulate(Value acc, Value term) {
    return arith::AddFOp::create(
        b, loc, acc, term,
        arith::FastMathFlagsAttr::get(b.getContext(),
                                      arith::FastMathFlags::reassoc));
  }
  /// fmax (NaN ignored), reassociable: a row's maximum.
  Value maxnum(Value acc, Value x) {
    return arith::MaxNumFOp::create(
        b, loc, acc, x,
        arith::FastMathFlagsAttr::get(b.getContext(),
                                      arith::FastMathFlags::reassoc));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }

  /// MLIR's approximation reads a subnormal x as if normal: those are
  /// scaled by 2^24 first and 24 ln 2 taken off the logarithm.
  Value log(Value x) {
    Value subnormal =
        arith::AndIOp::create(b, loc,
                              cmp(arith::CmpFPredicate::OGT, x, c(0.0f)),
                              cmp(arith::CmpFPredicate::OLT, x,
                                  c(std::numeric_limits<float>::min())));
    Value scaled = select(subnormal, mul(x, c(16777216.0f)), x);
    Value result = math::LogOp::create(b, loc, scaled);
    return select(subnormal, sub(result, c(16.635532333438686f)), result);
  }

  /// e = exp(-|x|); x >= 0 ? 1 / (1 + e) : e / (1 + e).
  Value sigmoid(Value x) {
    Value e = exp(arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
    Value onePlus = add(c(1.0f), e);
    return select(cmp(arith::CmpFPredicate::OGE, x, c(0.0f)),
                  div(c(1.0f), onePlus), div(e, onePlus));
  }
  /// kSqrt2OverPi * (x + kGeluCubic * x * x * x)
  Value geluTanhArgument(Value x) {
    return mul(c(kSqrt2OverPi), add(x, mul(mul(mul(c(kGeluCubic), x), x), x)));
  }
  /// The tanh form only: the exact GELU (erf) is not fused
  /// (isFusibleKernel).
  Value gelu(Value x) {
    return mul(mul(c(0.5f), x), add(c(1.0f), tanh(geluTanhArgument(x))));
  }
  Value geluDerivative(Value x) {
    Value t = tanh(geluTanhArgument(x));
    Value du = mul(c(kSqrt2OverPi),
                   add(c(1.0f), mul(mul(c(3.0f * kGeluCubic), x), x)));
    return add(mul(c(0.5f), add(c(1.0f), t)),
               mul(mul(mul(c(0.5f), x), sub(c(1.0f), mul(t, t))), du));
  }

  /// Kernel `k`'s f32 result from its operands' f32 values.
  Value kernel(const rt::KernelDesc &k, rt::DType resultType,
               ArrayRef<Value> in) {
    using P = arith::CmpFPredicate;
    switch (k.opId()) {
    case OpId::TrainFill: {
      double value = k.getFloat(rt::AttrName::value, 0);
      if (resultType == rt::DType::F32)
        return c(static_cast<float>(value));
      // The 16-bit value nearest the double (what the reference's
      // round-to-odd then round-to-nearest-even gives), exactly in f32.
      llvm::APFloat rounded(value);
      bool lost = false;
      rounded.convert(resultType == rt::DType::BF16
                          ? llvm::APFloat::BFloat()
                          : llvm::APFloat::IEEEhalf(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      rounded.convert(llvm::APFloat::IEEEsingle(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      return c(rounded.convertToFloat());
    }
    case OpId::MpCast:
      return in[0];
    case OpId::TrainNeg:
      return arith::NegFOp::create(b, loc, in[0]);
    case OpId::TrainAbs:
      return math::AbsFOp::create(b, loc, in[0]);
    case OpId::TrainExp:
      return exp(in[0]);
    case OpId::TrainLog:
      return log(in[0]);
    case OpId::TrainSqrt:
      return math::SqrtOp::create(b, loc, in[0]);
    case OpId::TrainRsqrt:
      return div(c(1.0f), math::SqrtOp::create(b, loc, in[0]));
    case OpId::TrainTanh:
      return tanh(in[0]);
    case OpId::TrainSigmoid:
      return sigmoid(in[0]);
    case OpId::TrainRelu:
      return select(cmp(P::OLT, in[0], c(0.0f)), c(0.0f), in[0]);
    case OpId::TrainSilu:
      return mul(in[0], sigmoid(in[0]));
    case OpId::TrainGelu:
      return gelu(in[0]);
    case OpId::TrainLeakyRelu: {
      float slope = static_cast<float>(k.getFloat(rt::AttrName::negative_slope, 0));
      return select(cmp(P::OGT, in[0], c(0.0f)), in[0], mul(in[0], c(slope)));
    }
    case OpId::TrainAdd:
    case OpId::TrainBiasAdd:
      return add(in[0], in[1]);
    case OpId::TrainSub:
      return sub(in[0], in[1]);
    case OpId::TrainMul:
      return mul(in[0], in[1]);
    case OpId::TrainDiv:
      return div(in[0], in[1]);
    case OpId::TrainSelect: {
      // in[0]: the condition's byte.
      Value zero = arith::ConstantOp::create(
          b, loc, b.getIntegerAttr(in[0].getType(), 0));
      Value holds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          in[0], zero);
      return arith::SelectOp::create(b, loc, holds, in[1], in[2]);
    }
    case OpId::TrainMaximum:
      return arith::MaximumFOp::create(b, loc, in[0], in[1]);
    case OpId::TrainMinimum:
      return arith::MinimumFOp::create(b, loc, in[0], in[1]);
    case OpId::TrainReluGrad:
      return mul(in[0], select(cmp(P::OGT, in[1], c(0.0f)), c(1.0f), c(0.0f)));
    case OpId::TrainTanhGrad:
      return mul(in[0], sub(c(1.0f), mul(in[1], in[1])));
    case OpId::TrainSigmoidGrad:
      return mul(mul(in[0], in[1]), sub(c(1.0f), in[1]));
    case OpId::TrainGeluGrad:
      return mul(in[0], geluDerivative(in[1]));
    case OpId::TrainSiluGrad: {
      Value s = sigmoid(in[1]);
      return mul(mul(in[0], s), add(c(1.0f), mul(in[1], sub(c(1.0f), s))));
    }
    case OpId::TrainLeakyReluGrad: {
      float slope = static_cast<float>(k.getFloat(rt::AttrName::negative_slope, 0));
      return select(cmp(P::OGT, in[1], c(0.0f)), in[0], mul(in[0], c(slope)));
    }
    default:
      llvm_unreachable("not a fusible op (isFusibleKernel)");
    }
  }

private:
  OpBuilder &b;
  Location loc;
};

/// func.func @<symbol>_body(operands as `operandTypes`, begin, end: index)
/// and its entry block.
Block *createBody(OpBuilder &b, const rt::FusedRegion &region,
                  ArrayRef<Type> operandTypes) {
  SmallVector<Type> argTypes(operandTypes.begin(), operandTypes.end());
  argTypes.push_back(b.getIndexType());
  argTypes.push_back(b.getIndexType());
  auto fn = func::FuncOp::create(b, b.getUnknownLoc(), region.symbol + "_body",
                                 b.getFunctionType(argTypes, {}));
  // The arena plan keeps a region's tensors apart (planMemory), so no two
  // operands overlap: the loops vectorize without run-time alias checks.
  for (size_t i = 0; i < operandTypes.size(); ++i)
    fn.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
  return fn.addEntryBlock();
}

/// Whether operand `id` of `region` is a row (a bias) rather than a full
/// tensor of the iteration space.
bool isRowOperand(const rt::Plan &plan, const rt::FusedRegion &region,
                  uint32_t id) {
  return plan.tensors[id].numElements() != region.extent * region.rowLength;
}

/// func.func @<symbol>_body(operands as memrefs, begin, end): the region's
/// kernels over [begin, end) of its extent.
void buildRegionFunction(OpBuilder &b, const rt::Plan &plan,
                         const rt::FusedRegion &region) {
  MLIRContext *context = b.getContext();
  Location loc = b.getUnknownLoc();
  bool rows = region.rowLength > 1;
  SmallVector<Type> argTypes;
  for (uint32_t id : region.operands) {
    Type element = elementType(context, plan.tensors[id].dtype);
    if (isRowOperand(plan, region, id))
      argTypes.push_back(MemRefType::get({region.rowLength}, element));
    else if (rows)
      argTypes.push_back(
          MemRefType::get({region.extent, region.rowLength}, element));
    else
      argTypes.push_back(MemRefType::get({region.extent}, element));
  }
  Block *entry = createBody(b, region, argTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value begin = entry->getArgument(region.operands.size());
  Value end = entry->getArgument(region.operands.size() + 1);
  Value count = arith::SubIOp::create(b, loc, end, begin);

  unsigned rank = rows ? 2 : 1;
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap rowMap = AffineMap::get(rank, 0, {b.getAffineDimExpr(rank - 1)},
                                    context);
  SmallVector<Value> inputs, outputs;
  SmallVector<AffineMap> maps;
  for (size_t i = 0; i < region.operands.size(); ++i) {
    Value arg = entry->getArgument(i);
    Value view = arg;
    if (!isRowOperand(plan, region, region.operands[i])) {
      SmallVector<OpFoldResult> offsets{begin}, sizes{count}, strides{
                                                                 b.getIndexAttr(1)};
      if (rows) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(b.getIndexAttr(region.rowLength));
        strides.push_back(b.getIndexAttr(1));
      }
      view = memref::SubViewOp::create(b, loc, arg, offsets, sizes, strides);
      maps.push_back(identity);
    } else {
      maps.push_back(rowMap);
    }
    (i < region.numInputs ? inputs : outputs).push_back(view);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, inputs, outputs, maps, iterators,
      [&](OpBuilder &nested, Location bodyLoc, ValueRange args) {
        ElementBuilder e(nested, bodyLoc);
        Type f32 = nested.getF32Type();
        std::map<uint32_t, Value> value, stored;
        for (size_t i = 0; i < region.numInputs; ++i) {
          Value arg = args[i];
          value[region.operands[i]] =
              arg.getType() == f32 || arg.getType().isInteger()
                  ? arg
                  : arith::ExtFOp::create(nested, bodyLoc, f32, arg).getResult();
        }
        for (size_t k = region.first; k < region.first + region.count; ++k) {
          const rt::KernelDesc &kernel = plan.kernels[k];
          SmallVector<Value> in;
          for (uint32_t id : kernel.inputs)
            in.push_back(value.at(id));
          uint32_t out = kernel.outputs[0];
          rt::DType dtype = plan.tensors[out].dtype;
          Value result = e.kernel(kernel, dtype, in);
          if (dtype == rt::DType::F32) {
            value[out] = stored[out] = result;
          } else {
            Value narrow = arith::TruncFOp::create(
                nested, bodyLoc, elementType(context, dtype), result);
            stored[out] = narrow;
            value[out] = arith::ExtFOp::create(nested, bodyLoc, f32, narrow);
          }
        }
        SmallVector<Value> yields;
        for (size_t i = region.numInputs; i < region.operands.size(); ++i)
          yields.push_back(stored.at(region.operands[i]));
        linalg::YieldOp::create(nested, bodyLoc, yields);
      });
  func::ReturnOp::create(b, loc);
}

/// func.func @<symbol>_body for a region of one row kernel (isRowKernel):
/// an scf.for over the rows [begin, end), each row's sums as
/// linalg.generic reductions into a one-element buffer (f64, added with
/// reassociation allowed, so that LLVM vectorizes them: f64 sums in any
/// order of a row of f32 values keep far more than f32's precision), then
/// one generic writing the row.
void buildRowFunction(OpBuilder &b, const rt::Plan &plan,
                      const rt::FusedRegion &region) {
  MLIRContext *context = b.getContext();
  Location loc = b.getUnknownLoc();
  const rt::KernelDesc &kernel = plan.kernels[region.first];
  OpId op = kernel.opId();
  int64_t rows = region.extent, length = region.rowLength;
  // Each operand's shape by its place in the kernel: full [rows, length],
  // a vector [length] (scale, offset) or one value per row [rows].
  auto shapeOf = [&](size_t operand) -> SmallVector<int64_t> {
    bool norm = op == OpId::TrainLayerNorm || op == OpId::TrainRmsNorm;
    size_t inputs = kernel.inputs.size();
    if (!norm || operand == 0 || operand == inputs)
      return {rows, length};
    return operand < inputs ? SmallVector<int64_t>{length}
                            : SmallVector<int64_t>{rows};
  };
  SmallVector<Type> argTypes;
  for (size_t i = 0; i < region.operands.size(); ++i)
    argTypes.push_back(MemRefType::get(
        shapeOf(i), elementType(context, plan.tensors[region.operands[i]].dtype)));
  Block *entry = createBody(b, region, argTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  size_t n = region.operands.size();
  Value begin = entry->getArgument(n), end = entry->getArgument(n + 1);
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  Value acc64 = memref::AllocaOp::create(b, loc, MemRefType::get({1}, f64));
  Value acc32 = memref::AllocaOp::create(b, loc, MemRefType::get({1}, f32));
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);

  auto loop = scf::ForOp::create(b, loc, begin, end, one);
  b.setInsertionPointToStart(loop.getBody());
  Value r = loop.getInductionVar();
  // Operand i's row r as a [1, length] view, or the operand itself.
  auto rowOf = [&](size_t i) -> Value {
    Value arg = entry->getArgument(i);
    if (shapeOf(i).size() != 2)
      return arg;
    SmallVector<OpFoldResult> offsets{r, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(length)};
    SmallVector<OpFoldResult> strides{b.getIndexAttr(1), b.getIndexAttr(1)};
    return memref::SubViewOp::create(b, loc, arg, offsets, sizes, strides);
  };
  AffineMap full = b.getMultiDimIdentityMap(2);
  AffineMap vector = AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, context);
  AffineMap toAcc = AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, context);
  auto widen = [&](OpBuilder &nb, Location l, Value v, Type to) -> Value {
    return v.getType() == to ? v : arith::ExtFOp::create(nb, l, to, v).getResult();
  };
  auto narrow = [&](OpBuilder &nb, Location l, Value v, Type to) -> Value {
    return v.getType() == to ? v
                             : arith::TruncFOp::create(nb, l, to, v).getResult();
  };
  // A payload's input elements (all its arguments but the output's) in f32.
  auto widenInputs = [&](OpBuilder &nb, Location l,
                         ValueRange args) -> SmallVector<Value> {
    SmallVector<Value> elements;
    for (Value v : args.drop_back())
      elements.push_back(widen(nb, l, v, f32));
    return elements;
  };
  // acc = combine(acc, f32 elements of `views`) over the row.
  auto reduce = [&](ArrayRef<Value> views, Value accBuffer, Value init,
                    function_ref<Value(ElementBuilder &, ValueRange, Value)>
                        combine) -> Value {
    memref::StoreOp::create(b, loc, init, accBuffer, ValueRange{zeroIndex});
    SmallVector<AffineMap> maps(views.size(), full);
    maps.push_back(toAcc);
    linalg::GenericOp::create(
        b, loc, views, ValueRange{accBuffer}, maps,
        {utils::IteratorType::parallel, utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          ElementBuilder e(nb, l);
          SmallVector<Value> elements = widenInputs(nb, l, args);
          linalg::YieldOp::create(nb, l, combine(e, elements, args.back()));
        });
    return memref::LoadOp::create(b, loc, accBuffer, ValueRange{zeroIndex});
  };
  // Writes output operand `out`'s row from the f32 `rule` of the row
  // operands `views` (full) and `vectors` ([length], broadcast).
  auto writeRow = [&](size_t out, ArrayRef<Value> views,
                      ArrayRef<Value> vectors,
                      function_ref<Value(ElementBuilder &, ValueRange)> rule) {
    SmallVector<Value> ins(views.begin(), views.end());
    ins.append(vectors.begin(), vectors.end());
    SmallVector<AffineMap> maps(views.size(), full);
    maps.append(vectors.size(), vector);
    maps.push_back(full);
    Value target = rowOf(out);
    Type outType = cast<MemRefType>(target.getType()).getElementType();
    linalg::GenericOp::create(
        b, loc, ins, ValueRange{target}, maps,
        {utils::IteratorType::parallel, utils::IteratorType::parallel},
        [&](OpBuilder &nb, Location l, ValueRange args) {
          ElementBuilder e(nb, l);
          SmallVector<Value> elements = widenInputs(nb, l, args);
          linalg::YieldOp::create(nb, l,
                                  narrow(nb, l, rule(e, elements), outType));
        });
  };
  auto storeScalar = [&](size_t out, Value value) {
    Value target = entry->getArgument(out);
    Type type = cast<MemRefType>(target.getType()).getElementType();
    memref::StoreOp::create(b, loc, narrow(b, loc, value, type), target,
                            ValueRange{r});
  };
  ElementBuilder e(b, loc);
  size_t inputs = kernel.inputs.size();

  switch (op) {
  case OpId::TrainLayerNorm:
  case OpId::TrainRmsNorm: {
    // As reference/Normalization.cpp: mean and the centred sum of squares
    // in f64, inv = 1 / sqrt(ss / n + epsilon) in f64, rounded once;
    // y = (x - mean) * inv * scale + offset (+ 0 without an offset) in f32.
    bool centered = op == OpId::TrainLayerNorm;
    double epsilon = static_cast<float>(
        kernel.getFloat(rt::AttrName::epsilon, centered ? 1e-5 : 1e-6));
    Value x = rowOf(0);
    Value size = e.c64(static_cast<double>(length));
    Value meanD = e.c64(0.0);
    if (centered) {
      Value sum = reduce({x}, acc64, e.c64(0.0),
                         [&](ElementBuilder &eb, ValueRange v, Value acc) {
                           return eb.accumulate(acc, eb.to64(v[0]));
                         });
      meanD = e.div(sum, size);
    }
    Value squares = reduce({x}, acc64, e.c64(0.0),
                           [&](ElementBuilder &eb, ValueRange v, Value acc) {
                             Value d = eb.sub(eb.to64(v[0]), meanD);
                             return eb.accumulate(acc, eb.mul(d, d));
                           });
    Value inv = e.to32(e.div(
        e.c64(1.0), math::SqrtOp::create(
                        b, loc, e.add(e.div(squares, size), e.c64(epsilon)))));
    Value mean = e.to32(meanD);
    SmallVector<Value> vectors{entry->getArgument(1)};
    if (centered)
      vectors.push_back(entry->getArgument(2));
    writeRow(inputs, {x}, vectors, [&](ElementBuilder &eb, ValueRange v) {
      Value scaled = eb.mul(eb.mul(eb.sub(v[0], mean), inv), v[1]);
      return eb.add(scaled, centered ? v[2] : eb.c(0.0f));
    });
    if (centered)
      storeScalar(inputs + 1, mean);
    storeScalar(inputs + (centered ? 2 : 1), inv);
    break;
  }
  case OpId::TrainSoftmax:
  case OpId::TrainLogSoftmax: {
    // As reference/Softmax.cpp: the row's fmax, the f64 sum of
    // exp(x - max) rounded once; exp(x - max) / sum or x - max - log(sum).
    Value x = rowOf(0);
    Value max = reduce({x}, acc32,
                       e.c(-std::numeric_limits<float>::infinity()),
                       [&](ElementBuilder &eb, ValueRange v, Value acc) {
                         return eb.maxnum(acc, v[0]);
                       });
    Value total = reduce({x}, acc64, e.c64(0.0),
                         [&](ElementBuilder &eb, ValueRange v, Value acc) {
                           return eb.accumulate(
                               acc, eb.to64(eb.exp(eb.sub(v[0], max))));
                         });
    Value sum = e.to32(total);
    bool log = op == OpId::TrainLogSoftmax;
    Value logSum = log ? e.log(sum) : Value();
    writeRow(inputs, {x}, {}, [&](ElementBuilder &eb, ValueRange v) {
      Value shifted = eb.sub(v[0], max);
      return log ? eb.sub(shifted, logSum) : eb.div(eb.exp(shifted), sum);
    });
    break;
  }
  case OpId::TrainSoftmaxGrad:
  case OpId::TrainLogSoftmaxGrad: {
    // grad, y: y * (grad - sum(grad * y)), or grad - exp(y) * sum(grad),
    // the sums in f64 rounded once.
    bool log = op == OpId::TrainLogSoftmaxGrad;
    Value grad = rowOf(0), y = rowOf(1);
    Value total = reduce({grad, y}, acc64, e.c64(0.0),
                         [&](ElementBuilder &eb, ValueRange v, Value acc) {
                           Value g = eb.to64(v[0]);
                           return eb.accumulate(
                               acc, log ? g : eb.mul(g, eb.to64(v[1])));
                         });
    Value sum = e.to32(total);
    writeRow(inputs, {grad, y}, {}, [&](ElementBuilder &eb, ValueRange v) {
      return log ? eb.sub(v[0], eb.mul(eb.exp(v[1]), sum))
                 : eb.mul(v[1], eb.sub(v[0], sum));
    });
    break;
  }
  default:
    llvm_unreachable("not a row kernel (isRowKernel)");
  }
  b.setInsertionPointAfter(loop);
  func::ReturnOp::create(b, loc);
}

/// MLIR's polynomial approximations of exp, log, tanh, erf (and the
/// expansions they need) and the bf16 conversions as integer code, applied
/// to the whole module.
struct ApproximateMathPass
    : public PassWrapper<ApproximateMathPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMathPass)
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // bf16 conversions as integer code (round to nearest even, NaN kept
    // quiet); the rest of arith-expand is left out, as it would turn
    // maxnumf into compares and selects that LLVM does not vectorize as a
    // reduction.
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// FNV-1a over what the generated code assumes of the plan: each region's
/// kernels (ops, operand ids, attributes), operands' dtypes and shapes,
/// extent and row length.
uint64_t codeId(const rt::Plan &plan,
                const std::vector<rt::FusedRegion> &regions) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const rt::FusedRegion &region : regions) {
    os << region.symbol << ';' << region.first << ';' << region.count << ';'
       << region.numInputs << ';' << region.extent << ';' << region.rowLength;
    for (uint32_t id : region.operands) {
      os << ';' << id << ':' << rt::dtypeName(plan.tensors[id].dtype);
      for (int64_t d : plan.tensors[id].shape)
        os << 'x' << d;
    }
    for (size_t k = region.first; k < region.first + region.count; ++k) {
      const rt::KernelDesc &kernel = plan.kernels[k];
      os << '|' << kernel.op;
      for (uint32_t id : kernel.inputs)
        os << ',' << id;
      for (uint32_t id : kernel.outputs)
        os << '>' << id;
      for (const auto &[name, attr] : kernel.attrs) {
        os << ' ' << name << '=';
        for (int64_t v : attr.ints)
          os << v << ',';
        for (double v : attr.floats)
          os << llvm::format("%a", v) << ',';
        os << attr.str;
      }
    }
    os << '\n';
  }
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : text)
    hash = (hash ^ ch) * 0x100000001b3ull;
  return hash;
}

/// The regions' functions lowered to LLVM IR (one body per region).
std::unique_ptr<llvm::Module>
lowerToLlvmIr(const rt::Plan &plan, const std::vector<rt::FusedRegion> &regions,
              llvm::LLVMContext &llvmContext, Location loc) {
  DialectRegistry registry;
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics of this private context name the step's location.
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });

  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  for (const rt::FusedRegion &region : regions) {
    int64_t rows = 0, length = 0;
    if (region.count == 1 && mp::isRowKernel(plan, region.first, rows, length))
      buildRowFunction(b, plan, region);
    else
      buildRegionFunction(b, plan, region);
  }
  if (failed(verify(*module))) {
    emitError(loc) << "generated code: the fused regions' IR does not verify: "
                   << errors;
    return nullptr;
  }

  PassManager pm(&context);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(std::make_unique<ApproximateMathPass>());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true; // static shapes: plain pointers
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(*module))) {
    emitError(loc) << "generated code: lowering the fused regions to the "
                      "LLVM dialect failed: "
                   << errors;
    return nullptr;
  }
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "mp_fused");
  if (!llvmModule)
    emitError(loc) << "generated code: translation to LLVM IR failed: "
                   << errors;
  return llvmModule;
}

/// Per variant: a copy of every body for that CPU and the exported
/// wrapper `<symbol>_<variant>(void *const *operands, i64 begin, i64 end)`;
/// then `mp_code_id()`.
void addEntryPoints(llvm::Module &module,
                    const std::vector<rt::FusedRegion> &regions, uint64_t id) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  llvm::Type *voidType = llvm::Type::getVoidTy(context);
  for (const rt::FusedRegion &region : regions) {
    llvm::Function *body = module.getFunction(region.symbol + "_body");
    for (const Variant &variant : kVariants) {
      llvm::ValueToValueMapTy map;
      llvm::Function *copy = llvm::CloneFunction(body, map);
      copy->setName(region.symbol + "_body_" + variant.suffix);
      copy->setLinkage(llvm::GlobalValue::InternalLinkage);
      auto *wrapper = llvm::Function::Create(
          llvm::FunctionType::get(voidType, {ptr, i64, i64}, false),
          llvm::GlobalValue::ExternalLinkage,
          region.symbol + "_" + variant.suffix, module);
      for (llvm::Function *fn : {copy, wrapper}) {
        fn->addFnAttr("target-cpu", variant.cpu);
        fn->addFnAttr("prefer-vector-width", variant.vectorWidth);
        fn->addFnAttr(llvm::Attribute::NoUnwind);
      }
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", wrapper));
      llvm::SmallVector<llvm::Value *> args;
      for (size_t i = 0; i < region.operands.size(); ++i)
        args.push_back(b.CreateLoad(
            ptr, b.CreateConstInBoundsGEP1_64(ptr, wrapper->getArg(0), i)));
      args.push_back(wrapper->getArg(1));
      args.push_back(wrapper->getArg(2));
      b.CreateCall(copy, args);
      b.CreateRetVoid();
    }
    body->eraseFromParent();
  }
  auto *idFn = llvm::Function::Create(llvm::FunctionType::get(i64, {}, false),
                                      llvm::GlobalValue::ExternalLinkage,
                                      "mp_code_id", module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", idFn));
  b.CreateRet(llvm::ConstantInt::get(i64, id));
}

/// The first C compiler driver on PATH, which links the shared library.
std::string findLinker() {
  for (const char *name : {"cc", "gcc", "clang"})
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

} // namespace

LogicalResult mp::generateFusedCode(rt::Plan &plan,
                                    const CodegenOptions &options,
                                    Location loc) {
  std::vector<rt::FusedRegion> regions = findFusedRegions(plan);
  plan.code = rt::PlanCode();
  if (regions.empty())
    return success();

  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  const char *triple = "x86_64-unknown-linux-gnu";
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target)
    return emitError(loc) << "generated code: this LLVM has no x86-64 target ("
                          << error << "); compile with --codegen=none";
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), "x86-64", "", targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "generated code: no x86-64 target machine";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      lowerToLlvmIr(plan, regions, llvmContext, loc);
  if (!module)
    return failure();
  module->setTargetTriple(llvm::Triple(triple));
  module->setDataLayout(machine->createDataLayout());
  uint64_t id = codeId(plan, regions);
  addEntryPoints(*module, regions, id);

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(machine.get());
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager passes =
        builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    passes.run(*module, mam);
  }
  if (!options.llvmIrPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.llvmIrPath, ec);
    if (ec)
      return emitError(loc) << "cannot write '" << options.llvmIrPath
                            << "': " << ec.message();
    module->print(os, nullptr);
  }

  // The object, then `cc -shared` into the library (via a temporary name:
  // a reader never sees half a library).
  std::string object = options.libraryPath + ".o";
  std::string partial = options.libraryPath + ".partial";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object, ec, llvm::sys::fs::OF_None);
    if (ec)
      return emitError(loc) << "cannot write '" << object
                            << "': " << ec.message();
    llvm::legacy::PassManager emit;
    if (machine->addPassesToEmitFile(emit, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "generated code: LLVM cannot emit an x86-64 "
                               "object file";
    emit.run(*module);
  }
  std::string linker = findLinker();
  if (linker.empty()) {
    llvm::sys::fs::remove(object);
    return emitError(loc) << "generated code: no C compiler driver (cc, gcc "
                             "or clang) on PATH to link '"
                          << options.libraryPath
                          << "'; install one or compile with --codegen=none";
  }
  llvm::SmallVector<llvm::StringRef> args{linker,  "-shared", "-o",
                                          partial, object,    "-nostartfiles"};
  std::string linkError;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                     &linkError);
  llvm::sys::fs::remove(object);
  if (rc != 0) {
    llvm::sys::fs::remove(partial);
    return emitError(loc) << "generated code: '" << linker
                          << " -shared' failed to link '"
                          << options.libraryPath << "' (exit " << rc << ") "
                          << linkError;
  }
  if (std::error_code ec = llvm::sys::fs::rename(partial, options.libraryPath))
    return emitError(loc) << "cannot write '" << options.libraryPath
                          << "': " << ec.message();

  plan.code.library = llvm::sys::path::filename(options.libraryPath).str();
  plan.code.id = id;
  plan.code.regions = std::move(regions);
  // The library's size and checksum go into the plan: the runtime checks
  // them before it loads the library.
  if (rt::Status stamped = rt::stampCodeLibrary(plan, options.libraryPath);
      !stamped.isOk())
    return emitError(loc) << "generated code: " << stamped.message();
  rt::planMemory(plan);
  return success();
}
