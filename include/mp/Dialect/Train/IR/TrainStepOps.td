//===- TrainStepOps.td - grad seed, optimizers, per-step state --*- td -*-===//
//
// Included by TrainOps.td (after Train_Op); one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINSTEPOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINSTEPOPS_TD


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

def Train_GradientOp : Train_Op<"gradient", [SameOperandsAndResultType]> {
  let precisionReason = [{
    the gradient enters the update, an fp32 island (master weights): the
    elementwise ops after it follow it in f32, and a 16-bit producer's
    cast folds into the producer (an f32 accumulator, as for train.sgd)
  }];
  let precisionCategory = "Deny";
  let summary = "marks the gradient of a parameter where its update begins";
  let description = [{
    The identity. An optimizer written as elementwise ops (RMSprop, Adagrad,
    Lion, ...) reads its gradient through this op, so that loss scaling
    finds the gradients without guessing: it unscales and checks the
    marked values and moves the update after the check, and a skipped step
    keeps the state the update would have changed. `mp-fuse-optimizers`
    rewrites the elementwise forms of SGD and SGD with momentum into
    `train.sgd` / `train.sgd_momentum`; plans run the marker as a view.
  }];
  let arguments = (ins Train_FloatTensor:$grad);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad)";
}

def Train_AllReduceOp : Train_Op<"all_reduce"> {
  let precisionReason = [{
    the reduced gradients enter the update, an fp32 island (master weights):
    reduced in f32, as PyTorch DDP reduces its fp32 gradients
  }];
  let precisionCategory = "Deny";
  let summary = "averages tensors over the ranks of a data-parallel step";
  let description = [{
    Each result is its operand summed over every rank of the job, divided
    by the number of ranks when `mean` is set (the default): the gradients
    of a global batch from each rank's part of it. One bucket of
    gradients per op. In one process, the identity. The runtime starts the
    reduction when the op is reached, without waiting, and waits for it
    before the first op that reads a result (docs/distributed.md), so that
    it runs while the rest of the backward pass computes.

    `reduce_dtype` is what travels between the ranks. f32 (the default):
    the operands as they are. bf16: each rank divides its operands by the
    number of ranks in f32, rounds them to bf16 once, and the ranks sum
    bf16 values (each partial sum rounded to bf16, as NCCL's and PyTorch's
    bf16 compression hook's sums are); the result is widened back to f32.
    Half the bytes, at the error docs/distributed.md bounds. The operands
    and results stay f32 either way (the master gradients).
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$inputs,
                       DefaultValuedAttr<BoolAttr, "true">:$mean,
                       DefaultValuedAttr<Train_ReduceDType,
                           "::mp::train::ReduceDType::f32">:$reduce_dtype);
  let results = (outs Variadic<Train_FloatTensor>:$results);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

def Train_RankBroadcastOp : Train_Op<"rank_broadcast"> {
  let precisionReason = [{
    the tensors broadcast are state the step keeps in f32 (batch norm's
    running statistics): they stay as they are
  }];
  let precisionCategory = "Deny";
  let summary = "every rank takes rank 0's tensors";
  let description = [{
    Each result is rank 0's operand on every rank of the job; in one
    process, the identity. A data-parallel step broadcasts the buffers it
    updates (batch norm's running statistics, computed by each rank from
    its own part of the batch) so that every rank keeps rank 0's, as
    PyTorch DDP's `broadcast_buffers` does (docs/distributed.md). Started
    when reached, without waiting; the step waits for it before the first
    op that reads a result, or at its end.
  }];
  let arguments = (ins Variadic<Train_AnyTensor>:$inputs);
  let results = (outs Variadic<Train_AnyTensor>:$results);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

// ZeRO-1 (data-parallel=zero1, docs/distributed.md): a tensor of n
// elements seen flat and cut into world_size shards of s = ceil(n /
// world_size) elements, the last padded with zeros; rank r owns elements
// [r s, (r + 1) s).

def Train_ReduceScatterOp : Train_Op<"reduce_scatter"> {
  let precisionReason = [{
    the reduced gradients enter the update, an fp32 island (master weights):
    reduced in f32, as PyTorch's ZeroRedundancyOptimizer reduces its fp32
    gradients
  }];
  let precisionCategory = "Deny";
  let summary = "this rank's shard of the mean of tensors over the ranks";
  let description = [{
    Each result is this rank's shard of its operand averaged over the
    `world_size` ranks of the job (the sum divided by `world_size`): the
    part of the global batch's gradient that this rank's optimizer state
    updates. One bucket of gradients per op. Started when reached, without
    waiting; the step waits for it before the first op that reads a result.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$inputs,
                       I64Attr:$world_size);
  let results = (outs Variadic<Train_FloatTensor>:$results);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

def Train_RankShardOp : Train_Op<"rank_shard"> {
  let precisionReason = [{
    the shards are of f32 master weights, read by the optimizer, an fp32
    island
  }];
  let precisionCategory = "Deny";
  let summary = "this rank's shard of tensors every rank holds whole";
  let description = [{
    Each result is this rank's shard of its operand, which is the same on
    every rank (a parameter): a copy, no communication. In one process of
    a one-rank plan, the operand flattened.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$inputs,
                       I64Attr:$world_size);
  let results = (outs Variadic<Train_FloatTensor>:$results);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

def Train_AllGatherOp : Train_Op<"all_gather"> {
  let precisionReason = [{
    the shards gathered are updated f32 master weights: they stay f32
  }];
  let precisionCategory = "Deny";
  let summary = "whole tensors from every rank's shard of them";
  let description = [{
    Each result is the tensor whose shard on rank r is rank r's operand
    (the padding dropped): the parameters every rank's optimizer updated
    in part, whole again on every rank for the next step.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$inputs,
                       I64Attr:$world_size);
  let results = (outs Variadic<Train_FloatTensor>:$results);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

def Train_AllRanksOp : Train_Op<"all_ranks", [SameOperandsAndResultType]> {
  let precisionReason = [{a verdict: i1, no float type to choose}];
  let precisionCategory = "Deny";
  let summary = "true where the operand is true on every rank";
  let description = [{
    The logical and of a 0-d i1 over the ranks of the job. A ZeRO-1 step
    checks the gradient shards it owns; the verdict that decides whether
    every rank applies the step is every rank's together.
  }];
  let arguments = (ins 0DTensorOf<[I1]>:$verdict);
  let results = (outs 0DTensorOf<[I1]>:$result);
  let assemblyFormat = "$verdict attr-dict `:` type($verdict)";
}

def Train_SgdOp : Train_Op<"sgd", [Train_OptimizerOpInterface,
    AllTypesMatch<["param", "grad", "new_param"]>]> {
  let precisionReason = [{the optimizer is an fp32 island: master weights}];
  let precisionCategory = "Deny";
  let summary = "plain SGD: p - lr * (g + weight_decay * p)";
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                       OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       Optional<Train_ScalarF32>:$learning_rate);
  let results = (outs Train_FloatTensor:$new_param);
  let assemblyFormat = [{
    $param `,` $grad (`lr` $learning_rate^)? attr-dict `:` type($param)
  }];
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
                       Train_FloatTensor:$momentum_buffer,
                       OptionalAttr<F64Attr>:$lr, F64Attr:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$nesterov,
                       Optional<Train_ScalarF32>:$learning_rate);
  let results = (outs Train_FloatTensor:$new_param,
                      Train_FloatTensor:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad `,` $momentum_buffer (`lr` $learning_rate^)? attr-dict
    `:` type($param)
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
                       Train_StepTensor:$step, OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$epsilon,
                       DefaultValuedAttr<F64Attr, defaultDecay>:$weight_decay,
                       Optional<Train_ScalarF32>:$learning_rate);
  let results = (outs Train_FloatTensor:$new_param,
                      Train_FloatTensor:$new_exp_avg,
                      Train_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step
    (`lr` $learning_rate^)? attr-dict `:` type($param) `,` type($step)
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

//===----------------------------------------------------------------------===//
// State that changes per step: schedules, clipping, dropout
//===----------------------------------------------------------------------===//

def Train_LrScheduleOp : Train_Op<"lr_schedule"> {
  let precisionReason = [{
    a learning rate is a scalar computed in double and kept f32: it has no
    place in a 16-bit type
  }];
  let precisionCategory = "Deny";
  let summary = "the learning rate after `step` steps: a warm-up, then a decay";
  let description = [{
    `step` counts the steps done before this one (0 at the first step: the
    step counter as the step receives it). With w = warmup_steps, s0 =
    warmup_start_factor and D = decay_steps:

      t < w:  factor = s0 + (1 - s0) * r, r = t / w (linear) or
              (1 - cos(pi * t / w)) / 2 (cosine)
      t >= w: u = t - w and, by `decay`,
              constant     1
              linear       1 + (end_factor - 1) * min(u, D) / D
              cosine       end_factor + (1 - end_factor) *
                           (1 + cos(pi * min(u, D) / D)) / 2
              step         gamma ^ floor(u / D)
              exponential  gamma ^ u

    lr = base_lr * factor, in double, rounded to f32 once. The linear and
    cosine decays hold `end_factor` after D steps (Keras' CosineDecay;
    PyTorch's CosineAnnealingLR would rise again). PyTorch's LinearLR,
    CosineAnnealingLR, StepLR, ExponentialLR, a SequentialLR of a warm-up
    and one of them, and OneCycleLR's two phases are all of this form.
  }];
  let arguments = (ins Train_CounterTensor:$step, F64Attr:$base_lr,
                       DefaultValuedAttr<I64Attr, "0">:$warmup_steps,
                       DefaultValuedAttr<F64Attr, "0.0">:$warmup_start_factor,
                       DefaultValuedAttr<Train_WarmupShape,
                           "::mp::train::WarmupShape::linear">:$warmup,
                       DefaultValuedAttr<Train_DecayShape,
                           "::mp::train::DecayShape::constant">:$decay,
                       DefaultValuedAttr<I64Attr, "1">:$decay_steps,
                       DefaultValuedAttr<F64Attr, "0.0">:$end_factor,
                       DefaultValuedAttr<F64Attr, "1.0">:$gamma);
  let results = (outs Train_ScalarF32:$lr);
  let assemblyFormat = [{
    $step (`warmup` $warmup^)? (`decay` $decay^)? attr-dict `:` type($step)
  }];
  let hasVerifier = 1;
}

def Train_ClipGradNormOp : Train_Op<"clip_grad_norm", [
    Train_GradientTransformOpInterface,
    RangedTypesMatchWith<"every clipped gradient has its gradient's type",
                         "grads", "clipped", "$_self">]> {
  let precisionReason = [{
    a norm over every gradient of the model: a reduction, fp32 with a
    double accumulator
  }];
  let precisionCategory = "Deny";
  let summary = "scales all gradients so that their global norm is at most max_norm";
  let description = [{
    total = (sum over every element of every gradient of |g|^p)^(1/p) (p =
    norm_type; max |g| for p = inf), accumulated in double; every gradient
    is multiplied by min(1, max_norm / (total + 1e-6)) (PyTorch's
    clip_grad_norm_). `total_norm` is the norm before clipping.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$grads, F64Attr:$max_norm,
                       DefaultValuedAttr<F64Attr, "2.0">:$norm_type);
  let results = (outs Variadic<Train_FloatTensor>:$clipped,
                      Train_ScalarF32:$total_norm);
  let assemblyFormat = "$grads attr-dict `:` type($grads)";
  let hasVerifier = 1;
}

def Train_ClipGradNormShardsOp : Train_Op<"clip_grad_norm_shards", [
    Train_GradientTransformOpInterface,
    RangedTypesMatchWith<"every clipped gradient has its gradient's type",
                         "grads", "clipped", "$_self">]> {
  let precisionReason = [{
    a norm over every gradient of the model: a reduction, fp32 with a
    double accumulator
  }];
  let precisionCategory = "Deny";
  let summary = "clip_grad_norm of gradients sharded over the ranks (ZeRO-1)";
  let description = [{
    `train.clip_grad_norm` where each rank holds only its shards of the
    gradients (`train.reduce_scatter` under data-parallel=zero1): the norm
    is the whole gradients' on every rank. Each rank sums |g|^p over its
    shards in double (the maximum of |g| for p = inf; the padding adds
    nothing); the ranks' partial sums are gathered and added in rank
    order, so every rank computes the same norm and the same factor
    min(1, max_norm / (total + 1e-6)). Run by the session's communicator.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$grads, F64Attr:$max_norm,
                       DefaultValuedAttr<F64Attr, "2.0">:$norm_type,
                       I64Attr:$world_size);
  let results = (outs Variadic<Train_FloatTensor>:$clipped,
                      Train_ScalarF32:$total_norm);
  let assemblyFormat = "$grads attr-dict `:` type($grads)";
  let hasVerifier = 1;
}

def Train_ClipGradValueOp : Train_Op<"clip_grad_value", [
    Train_GradientTransformOpInterface,
    RangedTypesMatchWith<"every clipped gradient has its gradient's type",
                         "grads", "clipped", "$_self">]> {
  let precisionReason = [{
    it reads the gradients the optimizers read, which are fp32
  }];
  let precisionCategory = "Deny";
  let summary = "clamps every gradient element to [-clip_value, clip_value]";
  let description = [{
    PyTorch's clip_grad_value_; NaN stays NaN.
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$grads, F64Attr:$clip_value);
  let results = (outs Variadic<Train_FloatTensor>:$clipped);
  let assemblyFormat = "$grads attr-dict `:` type($grads)";
  let hasVerifier = 1;
}

class Train_DropoutBase<string mnemonic, string what>
    : Train_Op<mnemonic, [AllTypesMatch<["x", "result"]>]> {
  let summary = what;
  let arguments = (ins Train_FloatTensor:$x, Train_CounterTensor:$key,
                       Train_CounterTensor:$counter, F64Attr:$p,
                       DefaultValuedAttr<I64Attr, "0">:$site,
                       OptionalAttr<DenseI64ArrayAttr>:$mask_shape);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $key `,` $counter attr-dict `:` type($x) `,` type($key) `,`
    type($counter)
  }];
  let hasVerifier = 1;
}

def Train_DropoutOp : Train_DropoutBase<"dropout",
    "zeroes elements with probability p and scales the rest by 1 / (1 - p)"> {
  let precisionReason = [{
    elementwise: takes its input's dtype (the mask is integer arithmetic)
  }];
  let precisionCategory = "Infer";
  let description = [{
    The mask is Philox 4x32-10 (Salmon et al., 2011) keyed by `key` (its
    low and high 32 bits) at the counter (element index / 4, site, counter
    low, counter high): element i is kept when word i % 4 is at least
    ceil(p * 2^32). `counter` is the step counter, `site` tells the dropout
    ops of one step apart: the same key, counter and site give the same
    mask on every backend, and a step resumed from a checkpoint the same
    mask as the step it replays. A kept element is x * f32(1 / (1 - p)) in
    f32, rounded to the result's dtype.

    `mask_shape` (x's rank; each dimension x's or 1) draws one mask
    element per position of that shape, shared along its size-1
    dimensions: Keras' noise_shape (SpatialDropout: one draw per sample
    and channel), stochastic depth ([N, 1, ...]: one per sample). Element
    i of the mask is then word i % 4 of block i / 4, i its index in
    mask_shape. Absent, the mask has x's shape.
  }];
}

def Train_DropoutGradOp : Train_DropoutBase<"dropout_grad",
    "the gradient of train.dropout: dx = the same mask applied to dy"> {
  let precisionReason = [{
    elementwise: takes its input's dtype, like the dropout it reverses
  }];
  let precisionCategory = "Infer";
  let description = [{
    Regenerates the forward pass's mask from the same key, counter, site
    and p (nothing is stored between the passes): x is the gradient of the
    dropout's result.
  }];
}

#endif // MP_DIALECT_TRAIN_IR_TRAINSTEPOPS_TD
