//===- TrainLossOps.td - softmax, losses, reductions, pooling ---*- td -*-===//
//
// Included by TrainOps.td (after Train_Op); one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINLOSSOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINLOSSOPS_TD

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
    SparseCategoricalCrossentropy(from_logits=True). The rows labelled
    `ignore_index` (any value, a class among them: a padding token 0) count
    neither in the sum nor in N (PyTorch's ignore_index; all rows ignored
    gives NaN); any other label outside [0, C) is a runtime error.
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

def Train_LogSumExpOp : Train_ReduceOp<"logsumexp",
    "log(sum(exp(x))) over `dims`, max-subtracted"> {
  let precisionReason = [{
    exp and a sum: PyTorch's fp32 list (logsumexp, exp, sum); the sum
    accumulates in f64
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
}

def Train_ArgMaxOp : Train_Op<"argmax"> {
  let precisionReason = [{
    a comparison: any float dtype gives the same index (TF clear list: Max)
  }];
  let precisionCategory = "Clear";
  let convertibleResults = "false";
  let summary = "the index of the first maximum along `dim` (i64)";
  let description = [{
    A NaN counts as the maximum (torch.argmax): the first NaN's index. With
    `keep_dims` the dimension stays with size 1.
  }];
  let arguments = (ins Train_FloatTensor:$x, I64Attr:$dim,
                       UnitAttr:$keep_dims);
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
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

def Train_AdaptiveAvgPool2DOp : Train_Op<"adaptive_avg_pool2d"> {
  let precisionReason = [{TF infer list (AvgPool(Grad))}];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let summary = "average pooling to the result's spatial size (nn.AdaptiveAvgPool2d)";
  let description = [{
    Output row i averages input rows [floor(i H / OH), ceil((i + 1) H / OH))
    (PyTorch's windows; columns alike), summed in f64. Where OH divides H
    and OW divides W, mp-decompose rewrites it to avg_pool2d with kernel =
    strides = (H / OH, W / OW), which every backend runs.
  }];
  let arguments = (ins Train_FloatTensor:$x, Train_Layout:$layout);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$layout $x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AdaptiveAvgPool2DGradOp : Train_Op<"adaptive_avg_pool2d_grad"> {
  let precisionReason = [{TF infer list (AvgPool(Grad))}];
  let precisionCategory = "Infer";
  let summary = "spreads each output gradient evenly over its adaptive window";
  let description = [{
    The result's type gives the input's shape; overlapping windows add up.
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_Layout:$layout);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $grad attr-dict `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_TRAIN_IR_TRAINLOSSOPS_TD
