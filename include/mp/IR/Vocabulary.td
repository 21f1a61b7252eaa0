//===- Vocabulary.td - the names that cross out of the compiler -*- tablegen -*-===//
//
// The words the compiler, the runtime, the tools and the Python exporters
// share: precision policies, precision categories, the roles of a training
// step's arguments and results, and the tensors the loss scaler adds. Each
// is spelled here once. The compiler includes the enums mlir-tblgen writes
// (mp/IR/Vocabulary.h.inc: symbolize*/stringify*); mp-tblgen writes the
// same enums into the runtime's header (runtime/include/mp/runtime/
// Vocabulary.h: the runtime builds without MLIR) and into the Python module
// the exporters import (python/mp_export/vocabulary.py), both checked in and
// checked by ctest (`generated/*`). A new word goes here, nowhere else.
//
//===----------------------------------------------------------------------===//

#ifndef MP_IR_VOCABULARY_TD
#define MP_IR_VOCABULARY_TD

include "mlir/IR/EnumAttr.td"

/// Marks an enum mp-tblgen writes into the runtime's and Python's
/// vocabulary. Its cases' values must be 0, 1, 2, ... in order.
class MP_SharedVocabulary;

def MP_PolicyKind : I32EnumAttr<"PolicyKind", "precision policy", [
    I32EnumAttrCase<"Float32", 0, "float32">,
    I32EnumAttrCase<"MixedBFloat16", 1, "mixed_bfloat16">,
    I32EnumAttrCase<"MixedFloat16", 2, "mixed_float16">
  ]>, MP_SharedVocabulary {
  let cppNamespace = "::mp";
  let genSpecializedAttr = 0;
}

def MP_PrecisionCategory : I32EnumAttr<"PrecisionCategory",
    "precision category of an op", [
    // Fast and safe in 16 bits (matrix units): always converted.
    I32EnumAttrCase<"Allow", 0, "allow">,
    // Numerically fragile: always fp32, and fp32 spreads through infer/clear.
    I32EnumAttrCase<"Deny", 1, "deny">,
    // Follows its inputs: 16-bit between 16-bit ops, else fp32.
    I32EnumAttrCase<"Infer", 2, "infer">,
    // Dtype-agnostic data movement: takes whatever its neighbours have.
    I32EnumAttrCase<"Clear", 3, "clear">
  ]>, MP_SharedVocabulary {
  let cppNamespace = "::mp";
  let genSpecializedAttr = 0;
}

/// `train.role` of a training step's arguments and results.
def Train_Role : I32EnumAttr<"Role", "role of a training step's value", [
    // trainable parameter (fp32 master weight), persistent
    I32EnumAttrCase<"Param", 0, "param">,
    // optimizer state (momentum, Adam moments, step), persistent
    I32EnumAttrCase<"OptState", 1, "opt_state">,
    // non-trainable state (batch-norm running stats), persistent
    I32EnumAttrCase<"Buffer", 2, "buffer">,
    // loss-scaler state (scale, growth counter), persistent
    I32EnumAttrCase<"ScalerState", 3, "scaler_state">,
    // batch input, fed every step
    I32EnumAttrCase<"Input", 4, "input">,
    // batch label, fed every step
    I32EnumAttrCase<"Label", 5, "label">,
    // result: the scalar training loss
    I32EnumAttrCase<"Loss", 6, "loss">,
    // result: any other value the step reports (logits, metric)
    I32EnumAttrCase<"Output", 7, "output">,
    // result: a 0-d i1 the step must return true for its state to be kept
    // (the finiteness guard of mp-guard-finite); false fails the step and
    // the runtime keeps the state it had before it.
    I32EnumAttrCase<"Check", 8, "check">
  ]>, MP_SharedVocabulary {
  let cppNamespace = "::mp::train";
  let genSpecializedAttr = 0;
}

/// The `train.name`s of the tensors mp-loss-scaling adds to a step: its
/// persistent state and the verdict of the finite check.
def MP_ScalerTensor : I32EnumAttr<"ScalerTensor",
    "a tensor the loss scaler adds", [
    I32EnumAttrCase<"LossScale", 0, "loss_scale">,
    I32EnumAttrCase<"GrowthCount", 1, "loss_scale.growth_count">,
    I32EnumAttrCase<"AllFinite", 2, "all_finite">
  ]>, MP_SharedVocabulary {
  let cppNamespace = "::mp";
  let genSpecializedAttr = 0;
}

#endif // MP_IR_VOCABULARY_TD
