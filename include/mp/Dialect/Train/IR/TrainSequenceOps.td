//===- TrainSequenceOps.td - attention and recurrent cells -----*- td -*-===//
//
// Included by TrainOps.td (after Train_Op); one family of ops per file.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_TRAIN_IR_TRAINSEQUENCEOPS_TD
#define MP_DIALECT_TRAIN_IR_TRAINSEQUENCEOPS_TD

//===----------------------------------------------------------------------===//
// Scaled dot-product attention
//===----------------------------------------------------------------------===//

defvar Train_AttentionDoc = [{
  With `query` [B..., Tq, D], `key` [B..., Tk, D] and `value`
  [B..., Tk, Dv] (the same batch dimensions B..., e.g. [batch, heads]):
  `scores = scale * query @ key^T` ([B..., Tq, Tk]; `scale` defaults to
  1/sqrt(D)), then the masks, then `softmax(scores) @ value`
  ([B..., Tq, Dv]). `causal` excludes key j from query i where j > i (the
  top-left-aligned lower triangle, PyTorch's `is_causal`). The optional
  `mask` broadcasts (aligned at the last dimension; each dimension equal to
  the scores' or 1) to [B..., Tq, Tk]: an i1 mask keeps the keys where it
  is true (PyTorch's boolean `attn_mask`, Keras' `attention_mask`), a float
  mask is added to the scores. A query whose keys are all excluded gets
  NaN, as the softmax of an all -inf row does (PyTorch's math kernel).
  The reference kernel is the definition (every sum in f64, the softmax
  in f64); mp-decompose rewrites the op into matmul, mul, select / add
  and softmax, which every backend runs.
}];

def Train_AttentionOp : Train_Op<"attention", [
    AllElementTypesMatch<["query", "key", "value", "result"]>]> {
  let precisionReason = [{
    PyTorch's autocast lower-precision list (scaled_dot_product_attention):
    the two products in 16 bits with f32 accumulation; the scaling, the
    masks and the softmax between them in f32 (mp-decompose pins them)
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let convertibleOperands = "index < 3";
  let summary = "scaled dot-product attention with an optional causal or "
                "explicit mask";
  let description = Train_AttentionDoc;
  let arguments = (ins Train_FloatTensor:$query, Train_FloatTensor:$key,
                       Train_FloatTensor:$value,
                       Optional<Train_AnyTensor>:$mask, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict `:` type($query)
    `,` type($key) `,` type($value) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Train_AttentionGradOp : Train_Op<"attention_grad", [
    AllTypesMatch<["query", "grad_query"]>,
    AllTypesMatch<["key", "grad_key"]>,
    AllTypesMatch<["value", "grad_value"]>,
    AllElementTypesMatch<["grad", "query", "key", "value"]>]> {
  let precisionReason = [{
    PyTorch's autocast lower-precision list (scaled_dot_product_attention):
    the two products in 16 bits with f32 accumulation; the scaling, the
    masks and the softmax between them in f32 (mp-decompose pins them)
  }];
  let precisionCategory = "Allow"; let wideAccumulator = 1;
  let convertibleOperands = "index < 4";
  let summary = "gradients of train.attention for query, key and value";
  let description = [{
    `grad` is the gradient of the attention's result; the other operands
    and attributes are the forward's. With P the softmax of the masked,
    scaled scores and dS = P * (grad @ value^T - rowsum(P * (grad @
    value^T))): grad_value = P^T @ grad, grad_query = scale * dS @ key,
    grad_key = scale * dS^T @ query. The mask gets no gradient. The
    reference kernel recomputes P (f64); mp-decompose shares the forward's
    P where the forward attention on the same operands comes first.
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$query,
                       Train_FloatTensor:$key, Train_FloatTensor:$value,
                       Optional<Train_AnyTensor>:$mask, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs Train_FloatTensor:$grad_query,
                      Train_FloatTensor:$grad_key,
                      Train_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $grad `,` $query `,` $key `,` $value (`mask` $mask^)? attr-dict `:`
    type($grad) `,` type($query) `,` type($key) `,` type($value)
    (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Recurrent cells
//===----------------------------------------------------------------------===//

defvar Train_CellReason = [{
  the gate products are train.matmul (allow); the cell is elementwise on
  [B, 4H] or [B, 3H], a small cost next to them, and carries the
  recurrent state: c_t = f * c_{t-1} + i * g (and GRU's z * h + (1 - z) *
  n) is a running sum over the sequence whose 16-bit increments below 2^-8
  (bf16) of the state are lost every step, so the cell and its state stay
  f32 (PyTorch's autocast runs whole cells, products included, in 16 bits)
}];

def Train_LstmCellOp : Train_Op<"lstm_cell", [
    AllTypesMatch<["c", "h_new", "c_new"]>,
    AllElementTypesMatch<["gates", "c"]>]> {
  let precisionReason = Train_CellReason;
  let precisionCategory = "Deny";
  let summary = "an LSTM cell's elementwise step from its gate "
                "pre-activations";
  let description = [{
    `gates` [B, 4H] is `x @ W_ih^T + h @ W_hh^T + biases`, in the order
    input, forget, cell, output (PyTorch's i, f, g, o and Keras' i, f, c,
    o); `c` [B, H] is the cell state. With i, f, o the sigmoids and g the
    tanh of their blocks: `c_new = f * c + i * g`, `h_new = o *
    tanh(c_new)`. The importers unroll a sequence into one cell per step.
  }];
  let arguments = (ins Train_FloatTensor:$gates, Train_FloatTensor:$c);
  let results = (outs Train_FloatTensor:$h_new, Train_FloatTensor:$c_new);
  let assemblyFormat = "$gates `,` $c attr-dict `:` type($gates) `,` type($c)";
  let hasVerifier = 1;
}

def Train_LstmCellGradOp : Train_Op<"lstm_cell_grad", [
    AllTypesMatch<["grad_h", "grad_c", "c", "c_new", "grad_c_prev"]>,
    AllTypesMatch<["gates", "grad_gates"]>,
    AllElementTypesMatch<["gates", "c"]>]> {
  let precisionReason = Train_CellReason;
  let precisionCategory = "Deny";
  let summary = "gradients of train.lstm_cell for its gates and cell state";
  let description = [{
    `grad_h` and `grad_c` are the gradients of `h_new` and `c_new` (zeros
    after the last step), `gates`, `c` and `c_new` the forward's. With
    dc = grad_c + grad_h * o * (1 - tanh(c_new)^2): the gate gradients are
    dc * g * i(1 - i), dc * c * f(1 - f), dc * i * (1 - g^2) and grad_h *
    tanh(c_new) * o(1 - o); `grad_c_prev` = dc * f.
  }];
  let arguments = (ins Train_FloatTensor:$grad_h, Train_FloatTensor:$grad_c,
                       Train_FloatTensor:$gates, Train_FloatTensor:$c,
                       Train_FloatTensor:$c_new);
  let results = (outs Train_FloatTensor:$grad_gates,
                      Train_FloatTensor:$grad_c_prev);
  let assemblyFormat = [{
    $grad_h `,` $grad_c `,` $gates `,` $c `,` $c_new attr-dict `:`
    type($gates) `,` type($c)
  }];
  let hasVerifier = 1;
}

def Train_GruCellOp : Train_Op<"gru_cell", [
    AllTypesMatch<["input_gates", "hidden_gates"]>,
    AllTypesMatch<["h", "h_new"]>,
    AllElementTypesMatch<["input_gates", "h"]>]> {
  let precisionReason = Train_CellReason;
  let precisionCategory = "Deny";
  let summary = "a GRU cell's elementwise step from its gate pre-activations";
  let description = [{
    `input_gates` [B, 3H] is `x @ W_ih^T + b_ih`, `hidden_gates` [B, 3H]
    `h @ W_hh^T + b_hh`, `h` [B, H] the state; `order` names their blocks
    (`rzn`: PyTorch's reset, update, new; `zrn`: Keras' update, reset,
    candidate with `reset_after=True`, its default). With r, z the
    sigmoids of the summed reset and update blocks, `n = tanh(x_n + r *
    h_n)` and `h_new = (1 - z) * n + z * h`.
  }];
  let arguments = (ins Train_GruGateOrder:$order,
                       Train_FloatTensor:$input_gates,
                       Train_FloatTensor:$hidden_gates, Train_FloatTensor:$h);
  let results = (outs Train_FloatTensor:$h_new);
  let assemblyFormat = [{
    $order $input_gates `,` $hidden_gates `,` $h attr-dict `:`
    type($input_gates) `,` type($h)
  }];
  let hasVerifier = 1;
}

def Train_GruCellGradOp : Train_Op<"gru_cell_grad", [
    AllTypesMatch<["grad_h", "h", "grad_h_prev"]>,
    AllTypesMatch<["input_gates", "hidden_gates", "grad_input_gates",
                   "grad_hidden_gates"]>,
    AllElementTypesMatch<["input_gates", "h"]>]> {
  let precisionReason = Train_CellReason;
  let precisionCategory = "Deny";
  let summary = "gradients of train.gru_cell for its gates and state";
  let description = [{
    `grad_h` is the gradient of `h_new`; the rest are the forward's. With
    dn = grad_h * (1 - z) * (1 - n^2): the input gates' gradients are
    (dn * h_n) * r(1 - r), grad_h * (h - n) * z(1 - z) and dn in the
    reset, update and new blocks; the hidden gates' are the same but
    dn * r in the new block; `grad_h_prev` = grad_h * z (the products'
    share is the matmuls').
  }];
  let arguments = (ins Train_GruGateOrder:$order, Train_FloatTensor:$grad_h,
                       Train_FloatTensor:$input_gates,
                       Train_FloatTensor:$hidden_gates, Train_FloatTensor:$h);
  let results = (outs Train_FloatTensor:$grad_input_gates,
                      Train_FloatTensor:$grad_hidden_gates,
                      Train_FloatTensor:$grad_h_prev);
  let assemblyFormat = [{
    $order $grad_h `,` $input_gates `,` $hidden_gates `,` $h attr-dict `:`
    type($input_gates) `,` type($h)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_TRAIN_IR_TRAINSEQUENCEOPS_TD
