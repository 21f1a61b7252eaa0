//===- MPOps.td - mp dialect ops -----------------------------*- tablegen -*-===//
//
// What the mixed-precision passes add to a training step: casts and the
// loss-scaling ops. The dynamic scaler state (scale, growth counter) is
// ordinary tensors threaded through the step, so the step stays pure.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPOPS_TD
#define MP_DIALECT_MP_IR_MPOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mp/IR/Traits.td"

def MP_Dialect : Dialect {
  let name = "mp";
  let cppNamespace = "::mp::mpd";
  let summary = "Mixed-precision casts and loss scaling";
  let description = [{
    Besides its ops, the dialect owns the attributes the precision passes
    and users put on other ops: `mp.force` ("low" or "fp32") pins one op,
    `mp.precision` records a painting decision, `mp.policy` names a
    function's policy and `mp.initial_value` gives a scaler-state argument
    its starting value. On upstream IR a step's loss-scaling interface is
    marked with unit attributes: `mp.grad_seed` on the op (or argument)
    that makes the backward pass's seed, `mp.gradient` on the results that
    are gradients, and, added by loss scaling, `mp.all_finite`,
    `mp.loss_scale` and `mp.growth_count` on arguments and results.
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

class MP_Op<string mnemonic, list<Trait> traits = []>
    : Op<MP_Dialect, mnemonic, !listconcat([Pure, StrictAttributes], traits)>;

def MP_FloatTensor : StaticShapeTensorOf<[F32, BF16, F16]>;
def MP_F32Scalar : TensorRankOf<[F32], [0]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;
def MP_PredScalar : TensorRankOf<[I1], [0]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI1Type())">;
def MP_CounterScalar : TensorRankOf<[I32, I64], [0]>;

def MP_CastOp : MP_Op<"cast", [AllShapesMatch<["input", "result"]>]> {
  let summary = "converts between f32, bf16 and f16 (round to nearest even)";
  let description = [{
    Narrowing rounds to nearest, ties to even; values beyond the target's
    range become +-inf; NaN stays NaN. A cast to the same type folds away.
    A chain cast(cast(x : A -> B) : B -> C) folds to cast(x : A -> C) only
    when A -> B is exact (every A value is a B value: bf16 -> f32,
    f16 -> f32), so widening then narrowing back folds to x, while
    narrowing then widening (which rounds) is kept.
  }];
  let arguments = (ins MP_FloatTensor:$input);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

def MP_ScaleOp : MP_Op<"scale", [AllTypesMatch<["value", "result"]>]> {
  let summary = "multiplies the backward-pass seed by the loss scale";
  let description = [{
    result = value * scale, computed in f32 and rounded once to the value's
    type. Applied to `train.grad_seed`, it scales every gradient of the step.
  }];
  let arguments = (ins MP_FloatTensor:$value, MP_F32Scalar:$scale);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = "$value `,` $scale attr-dict `:` type($value)";
}

def MP_UnscaleAndCheckOp : MP_Op<"unscale_and_check", [SameVariadicResultSize]> {
  let summary = "unscales gradients in f32 and reports whether all are finite";
  let description = [{
    For each gradient g (of any float type): unscaled = f32(g) * f32(1 / scale)
    (the reciprocal taken in double precision, as PyTorch's GradScaler does),
    stored with the result's type. `all_finite` is true when no element of
    any input gradient is inf or NaN; the check looks at the inputs, so an
    overflow is caught even where the product would hide it.
  }];
  let arguments = (ins MP_F32Scalar:$scale, Variadic<MP_FloatTensor>:$grads);
  let results = (outs Variadic<MP_FloatTensor>:$unscaled,
                      MP_PredScalar:$all_finite);
  let assemblyFormat = [{
    $scale `,` $grads attr-dict `:` type($grads) `->` type($unscaled)
  }];
  let hasVerifier = 1;
}

def MP_AllFiniteOp : MP_Op<"all_finite"> {
  let summary = "true when no element of any operand is inf or NaN";
  let arguments = (ins Variadic<MP_FloatTensor>:$values);
  let results = (outs MP_PredScalar:$result);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let hasVerifier = 1;
}

def MP_SelectOp : MP_Op<"select", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "picks the new state when `pred` holds, else the old one";
  let description = [{
    Branch-free skipping of a step: with pred = all_finite, params and
    optimizer state keep their old values bitwise when a gradient overflowed.
  }];
  let arguments = (ins MP_PredScalar:$pred,
                       Variadic<AnyStaticShapeTensor>:$new_values,
                       Variadic<AnyStaticShapeTensor>:$old_values);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let assemblyFormat = [{
    $pred `,` `[` $new_values `]` `,` `[` $old_values `]` attr-dict `:`
    custom<SameTypes>(type($new_values), type($old_values))
  }];
  let hasVerifier = 1;
}

def MP_UpdateScaleOp : MP_Op<"update_scale", [
    AllTypesMatch<["scale", "new_scale"]>,
    AllTypesMatch<["growth_count", "new_growth_count"]>]> {
  let summary = "the dynamic loss-scale update (GradScaler semantics)";
  let description = [{
    If not all_finite: scale = max(scale * backoff_factor, min_scale);
    count = 0. Otherwise count += 1, and when count reaches
    growth_interval: count = 0 and scale = min(scale * growth_factor,
    max_scale) unless that product is not finite (then the scale stays).
    `min_scale` defaults to 0 (no floor, as PyTorch) and `max_scale` to the
    largest f32.
  }];
  let arguments = (ins MP_F32Scalar:$scale, MP_CounterScalar:$growth_count,
                       MP_PredScalar:$all_finite,
                       DefaultValuedAttr<I64Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<F64Attr, "0.0">:$min_scale,
                       DefaultValuedAttr<F64Attr, "3.4028234663852886e+38">:$max_scale);
  let results = (outs MP_F32Scalar:$new_scale,
                      MP_CounterScalar:$new_growth_count);
  let assemblyFormat = [{
    $scale `,` $growth_count `,` $all_finite attr-dict `:` type($growth_count)
  }];
  let hasVerifier = 1;
}

def MP_MatmulEpilogueOp : MP_Op<"matmul_epilogue"> {
  let summary = "matmul with its bias and activation fused as an epilogue";
  let description = [{
    What `mp-fuse-epilogues` makes of `train.matmul` -> `train.bias_add`
    (on the last dimension) -> `train.relu`. `lhs`, `rhs`, `transpose_lhs`
    and `transpose_rhs` are `train.matmul`'s (batched, or a rank-2 rhs
    shared by every batch). `bias`, when present, is rank-1 of size N, of
    element type f32 or the result's. Semantics, per element: acc = the
    product accumulated in f32; acc += f32(bias[n]); acc = relu(acc) when
    `activation` is "relu" (ReLU in f32, NaN kept); then ONE rounding to
    the result's element type (the lhs's, or f32). A graph framework rounds
    after each of the three ops; a graph compiler rounds once.
  }];
  let arguments = (ins MP_FloatTensor:$lhs, MP_FloatTensor:$rhs,
                       Optional<MP_FloatTensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       DefaultValuedStrAttr<StrAttr, "none">:$activation);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? attr-dict `:` type($lhs) `,` type($rhs)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPOPS_TD
