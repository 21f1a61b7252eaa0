//===- TrainNormOps.td - batch, layer, RMS and group normalization -*- td -*-===//
//
// Included by TrainOps.td (after Train_Op); one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINNORMOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINNORMOPS_TD

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

def Train_RmsNormOp : Train_Op<"rms_norm", [
    AllTypesMatch<["x", "y"]>]> {
  let precisionReason = [{
    as layer_norm: only `x`/`y` (and `grad_y`, `grad_x`) follow; the scale
    and the saved statistic stay f32, the mean square is accumulated in f64
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index == 0"; let convertibleResults = "index == 0";
  let summary = "RMS normalization over dimensions [axis, rank)";
  let description = [{
    y = x * inv_rms * scale with inv_rms = 1 / sqrt(mean(x^2) + epsilon)
    over the normalized dimensions (PyTorch's nn.RMSNorm, LLaMA's RMSNorm);
    `scale` has the normalized shape x.shape[axis:], `inv_rms` (saved for
    rms_norm_grad) x.shape[:axis].
  }];
  let arguments = (ins Train_FloatTensor:$x, Train_FloatTensor:$scale,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1e-6">:$epsilon);
  let results = (outs Train_FloatTensor:$y, Train_FloatTensor:$inv_rms);
  let assemblyFormat = [{
    $x `,` $scale attr-dict `:` type($x) `,` type($scale) `->` type($inv_rms)
  }];
  let hasVerifier = 1;
}

def Train_RmsNormGradOp : Train_Op<"rms_norm_grad", [
    AllTypesMatch<["grad_y", "x", "grad_x"]>,
    AllTypesMatch<["scale", "grad_scale"]>]> {
  let precisionReason = [{
    as layer_norm: only `x`/`y` (and `grad_y`, `grad_x`) follow; the scale
    and the saved statistic stay f32, the mean square is accumulated in f64
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index <= 1"; let convertibleResults = "index == 0";
  let summary = "gradients of rms_norm";
  let description = [{
    With xhat = x * inv_rms and g = grad_y * scale, per row:
    grad_x = inv_rms * (g - xhat * mean(g * xhat)); grad_scale sums
    grad_y * xhat over the rows.
  }];
  let arguments = (ins Train_FloatTensor:$grad_y, Train_FloatTensor:$x,
                       Train_FloatTensor:$scale, Train_FloatTensor:$inv_rms,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Train_FloatTensor:$grad_x, Train_FloatTensor:$grad_scale);
  let assemblyFormat = [{
    $grad_y `,` $x `,` $scale `,` $inv_rms attr-dict `:` type($x) `,`
    type($scale) `,` type($inv_rms)
  }];
  let hasVerifier = 1;
}

def Train_GroupNormOp : Train_Op<"group_norm", [
    AllTypesMatch<["x", "y"]>, AllTypesMatch<["scale", "offset"]>,
    AllTypesMatch<["mean", "inv_std"]>]> {
  let precisionReason = [{
    as layer_norm: only `x`/`y` (and `grad_y`, `grad_x`) follow; scale,
    offset and the saved statistics stay f32, the statistics are accumulated
    in f64
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index == 0"; let convertibleResults = "index == 0";
  let summary = "group normalization: statistics per sample and group of channels";
  let description = [{
    x [N, ..., C, ...] with its channels at `feature_dim` (1: PyTorch's
    nn.GroupNorm on NCHW; rank - 1: Keras' GroupNormalization on channels
    last) in `groups` groups of C / groups consecutive channels; mean and
    inv_std = 1 / sqrt(var + epsilon) (biased variance) over every element
    of a sample in a group, y = (x - mean) * inv_std * scale[c] + offset[c].
    `scale`, `offset`: [C]; `mean`, `inv_std` (saved for group_norm_grad):
    [N, groups]. groups = C is instance norm, groups = 1 layer norm over
    all of a sample with per-channel affine.
  }];
  let arguments = (ins Train_FloatTensor:$x, Train_FloatTensor:$scale,
                       Train_FloatTensor:$offset, I64Attr:$groups,
                       DefaultValuedAttr<I64Attr, "1">:$feature_dim,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Train_FloatTensor:$y, Train_FloatTensor:$mean,
                      Train_FloatTensor:$inv_std);
  let assemblyFormat = [{
    $x `,` $scale `,` $offset attr-dict `:` type($x) `,` type($scale) `->`
    type($mean)
  }];
  let hasVerifier = 1;
}

def Train_GroupNormGradOp : Train_Op<"group_norm_grad", [
    AllTypesMatch<["grad_y", "x", "grad_x"]>,
    AllTypesMatch<["scale", "grad_scale", "grad_offset"]>,
    AllTypesMatch<["mean", "inv_std"]>]> {
  let precisionReason = [{
    as layer_norm: only `x`/`y` (and `grad_y`, `grad_x`) follow; scale,
    offset and the saved statistics stay f32, the statistics are accumulated
    in f64
  }];
  let precisionCategory = "Infer"; let wideAccumulator = 1;
  let convertibleOperands = "index <= 1"; let convertibleResults = "index == 0";
  let summary = "gradients of group_norm";
  let description = [{
    With xhat = (x - mean) * inv_std and g = grad_y * scale[c], over the
    elements of each (sample, group): grad_x = inv_std * (g - mean(g) -
    xhat * mean(g * xhat)); grad_scale[c] sums grad_y * xhat and
    grad_offset[c] grad_y over everything but the channel.
  }];
  let arguments = (ins Train_FloatTensor:$grad_y, Train_FloatTensor:$x,
                       Train_FloatTensor:$scale, Train_FloatTensor:$mean,
                       Train_FloatTensor:$inv_std, I64Attr:$groups,
                       DefaultValuedAttr<I64Attr, "1">:$feature_dim);
  let results = (outs Train_FloatTensor:$grad_x, Train_FloatTensor:$grad_scale,
                      Train_FloatTensor:$grad_offset);
  let assemblyFormat = [{
    $grad_y `,` $x `,` $scale `,` $mean `,` $inv_std attr-dict `:` type($x)
    `,` type($scale) `,` type($mean)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_TRAIN_IR_TRAINNORMOPS_TD
