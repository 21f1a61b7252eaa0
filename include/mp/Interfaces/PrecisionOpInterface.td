//===- PrecisionOpInterface.td - how an op takes part in AMP -*- tablegen -*-===//
//
// The precision passes never look at op names: an op says through this
// interface how it behaves under mixed precision. train ops implement it;
// external models attach it to upstream ops (linalg, arith, math, tosa), so
// the same passes run inside other MLIR compilers. An op without it stays
// fp32 and is reported.
//
//===----------------------------------------------------------------------===//

#ifndef MP_INTERFACES_PRECISIONOPINTERFACE_TD
#define MP_INTERFACES_PRECISIONOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mp";
  let description = [{
    Category (allow / deny / infer / clear), which operands and results follow
    the op's compute dtype, and whether the op needs a wide (f32)
    accumulator when it computes in 16 bits. Operands and results that do
    not follow (batch-norm statistics, a loss' labels) keep their type
    whatever dtype the op is given.
  }];
  let methods = [
    InterfaceMethod<"The op's default category (policies may override it).",
      "::mp::PrecisionCategory", "getPrecisionCategory", (ins), [{}], [{
        return ConcreteOp::kPrecisionCategory;
      }]>,
    InterfaceMethod<"Whether operand `index` takes the op's compute dtype.",
      "bool", "isOperandConvertible", (ins "unsigned":$index), [{}], [{
        return ConcreteOp::isConvertibleOperand(index);
      }]>,
    InterfaceMethod<"Whether result `index` takes the op's compute dtype.",
      "bool", "isResultConvertible", (ins "unsigned":$index), [{}], [{
        return ConcreteOp::isConvertibleResult(index);
      }]>,
    InterfaceMethod<[{
        Whether products or sums inside the op must be accumulated in f32
        when its inputs are 16-bit (contractions, reductions, statistics).
      }],
      "bool", "needsWideAccumulator", (ins), [{}], [{
        return ConcreteOp::kWideAccumulator;
      }]>,
    InterfaceMethod<[{
        Builds a copy of the op that reads `operands` instead of its own, at
        the builder's insertion point, for ops whose regions depend on their
        operand types (linalg named ops regenerate their bodies). Returns
        null when setting the operands in place is enough.
      }],
      "::mlir::Operation *", "rebuildWithOperands",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operands),
      [{}], [{
        return nullptr;
      }]>,
  ];
}

#endif // MP_INTERFACES_PRECISIONOPINTERFACE_TD
