//===- Passes.td - mixed-precision passes --------------------*- tablegen -*-===//
#ifndef MP_TRANSFORMS_PASSES_TD
#define MP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Options declared once: the passes list them, and so does the pipeline
// (MixedPrecisionPipeline, whose C++ options struct mp-tblgen writes from
// these same records, with copyTo() into each pass's options).
defvar PrecisionListOptions = [
    Option<"policy", "policy", "std::string", "\"mixed_bfloat16\"",
           "float32, mixed_bfloat16 or mixed_float16 (mp-compile also takes auto: the fast and safe one for this machine)">,
    Option<"target", "target", "std::string", "\"cpu\"",
           "whose default lists apply where they differ: cpu (oneDNN) or cuda">,
    Option<"policyFile", "policy-file", "std::string", "\"\"",
           "JSON file of list edits: {\"allow\": {\"add\": [...], \"remove\": [...]}, ...}">,
    ListOption<"allowAdd", "allow-add", "std::string", "op names to put on the allow list">,
    ListOption<"allowRemove", "allow-remove", "std::string", "op names to take off the allow list">,
    ListOption<"denyAdd", "deny-add", "std::string", "op names to put on the deny list">,
    ListOption<"denyRemove", "deny-remove", "std::string", "op names to take off the deny list">,
    ListOption<"inferAdd", "infer-add", "std::string", "op names to put on the infer list">,
    ListOption<"inferRemove", "infer-remove", "std::string", "op names to take off the infer list">,
    ListOption<"clearAdd", "clear-add", "std::string", "op names to put on the clear list">,
    ListOption<"clearRemove", "clear-remove", "std::string", "op names to take off the clear list">,
    Option<"residual", "residual", "std::string", "\"low\"",
           "the residual stream's adds: low (follow their 16-bit producers) or f32 (keep the stream in f32)">
];

defvar LossScaleOptions = [
    Option<"initScale", "init-scale", "double", "32768.0",
           "initial (or static) loss scale">,
    Option<"growthInterval", "growth-interval", "int64_t", "2000",
           "finite steps before the scale grows">,
    Option<"growthFactor", "growth-factor", "double", "2.0",
           "factor the scale grows by">,
    Option<"backoffFactor", "backoff-factor", "double", "0.5",
           "factor the scale shrinks by on inf/NaN">,
    Option<"minScale", "min-scale", "double", "1.0",
           "lower bound of the scale (1, as Keras; 0: none, as PyTorch)">,
    Option<"maxScale", "max-scale", "double", "3.4028234663852886e+38",
           "upper bound of the scale">
];

// A pass pipeline whose options mp-tblgen -gen-pipeline-options writes as
// a PassPipelineOptions struct (`cppName`), for `--argument="..."`.
class PassPipeline<string arg, string cpp> {
  string argument = arg;
  string cppName = cpp;
  string summary = "";
  list<Option> options = [];
}

def AssignPrecision : Pass<"mp-assign-precision", "::mlir::ModuleOp"> {
  let summary = "Decides which ops compute in 16 bits";
  let description = [{
    Paints every op of every function body low (the policy's compute dtype)
    or fp32, following the op's PrecisionOpInterface category, the target's
    default lists and the user's edits (see docs/precision.md), and records
    the decision as `mp.precision = {category, dtype, rule, source}` on each
    painted op and `mp.policy` on the function. Changes no types:
    `mp-insert-casts` does that.
  }];
  let options = PrecisionListOptions;
  // Loaded up front so that every op name in a list edit can be checked,
  // whatever dialects the input happens to use.
  let dependentDialects = ["::mp::mpd::MPDialect", "::mp::train::TrainDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tosa::TosaDialect",
                           "::mlir::func::FuncDialect"];
}

def InsertCasts : Pass<"mp-insert-casts", "::mlir::ModuleOp"> {
  let summary = "Gives painted ops their dtype and casts at the boundaries";
  let description = [{
    For every op that `mp-assign-precision` painted low: its convertible f32
    operands are read through a cast to the compute dtype and its
    convertible f32 results become 16-bit. Casts sit right after the value
    they convert and are shared: at most one per (value, target dtype), so
    an fp32 parameter used by several 16-bit ops is cast once. Constants are
    converted at compile time instead. Function signatures never change:
    results keep their declared dtypes.
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def FoldCasts : Pass<"mp-fold-casts", "::mlir::ModuleOp"> {
  let summary = "Folds widening casts into the ops that produce or consume them";
  let description = [{
    Ops that accumulate in f32 (matmul, convolutions and their gradients,
    reductions, ...) can store f32 or read 16 bits directly. A 16-bit result
    whose every user is an `mp.cast` to f32 is stored in f32 by its producer
    instead (it skips one rounding: the value is the f32 accumulator, more
    accurate than the cast of the rounded one), and an f32 operand that is
    only a widening cast of a 16-bit value is read in 16 bits (exact: the
    widening is lossless). A fold is kept only when the op's own verifier
    accepts the new types; casts left without users are erased. The runtime
    then runs no cast kernel for these values (docs/precision.md).
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def FuseOptimizers : Pass<"mp-fuse-optimizers", "::mlir::ModuleOp"> {
  let summary = "Rewrites elementwise SGD and SGD-with-momentum into the fused updates";
  let description = [{
    An optimizer written as elementwise ops on a `train.gradient` marker g
    of a parameter p (a step argument with role `param` whose new value is
    the step's result for it), with splat constants for the
    hyper-parameters (`train.fill`, or a splat `train.constant`):
      p - lr * g'                              -> train.sgd
      b' = mu * b + k * g', p - lr * b'        -> train.sgd_momentum
    where g' is g or g + wd * p (L2 weight decay), k is 1 or 1 - dampening,
    b an `opt_state` argument and b' its new value; operands of add and mul
    in either order, `sub(p, x)` or `add(p, neg(x))`. The fused op runs one
    pass over the elements instead of one per op. Anything else (RMSprop,
    Adagrad, Lion, ...) stays as written: the elementwise ops run it, loss
    scaling finds its gradient through the marker. Adam's elementwise form
    needs the step counter as a float (a conversion op the dialect does not
    have yet) and is not recognized.
  }];
}

def Decompose : Pass<"mp-decompose", "::mlir::ModuleOp"> {
  let summary = "Rewrites composite train ops into the ops every backend runs";
  let description = [{
    Decisions the user does not make: `adaptive_avg_pool2d` (and its
    gradient) whose output size divides the input's becomes `avg_pool2d`
    (`avg_pool2d_grad`) with kernel = strides = input / output and no
    padding: the same windows (PyTorch's floor / ceil bounds coincide
    then), on the backends' fast pooling kernels. Other sizes keep the
    adaptive op (overlapping windows; the reference kernel runs it).
    `conv1d` and its two gradients always become the conv2d ops on a unit
    height between `train.reshape`s (NCL / OIK as NCHW [N, C, 1, L] / OIHW
    [O, I, 1, K]; NLC / KIO as NHWC [N, 1, L, C] / HWIO [1, K, I, O]), the
    stride, padding and dilation on the width.
    `attention` becomes `matmul` (q @ k^T), `mul` by the scale, a `select`
    against -inf for the causal triangle (a `constant`) and an i1 mask, an
    `add` of a float mask (both `broadcast` to the scores, before the
    product, so that the scaling and masking are consecutive elementwise
    ops), `softmax`, and `matmul` with the values; `attention_grad` becomes the three gradient
    products and `softmax_grad`, reusing the probabilities of a forward
    attention on the same query, key, mask and attributes earlier in the
    block (recomputing them otherwise). The scaling, masking and their
    fills are pinned to f32 (`mp.force = "fp32"`, which the report shows as
    `forced-fp32`), so that a 16-bit policy keeps the products 16-bit and
    the scores f32 from the first product's f32 accumulator on, as the
    fused kernels of other frameworks do.
    A `matmul` whose batch dimensions broadcast becomes one on equal
    batches: an rhs whose batch is all 1s is reshaped to the shared rank-2
    form (no copy), any other operand whose batch differs from the
    result's is `broadcast` to it. A `matmul` operand that is a
    `transpose` (through a `reshape` of the batch dimensions only) whose
    permutation ends by exchanging the last two dimensions takes that
    exchange as its transpose flag, and what is left of the permutation,
    if anything, keeps the last dimension (copied row by row): Keras'
    MultiHeadAttention's k^T and its scores' gradient.
    An `add`, `sub`, `mul`, `div`, `maximum` or `minimum` whose operands
    are two `broadcast`s of one source shape with the same dims, or a
    `broadcast` and a `fill`, becomes the op at the source shape (a `fill`
    of that shape) and one `broadcast` of its result: exact, as each result
    element is the op on the same two values. The mean's gradient as
    PyTorch writes it (`div(broadcast(g), fill(N))`) then divides the small
    tensor and writes no full-size fill; a chain narrows in turn.
    A `reduce_sum` over exactly the batch dimensions of a batched `matmul`
    with `transpose_lhs` (x^T y per batch: TensorFlow's gradient of an
    einsum's kernel) that nothing else reads becomes one `matmul` of the
    operands reshaped to [batch * K, M] and [batch * K, N] (no copy): the
    same sum of products, without the batched result in memory.
    Discardable attributes (`mp.force`, locations) carry over. Runs first in
    the pipeline, so that the precision passes see what will run.
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def FuseEpilogues : Pass<"mp-fuse-epilogues", "::mlir::ModuleOp"> {
  let summary = "Fuses a matmul's bias add and ReLU into one mp.matmul_epilogue";
  let description = [{
    `train.matmul` -> `train.bias_add` on the last dimension (the matmul's
    only user) -> `train.relu` becomes `mp.matmul_epilogue` with the bias
    and `activation = "relu"`: the product is accumulated in f32, the bias
    added and the ReLU applied in f32, and the result rounded once. A bias
    that is an `mp.cast` of an f32 tensor to 16 bits is read in f32
    directly (one rounding fewer). The ReLU is folded when the pre-activation's only other
    users are `train.relu_grad` ops that read it as the forward input: they
    read the ReLU's output instead, which is exact (relu(z) > 0 iff z > 0,
    NaN included). A matmul followed by ReLU alone fuses too; a bias on
    another dimension, or a matmul result with other users, does not.

    The same for batch norm, whose fusion the runtime makes: the ReLU of a
    `train.batch_norm`'s y (y's only other users `train.relu_grad` ops
    reading it as the forward input) moves right after the batch norm and
    those relu_grad ops read the ReLU's output, and a `train.relu_grad`
    whose result only a `train.batch_norm_grad` reads as its grad_y moves
    right before it: the plan marks such neighbours fused activations
    (docs/plan-format.md) and the cpu backend applies the ReLU as the
    normalization writes y, or its mask as the gradient is read.
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def ChannelsLast : Pass<"mp-channels-last", "::mlir::ModuleOp"> {
  let summary = "Runs the NCHW image ops of a convolution chain in NHWC";
  let description = [{
    In every function with an NCHW `train.conv2d` (or one of its
    gradients): each NCHW image op (conv2d and its gradients, their
    filters kept OIHW with `filter_layout = OIHW`, batch_norm / batch_norm_grad over dimension 1 of a 4-D
    tensor, max / avg / global / adaptive average pooling and their
    gradients) becomes its NHWC form between transposes, and elementwise
    ops (same operand and result type, no axis; `mp.cast`) reading such a
    transpose run on the NHWC values. A transpose whose reader wants the
    other layout is looked through; a reduction of a chain value whose
    kept dimensions stay in order reduces the NHWC value; fills, broadcasts
    and single-use elementwise ops of them wanted in NHWC are made in NHWC;
    a transpose of a transpose composes, or cancels (a model's own permute
    to channels-last of a chain value is the NHWC value itself);
    the transposes nobody reads are erased, so
    transposes remain where a value enters or leaves the chain (the input
    image, ops without an NHWC form). Types, precisions and
    the step's interface are unchanged. mp-compile runs it by default
    (`--image-layout`): oneDNN's convolutions take NHWC images as they are,
    where NCHW ones are reordered on every call.
  }];
}

def RecomputeCasts : Pass<"mp-recompute-casts", "::mlir::ModuleOp"> {
  let summary = "Casts again in the backward pass what the step keeps anyway";
  let description = [{
    An `mp.cast` before `train.grad_seed` that is read on both sides of it,
    and whose source the step keeps past the seed regardless (a step
    argument with role `input`, or a value that a kernel after the seed
    reads itself), is cloned right before its first reader after the seed,
    and those readers use the clone. The forward copy then dies with the
    forward pass: the same values (a cast is deterministic), one more pass
    over the source, and the copy is no longer held across the step (the
    first layer's input, the attention probabilities kept in f32 for the
    softmax gradient). Casts of parameters are left alone (their source is
    not read after the seed; the session keeps a weight's copy anyway,
    docs/runtime.md). A widening cast before the seed that only readers
    after it use moves to right before the first of them, so that the
    narrower source is what stays live.
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def LossScaling : Pass<"mp-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Scales the backward seed and guards the optimizer updates";
  let description = [{
    In every `train.step` function: multiplies `train.grad_seed` by the loss
    scale, unscales the optimizers' gradients in f32 and checks them for
    inf/NaN in one `mp.unscale_and_check`, and selects the old params and
    optimizer state (and buffers) when a gradient was not finite. The
    dynamic scale and its growth counter become `scaler_state` arguments and
    results, updated by `mp.update_scale`, so the step stays pure.

    On upstream IR (no `train.step`), a function with a value marked
    `mp.grad_seed` (an op's attribute or an argument's) is a step whose
    gradients are its results marked `mp.gradient`: the seed is scaled, the
    gradients are unscaled and checked where they are returned, and the
    verdict is a new result marked `mp.all_finite` (the host applies the
    gradients only when it holds); dynamic scaling adds the scale and its
    growth counter as the last arguments and results (`mp.loss_scale`,
    `mp.growth_count`).
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"dynamic\"",
           "dynamic or static">
  ] # LossScaleOptions # [
    Option<"optional", "optional", "bool", "false",
           "leave a module without train.step functions alone instead of "
           "failing (the pipeline's loss-scale=auto)">
  ];
  let dependentDialects = ["::mp::mpd::MPDialect", "::mp::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
}

def GuardFinite : Pass<"mp-guard-finite", "::mlir::ModuleOp"> {
  let summary = "Makes a step without loss scaling check its gradients";
  let description = [{
    In every `train.step` function that has optimizer updates but no loss
    scaling (no `mp.unscale_and_check`): checks every gradient the
    optimizers read with one `mp.all_finite` and returns the verdict as a
    result with role `check` (named `finite_gradients`). The runtime keeps
    a step only when its checks hold: a non-finite gradient under float32
    or mixed_bfloat16 stops training with an error naming it, and no
    update is ever applied from it, where it would otherwise turn the
    weights into NaN silently. Steps that already check are left alone.
  }];
  let dependentDialects = ["::mp::mpd::MPDialect"];
}

def DataParallel : Pass<"mp-data-parallel", "::mlir::ModuleOp"> {
  let summary = "Averages a step's gradients over the ranks of a data-parallel job";
  let description = [{
    With `mode=allreduce`: in every `train.step` function, the gradients
    that enter the updates (and the clipping before them) are grouped into
    buckets in the order the backward pass makes them, each bucket closed
    once it holds `bucket-mb` MB, and each bucket reduced by one
    `train.all_reduce` (the mean over the ranks, in f32) placed right after
    its last gradient, so that the runtime reduces it while the rest of the
    backward pass computes (docs/distributed.md). The updates, the clipping
    and the loss-scaling check (a later pass) read the reduced gradients:
    every rank takes the same step and the same skip decision.
    The buffers a step updates (batch norm's running statistics, which
    each rank computes from its own part of the batch) are broadcast from
    rank 0 by one `train.rank_broadcast`, as PyTorch DDP keeps rank 0's
    (`broadcast_buffers`); with `sync-batch-norm`, batch norms and their
    gradients use the statistics of the whole global batch instead
    (SyncBatchNorm).
    With `mode=zero1` (ZeRO stage 1) and `world-size=N`: each fused
    optimizer update runs on this rank's shard of its parameter (seen flat,
    cut into N shards of ceil(n / N) elements): its gradients, in the same
    buckets, are reduced by one `train.reduce_scatter` that leaves each
    rank the mean of its own shards; its parameter's shard is taken by a
    `train.rank_shard`; its optimizer state arguments and results become
    shards (the memory that falls by N); and the updated shards are made
    whole again on every rank by one `train.all_gather` per bucket. The
    f32 parameters stay whole on every rank (PyTorch's
    ZeroRedundancyOptimizer keeps them so). A later loss-scaling check of
    the shards combines its verdict over the ranks (`train.all_ranks`).
    Clipping reads the shards: `clip_grad_value` as it is,
    `clip_grad_norm` as `train.clip_grad_norm_shards` (the norm of the
    whole gradients, every rank's partial sum combined). Optimizers
    written as elementwise ops are refused under zero1.
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"off\"",
           "off, allreduce, or zero1 (ZeRO stage 1: optimizer state "
           "sharded over world-size ranks)">,
    Option<"worldSize", "world-size", "int64_t", "0",
           "with zero1, the number of ranks the plan shards its optimizer "
           "state over (a plan runs on exactly this many)">,
    Option<"bucketMb", "bucket-mb", "double", "25.0",
           "bucket size in MB (10^6 bytes of f32 gradients; PyTorch DDP's "
           "default is 25)">,
    Option<"reduceDtype", "reduce-dtype", "std::string", "\"f32\"",
           "what the reductions send between ranks: f32, or bf16 (divided "
           "by the number of ranks before the sum; half the bytes)">,
    Option<"syncBatchNorm", "sync-batch-norm", "bool", "false",
           "batch norm with the statistics of the whole global batch "
           "(SyncBatchNorm); by default each rank's own, with rank 0's "
           "running statistics kept (PyTorch DDP)">,
  ];
  let dependentDialects = ["::mp::train::TrainDialect"];
}

def PrecisionReport : Pass<"mp-precision-report", "::mlir::ModuleOp"> {
  let summary = "Reports what the precision passes did";
  let description = [{
    Reads the `mp.precision` annotations and the casts in the IR and reports,
    per function, "converted N/M ops to bf16 with K casts" and which ops
    stayed fp32 (as a remark with `summary`), and per op its location, name,
    category, final dtype and deciding rule (as JSON with `json=FILE`; `-`
    is stdout). Removes the per-op annotations unless `keep-annotations`.
  }];
  let options = [
    Option<"summary", "summary", "bool", "false",
           "emit the one-line summary as a remark on each function">,
    Option<"jsonFile", "json", "std::string", "\"\"",
           "write the JSON report to this file (- for stdout)">,
    Option<"keepAnnotations", "keep-annotations", "bool", "false",
           "keep the per-op mp.precision annotations">,
  ];
}

def LowerToUpstream : Pass<"mp-lower-to-upstream", "::mlir::ModuleOp"> {
  let summary = "Rewrites mp's casts into arith and drops mp's annotations";
  let description = [{
    For compilers that take mp's decisions without mp's dialects: every
    `mp.cast` becomes `arith.truncf` or `arith.extf` on the same tensor (a
    cast between bf16 and f16 goes through f32), and every discardable
    attribute named `mp.*` (the precision annotations, `mp.force`) is
    dropped, so that the output of the pipeline on upstream IR (linalg,
    arith, math, tensor, tosa, scf, cf) contains upstream ops only and
    parses in any tool of the same MLIR version. Loss scaling of an
    upstream step (`mp.scale`, `mp.unscale_and_check`, `mp.update_scale`)
    becomes linalg.generic, arith, math.isfinite and tensor ops with the
    runtime's semantics; the function's argument and result attributes
    (`mp.gradient`, `mp.all_finite`, `mp.loss_scale`, `mp.growth_count`)
    stay as its interface. An mp or train op that has no upstream form
    (`mp.select` of a train step, `mp.matmul_epilogue`, any `train` op) is
    an error naming it: such IR is mp's own and goes to mp-compile.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"castOp", "cast-op", "std::string", "\"arith\"",
           "the casts to make: arith (the only one; the pipeline's cast-op "
           "passes its value, so a misspelt one is an error here)">,
  ];
}

def MixedPrecisionPipeline
    : PassPipeline<"mp-mixed-precision", "MixedPrecisionOptions"> {
  let summary = "Options of the whole pipeline";
  let options = PrecisionListOptions # [
    Option<"lossScale", "loss-scale", "std::string", "\"auto\"",
           "auto (dynamic for mixed_float16, none otherwise), dynamic, "
           "static or none">,
  ] # LossScaleOptions # [
    Option<"dataParallel", "data-parallel", "std::string", "\"off\"",
           "off, allreduce (average the gradients over the ranks of an "
           "mpirun job) or zero1 (reduce-scatter them to the rank that owns "
           "their optimizer state; needs world-size) (mp-data-parallel, "
           "docs/distributed.md)">,
    Option<"worldSize", "world-size", "int64_t", "0",
           "with data-parallel=zero1, the number of ranks the optimizer "
           "state is sharded over">,
    Option<"bucketMb", "bucket-mb", "double", "25.0",
           "with data-parallel, the gradient bucket size in MB">,
    Option<"reduceDtype", "reduce-dtype", "std::string", "\"f32\"",
           "with data-parallel, what the reductions send between ranks: "
           "f32 or bf16 (docs/distributed.md)">,
    Option<"syncBatchNorm", "sync-batch-norm", "bool", "false",
           "with data-parallel, batch statistics over every rank "
           "(SyncBatchNorm); by default per rank, rank 0's running "
           "statistics">,
    Option<"checkFinite", "check-finite", "bool", "true",
           "without loss scaling, check the gradients and fail a step whose "
           "gradients are not finite (mp-guard-finite)">,
    Option<"foldCasts", "fold-casts", "bool", "true",
           "fold widening casts into the f32-accumulating ops that produce "
           "or consume them (mp-fold-casts)">,
    Option<"recomputeCasts", "recompute-casts", "bool", "true",
           "cast again in the backward pass what the step keeps anyway, "
           "instead of holding the copy (mp-recompute-casts)">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "fuse matmul + bias_add (+ relu) into mp.matmul_epilogue "
           "(mp-fuse-epilogues)">,
    Option<"jsonFile", "report", "std::string", "\"\"",
           "write the JSON report here (- for stdout)">,
    Option<"summary", "summary", "bool", "false",
           "print the one-line summary">,
    Option<"keepAnnotations", "keep-annotations", "bool", "false",
           "keep the per-op mp.precision annotations (mp-compile does, to "
           "record each kernel's decision in the plan)">,
    Option<"castOp", "cast-op", "std::string", "\"mp\"",
           "the casts of the output: 'mp' (mp.cast, what mp-compile reads) "
           "or 'arith' (arith.truncf / arith.extf and no mp annotations: "
           "upstream-only output, mp-lower-to-upstream)">,
  ];
}

#endif // MP_TRANSFORMS_PASSES_TD
