//===- TrainOps.td - train dialect ops ----------------------*- tablegen -*-===//
//
// Every op verifies its operands, shapes and attributes. Shapes are static.
// Element types: f32, bf16 and f16 for data; i32/i64 for labels and indices;
// i1 for predicates. Ops whose result dtype may differ from their inputs'
// (contractions, reductions, losses) spell out the result type; the others
// infer it.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINOPS_TD

include "mp/Dialect/Train/IR/TrainBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mp/IR/Traits.td"
include "mp/Interfaces/PrecisionOpInterface.td"
include "mp/Dialect/Train/IR/TrainInterfaces.td"

class Train_Op<string mnemonic, list<Trait> traits = []>
    : Op<Train_Dialect, mnemonic,
         !listconcat([Pure, PrecisionOpInterface, StrictAttributes],
                     traits)> {
  // Default mixed-precision behaviour of the op (PrecisionOpInterface); the
  // reasons for each choice are in docs/precision.md.
  string precisionCategory = "Infer";
  bit wideAccumulator = 0;
  // C++ boolean expressions of `index`: which operands / results take the
  // op's compute dtype (the others keep their type, e.g. norm statistics).
  string convertibleOperands = "true";
  string convertibleResults = "true";
  // Why the category: docs/precision.md's table of the defaults is
  // generated from these (mp-tblgen -gen-precision-table).
  string precisionReason = "";
  let extraClassDeclaration =
      "static constexpr ::mp::PrecisionCategory kPrecisionCategory = "
      "::mp::PrecisionCategory::" # precisionCategory # ";\n"
      "static constexpr bool kWideAccumulator = "
      # !if(wideAccumulator, "true", "false") # ";\n"
      "static bool isConvertibleOperand(unsigned index) { (void)index; "
      "return " # convertibleOperands # "; }\n"
      "static bool isConvertibleResult(unsigned index) { (void)index; "
      "return " # convertibleResults # "; }\n";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Train_UnaryOp<string mnemonic, string what>
    : Train_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$x);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Train_NegOp : Train_UnaryOp<"neg", "elementwise negation: -x"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_ExpOp : Train_UnaryOp<"exp", "elementwise exponential: e^x"> {
  let precisionReason = [{
    on TensorFlow's deny list (Exp, Pow) and PyTorch's fp32 list (exp, log,
    pow)
  }];
  let precisionCategory = "Deny";
}
def Train_LogOp : Train_UnaryOp<"log", "elementwise natural logarithm"> {
  let precisionReason = [{
    on TensorFlow's deny list (Exp, Pow) and PyTorch's fp32 list (exp, log,
    pow)
  }];
  let precisionCategory = "Deny";
}
def Train_SqrtOp : Train_UnaryOp<"sqrt", "elementwise square root"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_RsqrtOp : Train_UnaryOp<"rsqrt", "elementwise 1/sqrt(x)"> {
  let precisionReason = [{PyTorch's fp32 list}];
  let precisionCategory = "Deny";
}
def Train_TanhOp : Train_UnaryOp<"tanh", "elementwise hyperbolic tangent"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_SigmoidOp : Train_UnaryOp<"sigmoid", "elementwise 1/(1+e^-x)"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_ErfOp : Train_UnaryOp<"erf", "elementwise error function"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_ReluOp : Train_UnaryOp<"relu", "elementwise max(x, 0)"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_SiluOp : Train_UnaryOp<"silu", "elementwise x * sigmoid(x) (SiLU, swish)"> {
  let precisionReason = [{
    as `sigmoid` and `mul`, which it is made of: no reduction, its relative
    error in 16 bits is the input's (PyTorch autocast leaves `silu` to the
    input dtype)
  }];
  let precisionCategory = "Infer";
}

def Train_HardswishOp : Train_UnaryOp<"hardswish",
    "elementwise x * relu6(x + 3) / 6 (hard swish)"> {
  let precisionReason = [{
    as `silu`, which it approximates: no reduction, one rounding of a product
    (PyTorch autocast leaves `hardswish` to the input dtype)
  }];
  let precisionCategory = "Infer";
}

def Train_LeakyReluOp : Train_Op<"leaky_relu", [SameOperandsAndResultType]> {
  let precisionReason = [{
    elementwise, one rounding of `negative_slope * x` on the negative side,
    no reduction (PyTorch autocast leaves `leaky_relu` to the input dtype)
  }];
  let precisionCategory = "Infer";
  let summary = "elementwise x for x > 0, negative_slope * x otherwise";
  let arguments = (ins Train_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Train_EluOp : Train_Op<"elu", [SameOperandsAndResultType]> {
  let precisionReason = [{
    unlike `exp` (deny: e^x overflows f16 above 11), e^x - 1 is taken of
    x <= 0 only, within (-alpha, 0]: no overflow in 16 bits, no reduction
    (PyTorch autocast leaves `elu` to the input dtype)
  }];
  let precisionCategory = "Infer";
  let summary = "elementwise x for x > 0, alpha * (e^x - 1) otherwise (ELU)";
  let arguments = (ins Train_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Train_GeluOp : Train_Op<"gelu", [SameOperandsAndResultType]> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
  let summary = "GELU: x*Phi(x), or its tanh approximation with `tanh_approx`";
  let arguments = (ins Train_FloatTensor:$x, UnitAttr:$tanh_approx);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

class Train_BinaryOp<string mnemonic, string what,
                     Type T = Train_NumericTensor>
    : Train_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs T:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Train_AddOp : Train_BinaryOp<"add", "elementwise lhs + rhs"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_SubOp : Train_BinaryOp<"sub", "elementwise lhs - rhs"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_MulOp : Train_BinaryOp<"mul", "elementwise lhs * rhs"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_DivOp : Train_BinaryOp<"div", "elementwise lhs / rhs"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_MaximumOp : Train_BinaryOp<"maximum", "elementwise max(lhs, rhs)"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_MinimumOp : Train_BinaryOp<"minimum", "elementwise min(lhs, rhs)"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_PowOp
    : Train_BinaryOp<"pow", "elementwise lhs ^ rhs", Train_FloatTensor> {
  let precisionReason = [{
    on TensorFlow's deny list (Exp, Pow) and PyTorch's fp32 list (exp, log,
    pow)
  }];
  let precisionCategory = "Deny";
}

def Train_CompareOp : Train_Op<"compare", [SameTypeOperands,
    TypesMatchWith<"result is an i1 tensor of the operands' shape",
                   "lhs", "result", "::mp::train::getI1TensorLike($_self)">]> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
  let summary = "elementwise comparison giving an i1 tensor";
  let arguments = (ins Train_ComparePredicate:$predicate,
                       Train_NumericTensor:$lhs, Train_NumericTensor:$rhs);
  let results = (outs Train_PredTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Train_SelectOp : Train_Op<"select", [
    AllTypesMatch<["true_value", "false_value", "result"]>,
    TypesMatchWith<"condition is an i1 tensor of the result's shape",
                   "result", "condition",
                   "::mp::train::getI1TensorLike($_self)">]> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "elementwise condition ? true_value : false_value";
  let arguments = (ins Train_PredTensor:$condition,
                       Train_AnyTensor:$true_value,
                       Train_AnyTensor:$false_value);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($result)
  }];
}

/// Activation gradients: (upstream gradient, saved forward tensor) -> grad.
/// relu_grad, gelu_grad, silu_grad, hardswish_grad, leaky_relu_grad and
/// elu_grad take the forward input; tanh_grad and
/// sigmoid_grad take the forward output, as TensorFlow's raw ops do.
class Train_ActivationGradOp<string mnemonic, string what>
    : Train_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $saved attr-dict `:` type($result)";
}

def Train_ReluGradOp : Train_ActivationGradOp<"relu_grad",
    "grad * (x > 0), with x the forward input"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_TanhGradOp : Train_ActivationGradOp<"tanh_grad",
    "grad * (1 - y^2), with y the forward output"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_SigmoidGradOp : Train_ActivationGradOp<"sigmoid_grad",
    "grad * y * (1 - y), with y the forward output"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
}
def Train_SiluGradOp : Train_ActivationGradOp<"silu_grad",
    "grad * silu'(x), with x the forward input"> {
  let precisionReason = [{as `sigmoid_grad` (TF infer list)}];
  let precisionCategory = "Infer";
}
def Train_HardswishGradOp : Train_ActivationGradOp<"hardswish_grad",
    "grad * hardswish'(x), with x the forward input"> {
  let precisionReason = [{as `silu_grad`: elementwise, no reduction}];
  let precisionCategory = "Infer";
}
def Train_LeakyReluGradOp : Train_Op<"leaky_relu_grad",
                                     [SameOperandsAndResultType]> {
  let precisionReason = [{as `leaky_relu`: elementwise, no reduction}];
  let precisionCategory = "Infer";
  let summary = "grad for x > 0, grad * negative_slope otherwise (x: the input)";
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved,
                       DefaultValuedAttr<F64Attr, "0.01">:$negative_slope);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $saved attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def Train_EluGradOp : Train_Op<"elu_grad", [SameOperandsAndResultType]> {
  let precisionReason = [{as `elu`: elementwise, no reduction}];
  let precisionCategory = "Infer";
  let summary = "grad for x > 0, grad * alpha * e^x otherwise (x: the input)";
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $saved attr-dict `:` type($result)";
  let hasVerifier = 1;
}
def Train_GeluGradOp : Train_ActivationGradOp<"gelu_grad",
    "grad * gelu'(x), with x the forward input"> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved,
                       UnitAttr:$tanh_approx);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Train_MatmulOp : Train_Op<"matmul"> {
  let precisionReason = [{
    TensorFlow's allow lists (CUDA and oneDNN) and PyTorch's lower-precision
    lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "(batched) matrix product with optional transposes";
  let description = [{
    `lhs` is [B..., M, K] (or [B..., K, M] with `transpose_lhs`), `rhs` is
    [B..., K, N] (or [B..., N, K] with `transpose_rhs`), or a rank-2 [K, N]
    shared by every batch (a linear layer). The result is [B..., M, N].
    `lhs` and `rhs` share an element type; the result may have another one:
    bf16 x bf16 -> f32 is a product accumulated and stored in f32.
  }];
  let arguments = (ins Train_FloatTensor:$lhs, Train_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_BiasAddOp : Train_Op<"bias_add", [AllTypesMatch<["x", "result"]>,
                                            AllElementTypesMatch<["x", "bias"]>]> {
  let precisionReason = [{
    TF infer list (Add, Mul, RealDiv, BiasAdd, Sqrt, Tanh(Grad),
    Sigmoid(Grad), Erf)
  }];
  let precisionCategory = "Infer";
  let summary = "adds a rank-1 bias along dimension `dim` (default: last)";
  let arguments = (ins Train_FloatTensor:$x, Train_FloatTensor:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$dim);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x `,` $bias attr-dict `:` type($x) `,` type($bias)";
  let hasVerifier = 1;
}

/// Attributes shared by conv2d and its two backward ops. Filters are OIHW
/// with NCHW data and HWIO with NHWC data (PyTorch's and TensorFlow's own
/// conventions). `padding` is [top, bottom, left, right].
defvar Train_ConvAttrs = (ins
  Train_Layout:$layout,
  DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
  DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
  DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations);

def Train_Conv2DOp : Train_Op<"conv2d"> {
  let precisionReason = [{
    TensorFlow's allow lists (CUDA and oneDNN) and PyTorch's lower-precision
    lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "2-D convolution (cross-correlation)";
  let arguments = !con((ins Train_FloatTensor:$input,
                            Train_FloatTensor:$filter), Train_ConvAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $input `,` $filter attr-dict `:` type($input) `,` type($filter)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_Conv2DBackwardDataOp : Train_Op<"conv2d_backward_data"> {
  let precisionReason = [{
    TensorFlow's allow lists (CUDA and oneDNN) and PyTorch's lower-precision
    lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    Takes the gradient of the conv2d output and the filter; the result type
    is the forward input's type (it cannot be derived: strides lose it).
  }];
  let arguments = !con((ins Train_FloatTensor:$grad_output,
                            Train_FloatTensor:$filter), Train_ConvAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad_output `,` $filter attr-dict `:` type($grad_output) `,`
    type($filter) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_Conv2DBackwardFilterOp : Train_Op<"conv2d_backward_filter"> {
  let precisionReason = [{
    TensorFlow's allow lists (CUDA and oneDNN) and PyTorch's lower-precision
    lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "gradient of conv2d with respect to its filter";
  let arguments = !con((ins Train_FloatTensor:$input,
                            Train_FloatTensor:$grad_output), Train_ConvAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $input `,` $grad_output attr-dict `:` type($input) `,`
    type($grad_output) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Train_BatchNormOp : Train_Op<"batch_norm", [
    AllTypesMatch<["x", "y"]>,
    AllTypesMatch<["scale", "offset", "running_mean", "running_var",
                   "new_running_mean", "new_running_var", "saved_mean",
                   "saved_inv_std"]>]> {
  let precisionReason = [{
    only `x`/`y` (and `grad_y`, `grad_x`) follow; scale, offset, running and
    saved statistics stay f32 and the statistics are computed with an f32
    accumulator — TF's FusedBatchNormV3 with `U=float`; this answers
    pytorch#66707 without keeping the whole op f32
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index == 0"; let convertibleResults = "index == 0";
  let summary = "batch normalization, training form";
  let description = [{
    Normalizes `x` over every dimension but `feature_dim` with the batch
    statistics, and updates the running statistics the PyTorch way:
    `new = (1 - momentum) * old + momentum * batch` (the running variance
    uses the unbiased batch variance). `saved_mean` and `saved_inv_std`
    (1/sqrt(var + epsilon)) feed batch_norm_grad. `x`/`y` may be 16-bit while
    the per-feature tensors stay f32.
  }];
  let arguments = (ins Train_FloatTensor:$x, Train_FloatTensor:$scale,
                       Train_FloatTensor:$offset,
                       Train_FloatTensor:$running_mean,
                       Train_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       DefaultValuedAttr<I64Attr, "1">:$feature_dim);
  let results = (outs Train_FloatTensor:$y,
                      Train_FloatTensor:$new_running_mean,
                      Train_FloatTensor:$new_running_var,
                      Train_FloatTensor:$saved_mean,
                      Train_FloatTensor:$saved_inv_std);
  let assemblyFormat = [{
    $x `,` $scale `,` $offset `,` $running_mean `,` $running_var attr-dict
    `:` type($x) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Train_BatchNormGradOp : Train_Op<"batch_norm_grad", [
    AllTypesMatch<["grad_y", "x", "grad_x"]>,
    AllTypesMatch<["scale", "saved_mean", "saved_inv_std", "grad_scale",
                   "grad_offset"]>]> {
  let precisionReason = [{
    only `x`/`y` (and `grad_y`, `grad_x`) follow; scale, offset, running and
    saved statistics stay f32 and the statistics are computed with an f32
    accumulator — TF's FusedBatchNormV3 with `U=float`; this answers
    pytorch#66707 without keeping the whole op f32
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index <= 1"; let convertibleResults = "index == 0";
  let summary = "gradients of training-form batch_norm";
  let arguments = (ins Train_FloatTensor:$grad_y, Train_FloatTensor:$x,
                       Train_FloatTensor:$scale, Train_FloatTensor:$saved_mean,
                       Train_FloatTensor:$saved_inv_std,
                       DefaultValuedAttr<I64Attr, "1">:$feature_dim);
  let results = (outs Train_FloatTensor:$grad_x, Train_FloatTensor:$grad_scale,
                      Train_FloatTensor:$grad_offset);
  let assemblyFormat = [{
    $grad_y `,` $x `,` $scale `,` $saved_mean `,` $saved_inv_std attr-dict
    `:` type($x) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Train_LayerNormOp : Train_Op<"layer_norm", [
    AllTypesMatch<["x", "y"]>, AllTypesMatch<["scale", "offset"]>,
    AllTypesMatch<["mean", "inv_std"]>]> {
  let precisionReason = [{
    only `x`/`y` (and `grad_y`, `grad_x`) follow; scale, offset, running and
    saved statistics stay f32 and the statistics are computed with an f32
    accumulator — TF's FusedBatchNormV3 with `U=float`; this answers
    pytorch#66707 without keeping the whole op f32
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index == 0"; let convertibleResults = "index == 0";
  let summary = "layer normalization over dimensions [axis, rank)";
  let description = [{
    `scale` and `offset` have the normalized shape x.shape[axis:]; `mean` and
    `inv_std` (saved for layer_norm_grad) have x.shape[:axis].
  }];
  let arguments = (ins Train_FloatTensor:$x, Train_FloatTensor:$scale,
                       Train_FloatTensor:$offset,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Train_FloatTensor:$y, Train_FloatTensor:$mean,
                      Train_FloatTensor:$inv_std);
  let assemblyFormat = [{
    $x `,` $scale `,` $offset attr-dict `:` type($x) `,` type($scale) `->`
    type($mean)
  }];
  let hasVerifier = 1;
}

def Train_LayerNormGradOp : Train_Op<"layer_norm_grad", [
    AllTypesMatch<["grad_y", "x", "grad_x"]>,
    AllTypesMatch<["scale", "grad_scale", "grad_offset"]>,
    AllTypesMatch<["mean", "inv_std"]>]> {
  let precisionReason = [{
    only `x`/`y` (and `grad_y`, `grad_x`) follow; scale, offset, running and
    saved statistics stay f32 and the statistics are computed with an f32
    accumulator — TF's FusedBatchNormV3 with `U=float`; this answers
    pytorch#66707 without keeping the whole op f32
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index <= 1"; let convertibleResults = "index == 0";
  let summary = "gradients of layer_norm";
  let arguments = (ins Train_FloatTensor:$grad_y, Train_FloatTensor:$x,
                       Train_FloatTensor:$scale, Train_FloatTensor:$mean,
                       Train_FloatTensor:$inv_std,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Train_FloatTensor:$grad_x, Train_FloatTensor:$grad_scale,
                      Train_FloatTensor:$grad_offset);
  let assemblyFormat = [{
    $grad_y `,` $x `,` $scale `,` $mean `,` $inv_std attr-dict `:` type($x)
    `,` type($scale) `,` type($mean)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

class Train_SoftmaxLikeOp<string mnemonic, string what>
    : Train_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$x,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Train_SoftmaxOp : Train_SoftmaxLikeOp<"softmax", "softmax along `axis`"> {
  let precisionReason = [{
    DESIGN: the softmax feeding a loss is an fp32 island; PyTorch runs
    softmax in fp32; TensorFlow's CUDA list infers it, which we do not
    follow: the loss is built from it
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}
def Train_LogSoftmaxOp
    : Train_SoftmaxLikeOp<"log_softmax", "log-softmax along `axis`"> {
  let precisionReason = [{
    DESIGN: the softmax feeding a loss is an fp32 island; PyTorch runs
    softmax in fp32; TensorFlow's CUDA list infers it, which we do not
    follow: the loss is built from it
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}

class Train_SoftmaxLikeGradOp<string mnemonic, string what>
    : Train_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$output,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Train_SoftmaxGradOp : Train_SoftmaxLikeGradOp<"softmax_grad",
    "y * (grad - sum(grad * y, axis)), with y the softmax output"> {
  let precisionReason = [{
    DESIGN: the softmax feeding a loss is an fp32 island; PyTorch runs
    softmax in fp32; TensorFlow's CUDA list infers it, which we do not
    follow: the loss is built from it
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}
def Train_LogSoftmaxGradOp : Train_SoftmaxLikeGradOp<"log_softmax_grad",
    "grad - exp(y) * sum(grad, axis), with y the log-softmax output"> {
  let precisionReason = [{
    DESIGN: the softmax feeding a loss is an fp32 island; PyTorch runs
    softmax in fp32; TensorFlow's CUDA list infers it, which we do not
    follow: the loss is built from it
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}

def Train_SparseCrossEntropyOp : Train_Op<"sparse_cross_entropy"> {
  let precisionReason = [{
    losses are fp32 everywhere (TF deny list, PyTorch "all losses")
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
  let summary = "mean softmax cross-entropy of [N, C] logits and [N] labels";
  let description = [{
    loss = mean_n(logsumexp(logits[n]) - logits[n, labels[n]]), the default
    reduction of PyTorch's CrossEntropyLoss and of Keras'
    SparseCategoricalCrossentropy(from_logits=True). A label outside [0, C)
    is a runtime error, but for `ignore_index`: its rows count neither in
    the sum nor in N (PyTorch's ignore_index; all rows ignored gives NaN).
    With `label_smoothing` e in [0, 1] each row's term is
    (1 - e) (lse - x[label]) + e (lse - mean_c x[c]) (PyTorch's).
  }];
  let arguments = (ins Train_FloatTensor:$logits, Train_IndexTensor:$labels,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs 0DTensorOf<[F32, BF16, F16]>:$loss);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels) `->`
    type($loss)
  }];
  let hasVerifier = 1;
}

def Train_SparseCrossEntropyGradOp : Train_Op<"sparse_cross_entropy_grad", [
    AllTypesMatch<["logits", "result"]>]> {
  let precisionReason = [{
    losses are fp32 everywhere (TF deny list, PyTorch "all losses")
  }];
  let precisionCategory = "Deny";
  let summary = "d loss / d logits of sparse_cross_entropy, times grad_loss";
  let description = [{
    (softmax(logits) - (1 - e) one_hot(labels) - e / C) * grad_loss / N,
    with e = label_smoothing; rows of `ignore_index` are 0 and not in N.
  }];
  let arguments = (ins Train_FloatTensor:$logits, Train_IndexTensor:$labels,
                       0DTensorOf<[F32, BF16, F16]>:$grad_loss,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $grad_loss attr-dict `:` type($logits) `,`
    type($labels) `,` type($grad_loss)
  }];
  let hasVerifier = 1;
}

/// Losses of a prediction against a float target of its shape: the mean
/// over every element of a pointwise term (PyTorch's reduction="mean",
/// Keras' default), accumulated in f64. Their gradients take the same
/// operands and the loss's upstream gradient.
class Train_PointwiseLossOp<string mnemonic, string what, dag extra = (ins)>
    : Train_Op<mnemonic, [AllTypesMatch<["input", "target"]>]> {
  let summary = what;
  let arguments = !con((ins Train_FloatTensor:$input, Train_FloatTensor:$target),
                       extra);
  let results = (outs 0DTensorOf<[F32, BF16, F16]>:$loss);
  let assemblyFormat = [{
    $input `,` $target attr-dict `:` type($input) `->` type($loss)
  }];
  let precisionReason = [{
    losses are fp32 everywhere (TF deny list, PyTorch "all losses")
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}
class Train_PointwiseLossGradOp<string mnemonic, string what,
                                dag extra = (ins)>
    : Train_Op<mnemonic, [AllTypesMatch<["input", "target", "result"]>]> {
  let summary = what;
  let arguments = !con((ins Train_FloatTensor:$input, Train_FloatTensor:$target,
                            0DTensorOf<[F32, BF16, F16]>:$grad_loss),
                       extra);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target `,` $grad_loss attr-dict `:` type($input) `,`
    type($grad_loss)
  }];
  let precisionReason = [{as its loss: fp32 (TF deny list)}];
  let precisionCategory = "Deny";
}

def Train_MseLossOp : Train_PointwiseLossOp<"mse_loss",
    "mean squared error: mean((input - target)^2)">;
def Train_MseLossGradOp : Train_PointwiseLossGradOp<"mse_loss_grad",
    "2 (input - target) * grad_loss / N">;
def Train_BceWithLogitsLossOp : Train_PointwiseLossOp<"bce_with_logits_loss",
    "binary cross-entropy of logits: mean(max(x, 0) - x t + log(1 + e^-|x|))">;
def Train_BceWithLogitsLossGradOp
    : Train_PointwiseLossGradOp<"bce_with_logits_loss_grad",
          "(sigmoid(input) - target) * grad_loss / N">;
def Train_HuberLossOp : Train_PointwiseLossOp<"huber_loss",
    "Huber: mean of d^2 / 2 for |d| <= delta, else delta (|d| - delta / 2)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$delta)> {
  let hasVerifier = 1;
}
def Train_HuberLossGradOp : Train_PointwiseLossGradOp<"huber_loss_grad",
    "clamp(input - target, -delta, delta) * grad_loss / N",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$delta)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

class Train_ReduceOp<string mnemonic, string what>
    : Train_Op<mnemonic> {
  let summary = what;
  let description = [{
    Reduces `x` over the dimensions `dims` (each once, in range). With
    `keep_dims` the reduced dimensions stay with size 1. The result may have
    a wider element type than `x` (a bf16 sum accumulated into f32).
  }];
  let arguments = (ins Train_FloatTensor:$x, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keep_dims);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ReduceSumOp : Train_ReduceOp<"reduce_sum", "sum over `dims`"> {
  let precisionReason = [{
    TF deny list (Sum, Mean); TVM NEVER list (sum, mean, global avg pool);
    fp16 means lose bits fast (onnxconverter-common#323)
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}
def Train_ReduceMeanOp : Train_ReduceOp<"reduce_mean", "mean over `dims`"> {
  let precisionReason = [{
    TF deny list (Sum, Mean); TVM NEVER list (sum, mean, global avg pool);
    fp16 means lose bits fast (onnxconverter-common#323)
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}
def Train_ReduceMaxOp : Train_ReduceOp<"reduce_max", "maximum over `dims`"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}

/// Attributes of the windowed pooling ops; `padding` is [top, bottom, left,
/// right]. avg_pool2d divides by the full window (padding counted), like
/// PyTorch's count_include_pad=True.
defvar Train_PoolAttrs = (ins
  Train_Layout:$layout,
  DenseI64ArrayAttr:$kernel,
  DenseI64ArrayAttr:$strides,
  DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding);

class Train_PoolOp<string mnemonic, string what> : Train_Op<mnemonic> {
  let summary = what;
  let arguments = !con((ins Train_FloatTensor:$x), Train_PoolAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$layout $x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_MaxPool2DOp : Train_PoolOp<"max_pool2d", "2-D max pooling"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
}
def Train_AvgPool2DOp : Train_PoolOp<"avg_pool2d", "2-D average pooling"> {
  let precisionReason = [{TF infer list (AvgPool(Grad))}];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
}

def Train_MaxPool2DGradOp : Train_Op<"max_pool2d_grad",
                                     [AllTypesMatch<["x", "result"]>]> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "routes each output gradient to its window's maximum in x";
  let arguments = !con((ins Train_FloatTensor:$grad, Train_FloatTensor:$x),
                       Train_PoolAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad `,` $x attr-dict `:` type($grad) `,` type($x)
  }];
  let hasVerifier = 1;
}

def Train_AvgPool2DGradOp : Train_Op<"avg_pool2d_grad"> {
  let precisionReason = [{TF infer list (AvgPool(Grad))}];
  let precisionCategory = "Infer";
  let summary = "spreads each output gradient evenly over its window";
  let arguments = !con((ins Train_FloatTensor:$grad), Train_PoolAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad attr-dict `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_GlobalAvgPool2DOp : Train_Op<"global_avg_pool2d"> {
  let precisionReason = [{
    TF deny list (Sum, Mean); TVM NEVER list (sum, mean, global avg pool);
    fp16 means lose bits fast (onnxconverter-common#323)
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
  let summary = "mean over the spatial dimensions: an image batch to [N, C]";
  let arguments = (ins Train_FloatTensor:$x, Train_Layout:$layout);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$layout $x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_GlobalAvgPool2DGradOp : Train_Op<"global_avg_pool2d_grad"> {
  let precisionReason = [{TF infer list (AvgPool(Grad))}];
  let precisionCategory = "Infer";
  let summary = "spreads [N, C] gradients evenly over the spatial dimensions";
  let arguments = (ins Train_FloatTensor:$grad, Train_Layout:$layout);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad attr-dict `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

def Train_EmbeddingOp : Train_Op<"embedding"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "gathers rows of a [V, D] table: indices [I...] -> [I..., D]";
  let arguments = (ins Train_FloatTensor:$table, Train_IndexTensor:$indices);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` type($table) `,` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Train_EmbeddingGradOp : Train_Op<"embedding_grad"> {
  let precisionReason = [{
    scatter-add accumulates; PyTorch promotes `scatter_add`
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
  let summary = "scatter-adds [I..., D] gradients into a zero [V, D] table";
  let arguments = (ins Train_FloatTensor:$grad, Train_IndexTensor:$indices);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` type($grad) `,` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops and constants
//===----------------------------------------------------------------------===//

def Train_ReshapeOp : Train_Op<"reshape"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "same elements, new static shape";
  let arguments = (ins Train_AnyTensor:$x);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_TransposeOp : Train_Op<"transpose"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "permutes dimensions: result.shape[i] = x.shape[perm[i]]";
  let arguments = (ins Train_AnyTensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_BroadcastOp : Train_Op<"broadcast"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "broadcasts x into a bigger shape";
  let description = [{
    Dimension i of `x` maps to dimension `dims[i]` of the result (strictly
    increasing) and has either the same size or size 1.
  }];
  let arguments = (ins Train_AnyTensor:$x, DenseI64ArrayAttr:$dims);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_SliceOp : Train_Op<"slice"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "strided slice; the sizes are the result's shape";
  let arguments = (ins Train_AnyTensor:$x, DenseI64ArrayAttr:$offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ConcatOp : Train_Op<"concat"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "concatenates tensors along `dim`";
  let arguments = (ins Variadic<Train_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ConstantOp : Train_Op<"constant", [ConstantLike,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Train_FillOp : Train_Op<"fill"> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "a tensor with every element equal to `value`";
  let arguments = (ins F64Attr:$value);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Backward-pass seed and optimizer updates
//===----------------------------------------------------------------------===//

def Train_GradSeedOp : Train_Op<"grad_seed", [SameOperandsAndResultType]> {
  let precisionReason = [{
    losses are fp32 everywhere (TF deny list, PyTorch "all losses")
  }];
  let precisionCategory = "Deny";
  let summary = "d loss / d loss: the start of the backward pass";
  let description = [{
    A tensor of ones shaped like the loss. Marking it lets loss scaling find
    the seed of the backward pass without guessing: the loss-scaling pass
    multiplies it by the loss scale.
  }];
  let arguments = (ins 0DTensorOf<[F32, BF16, F16]>:$loss);
  let results = (outs 0DTensorOf<[F32, BF16, F16]>:$result);
  let assemblyFormat = "$loss attr-dict `:` type($loss)";
}

def Train_SgdOp : Train_Op<"sgd", [Train_OptimizerOpInterface,
    AllTypesMatch<["param", "grad", "new_param"]>]> {
  let precisionReason = [{the optimizer is an fp32 island: master weights}];
  let precisionCategory = "Deny";
  let summary = "plain SGD: p - lr * (g + weight_decay * p)";
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                       F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs Train_FloatTensor:$new_param);
  let assemblyFormat = "$param `,` $grad attr-dict `:` type($param)";
  let hasVerifier = 1;
}

def Train_SgdMomentumOp : Train_Op<"sgd_momentum", [Train_OptimizerOpInterface,
    AllTypesMatch<["param", "grad", "momentum_buffer", "new_param",
                   "new_momentum_buffer"]>]> {
  let precisionReason = [{the optimizer is an fp32 island: master weights}];
  let precisionCategory = "Deny";
  let summary = "SGD with momentum (PyTorch semantics), optionally Nesterov";
  let description = [{
    g' = g + weight_decay * p; b' = momentum * b + (1 - dampening) * g';
    step = nesterov ? g' + momentum * b' : b'; p' = p - lr * step.
    The buffer starts at zero (PyTorch initializes it to the first gradient;
    with zero dampening both give the same sequence).
  }];
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                       Train_FloatTensor:$momentum_buffer, F64Attr:$lr,
                       F64Attr:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$nesterov);
  let results = (outs Train_FloatTensor:$new_param,
                      Train_FloatTensor:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad `,` $momentum_buffer attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

class Train_AdamBase<string mnemonic, string what, string defaultDecay>
    : Train_Op<mnemonic, [Train_OptimizerOpInterface,
                          AllTypesMatch<["param", "grad", "exp_avg",
                                         "exp_avg_sq", "new_param",
                                         "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                       Train_FloatTensor:$exp_avg, Train_FloatTensor:$exp_avg_sq,
                       Train_StepTensor:$step, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$epsilon,
                       DefaultValuedAttr<F64Attr, defaultDecay>:$weight_decay);
  let results = (outs Train_FloatTensor:$new_param,
                      Train_FloatTensor:$new_exp_avg,
                      Train_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step attr-dict `:`
    type($param) `,` type($step)
  }];
  let hasVerifier = 1;
}

def Train_AdamOp : Train_AdamBase<"adam",
    "Adam; weight decay is added to the gradient (L2); `step` is t >= 1",
    "0.0"> {
  let precisionReason = [{the optimizer is an fp32 island: master weights}];
  let precisionCategory = "Deny";
}
def Train_AdamWOp : Train_AdamBase<"adamw",
    "AdamW: decoupled weight decay p -= lr * wd * p; `step` is t >= 1",
    "0.01"> {
  let precisionReason = [{the optimizer is an fp32 island: master weights}];
  let precisionCategory = "Deny";
}

#endif // MP_DIALECT_TRAIN_IR_TRAINOPS_TD
