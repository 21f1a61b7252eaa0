//===- TrainBase.td - train dialect definition -------------*- tablegen -*-===//
//
// The `train` dialect: framework-level tensor ops of one training step
// (forward, backward, loss, optimizer update) on static-shape tensors.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINBASE_TD
#define MP_DIALECT_TRAIN_IR_TRAINBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Train_Dialect : Dialect {
  let name = "train";
  let cppNamespace = "::mp::train";
  let summary = "Framework-level ops of a training step";
  let description = [{
    One function per training step. Functions marked `train.step` are pure:
    (params, optimizer state, scaler state, batch) -> (loss, new params, new
    optimizer state, new scaler state). Every argument and result carries a
    `train.role` (and persistent ones a `train.name`) so that a runtime knows
    what persists between steps.
  }];
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Attribute names used on training-step functions.
    static constexpr llvm::StringLiteral kStepAttrName = "train.step";
    static constexpr llvm::StringLiteral kRoleAttrName = "train.role";
    static constexpr llvm::StringLiteral kNameAttrName = "train.name";
    /// On a buffer argument: the step reads it and never changes it (a
    /// frozen buffer has no updated result).
    static constexpr llvm::StringLiteral kFrozenAttrName = "train.frozen";
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// Floating-point element types a training step computes in.
def Train_Float : AnyTypeOf<[F32, BF16, F16]>;
def Train_FloatTensor : StaticShapeTensorOf<[F32, BF16, F16]>;
def Train_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
/// Elementwise arithmetic also runs on integer counters (e.g. Adam's step).
def Train_NumericTensor : StaticShapeTensorOf<[F32, BF16, F16, I32, I64]>;
def Train_AnyTensor : StaticShapeTensorOf<[F32, BF16, F16, I1, I32, I64]>;
def Train_PredTensor : StaticShapeTensorOf<[I1]>;
/// A scalar (0-d) counter such as Adam's step number.
def Train_StepTensor : TensorRankOf<[I32, I64, F32], [0]>;
/// A step counter: the number of steps done before this one (0-d).
def Train_CounterTensor : TensorRankOf<[I32, I64], [0]>;
/// A 0-d f32 (a learning rate, a norm) whose type the format need not spell.
def Train_ScalarF32 : TensorRankOf<[F32], [0]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Train_Layout : I64EnumAttr<"Layout", "image tensor layout", [
    I64EnumAttrCase<"NCHW", 0>,
    I64EnumAttrCase<"NHWC", 1>,
  ]> {
  let cppNamespace = "::mp::train";
}

/// How a convolution's filter is stored when it is not the image layout's
/// own (`filter_layout` on conv2d and its gradients): OIHW beside NHWC
/// images is what mp-channels-last leaves a PyTorch filter in.
def Train_FilterLayout : I64EnumAttr<"FilterLayout", "convolution filter layout", [
    I64EnumAttrCase<"OIHW", 0>,
    I64EnumAttrCase<"HWIO", 1>,
  ]> {
  let cppNamespace = "::mp::train";
}

def Train_Layout1D : I64EnumAttr<"Layout1D", "sequence tensor layout", [
    I64EnumAttrCase<"NCL", 0>,
    I64EnumAttrCase<"NLC", 1>,
  ]> {
  let cppNamespace = "::mp::train";
}

def Train_GruGateOrder : I64EnumAttr<"GruGateOrder",
    "order of a GRU's three gate blocks", [
    I64EnumAttrCase<"rzn", 0>,  // PyTorch: reset, update, new
    I64EnumAttrCase<"zrn", 1>,  // Keras: update, reset, candidate
  ]> {
  let cppNamespace = "::mp::train";
}

def Train_ComparePredicate : I64EnumAttr<"ComparePredicate",
    "elementwise comparison", [
    I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
    I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
    I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>,
  ]> {
  let cppNamespace = "::mp::train";
}

/// The element type a data-parallel reduction sends (train.all_reduce's
/// `reduce_dtype`): f32, or bf16 (half the bytes; docs/distributed.md
/// gives the error bound).
def Train_ReduceDType : I64EnumAttr<"ReduceDType",
    "element type a reduction sends between ranks", [
    I64EnumAttrCase<"f32", 0>, I64EnumAttrCase<"bf16", 1>,
  ]> {
  let cppNamespace = "::mp::train";
}

def Train_WarmupShape : I64EnumAttr<"WarmupShape",
    "how a learning-rate warm-up rises", [
    I64EnumAttrCase<"linear", 0>, I64EnumAttrCase<"cosine", 1>,
  ]> {
  let cppNamespace = "::mp::train";
}

def Train_DecayShape : I64EnumAttr<"DecayShape",
    "how a learning rate decays after its warm-up", [
    I64EnumAttrCase<"constant", 0>, I64EnumAttrCase<"linear", 1>,
    I64EnumAttrCase<"cosine", 2>, I64EnumAttrCase<"step", 3>,
    I64EnumAttrCase<"exponential", 4>,
  ]> {
  let cppNamespace = "::mp::train";
}

#endif // MP_DIALECT_TRAIN_IR_TRAINBASE_TD
