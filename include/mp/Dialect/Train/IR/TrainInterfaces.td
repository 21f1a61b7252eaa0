//===- TrainInterfaces.td - train dialect interfaces ---------*- tablegen -*-===//
#ifndef MP_DIALECT_TRAIN_IR_TRAININTERFACES_TD
#define MP_DIALECT_TRAIN_IR_TRAININTERFACES_TD

include "mlir/IR/OpBase.td"

def Train_OptimizerOpInterface : OpInterface<"OptimizerOpInterface"> {
  let cppNamespace = "::mp::train";
  let description = [{
    An optimizer update: it reads one parameter's gradient. Loss scaling
    unscales and checks exactly these gradients before the updates run.
  }];
  let methods = [
    InterfaceMethod<"The operand that carries the parameter's gradient.",
      "::mlir::OpOperand &", "getGradientOperand", (ins), [{}], [{
        return $_op.getGradMutable();
      }]>,
  ];
}

def Train_GradientTransformOpInterface
    : OpInterface<"GradientTransformOpInterface"> {
  let cppNamespace = "::mp::train";
  let description = [{
    An op between the gradients and the optimizer updates (clipping): its
    operands are gradients and its first results their transformed values.
    Loss scaling unscales and checks the gradients it reads, not the ones it
    writes, so that it sees true gradients and a skipped step runs none of
    it.
  }];
  let methods = [
    InterfaceMethod<"The operands that carry gradients.",
      "::mlir::MutableOperandRange", "getGradientOperands", (ins), [{}], [{
        return $_op.getGradsMutable();
      }]>,
  ];
}

#endif // MP_DIALECT_TRAIN_IR_TRAININTERFACES_TD
