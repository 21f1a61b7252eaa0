//===- ElementBuilder.h - f32 element arithmetic of fused code -*- C++ -*-===//
//
// The per-element rules of the kernels generated code fuses, built as
// arith / math ops in f32 inside a linalg.generic body, in the order and
// with the operations common/ElementMath.h spells them (FusedCodegen.cpp).
// Private to lib/Target/Cpu.
//
//===----------------------------------------------------------------------===//
#ifndef MP_LIB_TARGET_CPU_ELEMENTBUILDER_H
#define MP_LIB_TARGET_CPU_ELEMENTBUILDER_H

#include "mp/runtime/Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/ErrorHandling.h"

#include <limits>

namespace mp::fused {

using namespace mlir;
using mp::rt::OpId;
namespace rt = mp::rt;

inline constexpr float kSqrt2OverPi = 0.79788456080286536f;
inline constexpr float kGeluCubic = 0.044715f;

/// The element type a tensor of `dtype` has in generated code.
inline Type elementType(MLIRContext *context, rt::DType dtype) {
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

  OpBuilder &builder() const { return b; }
  Location location() const { return loc; }

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
    Value subnormal = arith::AndIOp::create(
        b, loc, cmp(arith::CmpFPredicate::OGT, x, c(0.0f)),
        cmp(arith::CmpFPredicate::OLT, x,
            c(std::numeric_limits<float>::min())));
    Value scaled = select(subnormal, mul(x, c(16777216.0f)), x);
    Value result = math::LogOp::create(b, loc, scaled);
    return select(subnormal, sub(result, c(16.635532333438686f)), result);
  }

  /// e = exp(-|x|); x >= 0 ? 1 / (1 + e) : e / (1 + e).
  Value sigmoid(Value x) {
    Value e =
        exp(arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
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
      rounded.convert(resultType == rt::DType::BF16 ? llvm::APFloat::BFloat()
                                                    : llvm::APFloat::IEEEhalf(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      rounded.convert(llvm::APFloat::IEEEsingle(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      return c(rounded.convertToFloat());
    }
    case OpId::MpCast:
    case OpId::TrainBroadcast: // its operand's element at this position
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
      float slope =
          static_cast<float>(k.getFloat(rt::AttrName::negative_slope, 0));
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
      Value holds =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, in[0], zero);
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
      float slope =
          static_cast<float>(k.getFloat(rt::AttrName::negative_slope, 0));
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

} // namespace mp::fused

#endif // MP_LIB_TARGET_CPU_ELEMENTBUILDER_H
