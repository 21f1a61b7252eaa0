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

#endif // MP_DIALECT_TRAIN_IR_TRAININTERFACES_TD
