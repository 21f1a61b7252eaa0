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
def Train_AbsOp : Train_UnaryOp<"abs", "elementwise absolute value: |x|"> {
  let precisionReason = [{
    a sign-bit change, exact in every float type (TF clear list: Abs)
  }];
  let precisionCategory = "Clear";
}
def Train_SignOp : Train_UnaryOp<"sign",
    "elementwise sign: -1 or 1; a zero or NaN is itself"> {
  let precisionReason = [{
    exact in every float type: -1, 0, 1 (PyTorch's sign, Lion's update)
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
  let hasFolder = 1;
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
    The two batch shapes may also differ where they broadcast as numpy's
    (torch.matmul's, tf.linalg.matmul's) do: aligned at the last batch
    dimension, each pair equal or one of them 1 or missing; the result has
    the broadcast batch. mp-decompose turns those forms into the two above
    (a `broadcast` of the operand that needs it, or a `reshape` of an rhs
    whose batch is all 1s into the shared rank-2 form), so backends only
    see equal batches or a shared rhs.
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
/// conventions) unless `filter_layout` says otherwise: mp-channels-last
/// runs a PyTorch convolution on NHWC images with its OIHW filter as it is
/// (no transpose of the weights or their gradient per step). `padding` is [top, bottom, left, right]. With `groups` G
/// the C input channels and O output channels split into G groups, each
/// output group seeing its input group only: the filter's I is C / G
/// (PyTorch's [O, C/G, KH, KW]; depthwise is G = C, TensorFlow's
/// DepthwiseConv2D filter [KH, KW, C, M] reshaped to HWIO [KH, KW, 1, C*M]).
defvar Train_ConvAttrs = (ins
  Train_Layout:$layout,
  DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
  DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
  DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
  DefaultValuedAttr<I64Attr, "1">:$groups,
  OptionalAttr<Train_FilterLayout>:$filter_layout);

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
    $layout (`filter` $filter_layout^)? $input `,` $filter attr-dict `:` type($input) `,` type($filter)
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
    $layout (`filter` $filter_layout^)? $grad_output `,` $filter attr-dict `:` type($grad_output) `,`
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
    $layout (`filter` $filter_layout^)? $input `,` $grad_output attr-dict `:` type($input) `,`
    type($grad_output) `->` type($result)
  }];
  let hasVerifier = 1;
}

// 1-D convolutions: NCL inputs with OIK filters (PyTorch's nn.Conv1d) or
// NLC with KIO (Keras' Conv1D). mp-decompose always rewrites them into
// conv2d on a unit height (NCHW / NHWC, OIHW / HWIO) between reshapes,
// which every backend runs; plans never hold them.
defvar Train_Conv1DAttrs = (ins
  Train_Layout1D:$layout,
  DefaultValuedAttr<I64Attr, "1">:$stride,
  DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
  DefaultValuedAttr<I64Attr, "1">:$dilation,
  DefaultValuedAttr<I64Attr, "1">:$groups);

def Train_Conv1DOp : Train_Op<"conv1d"> {
  let precisionReason = [{
    as conv2d, which it becomes: TensorFlow's allow lists and PyTorch's
    lower-precision lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "1-D convolution (cross-correlation), `padding` = [lo, hi]";
  let arguments = !con((ins Train_FloatTensor:$input, Train_FloatTensor:$filter),
                       Train_Conv1DAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $input `,` $filter attr-dict `:` type($input) `,` type($filter)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_Conv1DBackwardDataOp : Train_Op<"conv1d_backward_data"> {
  let precisionReason = [{
    as conv2d, which it becomes: TensorFlow's allow lists and PyTorch's
    lower-precision lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "gradient of conv1d with respect to its input";
  let arguments = !con((ins Train_FloatTensor:$grad_output,
                            Train_FloatTensor:$filter), Train_Conv1DAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad_output `,` $filter attr-dict `:` type($grad_output) `,`
    type($filter) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_Conv1DBackwardFilterOp : Train_Op<"conv1d_backward_filter"> {
  let precisionReason = [{
    as conv2d, which it becomes: TensorFlow's allow lists and PyTorch's
    lower-precision lists; f32 accumulation
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let summary = "gradient of conv1d with respect to its filter";
  let arguments = !con((ins Train_FloatTensor:$input,
                            Train_FloatTensor:$grad_output), Train_Conv1DAttrs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $input `,` $grad_output attr-dict `:` type($input) `,`
    type($grad_output) `->` type($result)
  }];
  let hasVerifier = 1;
}

include "mp/Dialect/Train/IR/TrainNormOps.td"
include "mp/Dialect/Train/IR/TrainLossOps.td"
include "mp/Dialect/Train/IR/TrainShapeOps.td"
include "mp/Dialect/Train/IR/TrainStepOps.td"
include "mp/Dialect/Train/IR/TrainSequenceOps.td"

#endif // MP_DIALECT_TRAIN_IR_TRAINOPS_TD
