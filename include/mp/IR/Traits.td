//===- Traits.td - op traits shared by mp's dialects ---------*- tablegen -*-===//
#ifndef MP_IR_TRAITS_TD
#define MP_IR_TRAITS_TD

include "mlir/IR/OpBase.td"

/// Rejects attributes that are neither the op's own nor dialect-prefixed, so
/// that a misspelled flag ({tranpose_lhs}) is an error, not ignored.
def StrictAttributes : NativeOpTrait<"StrictAttributes"> {
  let cppNamespace = "::mp::OpTrait";
}

#endif // MP_IR_TRAITS_TD
