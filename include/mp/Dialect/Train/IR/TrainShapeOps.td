//===- TrainShapeOps.td - embedding, shape ops, constants -------*- td -*-===//
//
// Included by TrainOps.td (after Train_Op); one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINSHAPEOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINSHAPEOPS_TD

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

def Train_GatherOp : Train_Op<"gather",
                              [AllElementTypesMatch<["x", "result"]>]> {
  let precisionReason = [{
    TF clear list (Neg, Relu(Grad), Maximum, Select, Max, MaxPool(Grad),
    Gather, Reshape, Transpose, BroadcastTo, Slice, Concat, Fill)
  }];
  let precisionCategory = "Clear";
  let summary = "takes slices of `x` along `axis` at `indices` (index_select, tf.gather)";
  let description = [{
    x [A..., N, B...] with A of rank `axis`, indices [I...] ->
    [A..., I..., B...]: result[a, i, b] = x[a, indices[i], b]. Rank-1
    indices are torch.index_select; `embedding` is axis 0 of a rank-2
    table. Any dtype (the kernel copies bits); an index outside [0, N) is
    an error at run time.
  }];
  let arguments = (ins Train_AnyTensor:$x, Train_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = [{
    $x `,` $indices attr-dict `:` type($x) `,` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Train_GatherGradOp : Train_Op<"gather_grad"> {
  let precisionReason = [{
    scatter-add accumulates; PyTorch promotes `scatter_add`
  }];
  let precisionCategory = "Deny"; let wideAccumulator = 1;
  let summary = "scatter-adds the gradient of a gather into zeros of x's shape";
  let description = [{
    result [A..., N, B...] (its type gives N), grad [A..., I..., B...]:
    result[a, n, b] = sum over i with indices[i] = n of grad[a, i, b]
    (torch's index_add into zeros), summed in f32 in index order.
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_IndexTensor:$indices,
                       I64Attr:$axis);
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

def Train_PadOp : Train_Op<"pad", [AllElementTypesMatch<["x", "result"]>]> {
  let precisionReason = [{
    a copy next to a constant: exact in every dtype (the constant rounds to
    it once)
  }];
  let precisionCategory = "Clear";
  let summary = "pads with a constant: `low` / `high` elements before / after each dimension";
  let description = [{
    result.shape[d] = low[d] + x.shape[d] + high[d] (padding >= 0; its
    gradient is train.slice at offsets `low`). `value` rounds to the
    dtype once; an integer tensor needs an integral value in its range.
  }];
  let arguments = (ins Train_AnyTensor:$x, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Train_OneHotOp : Train_Op<"one_hot"> {
  let precisionReason = [{
    zeros and ones: exact in every float type
  }];
  let precisionCategory = "Clear";
  let summary = "indices [I...] -> [I..., C]: 1 at each index, 0 elsewhere";
  let description = [{
    C is the result's last dimension; an index outside [0, C) is an error
    at run time (F.one_hot's).
  }];
  let arguments = (ins Train_IndexTensor:$indices);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$indices attr-dict `:` type($indices) `->` type($result)";
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

#endif // MP_DIALECT_TRAIN_IR_TRAINSHAPEOPS_TD
