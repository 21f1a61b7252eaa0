"""The layers of the example steps, forward and backward, on step_ir's
emitter: Linear, LayerNorm, ConvBnRelu, attention's head split and merge,
Adam's state and update, the loss and its seed (generate.py, causal_lm.py,
separable_cnn.py and the bench graphs use them).

Standard library only.
"""

# ===----------------------------------------------------------------------===
# Layers: forward and backward helpers
# ===----------------------------------------------------------------------===


class Linear:
    """y = x @ weight + bias with weight [in, out]; x is [..., in]."""

    def __init__(self, step, name, d_in, d_out):
        self.name = name
        self.weight = step.param(f"{name}.weight", (d_in, d_out))
        self.bias = step.param(f"{name}.bias", (d_out,))

    def params(self):
        return [self.weight, self.bias]

    def forward(self, e, x, hint):
        h = e.matmul(x, self.weight, hint + "_mm")
        return e.bias_add(h, self.bias, hint)

    def backward(self, e, x, dy, hint, need_dx=True):
        """Returns (dx or None, [d_weight, d_bias]).

        d_bias = sum of dy over every leading dimension;
        d_weight = X^T @ dY with X, dY flattened to [rows, in] / [rows, out];
        dx = dY @ W^T."""
        lead = list(range(len(dy.shape) - 1))
        d_bias = e.reduce_sum(dy, lead, f"d_{hint}_bias")
        x2, dy2 = e.flatten_2d(x), e.flatten_2d(dy)
        d_weight = e.matmul(x2, dy2, f"d_{hint}_weight", transpose_lhs=True)
        dx = (e.matmul(dy, self.weight, f"d_{hint}_in", transpose_rhs=True)
              if need_dx else None)
        return dx, [d_weight, d_bias]


class LayerNorm:
    """Layer norm over the last dimension with a weight (scale) and bias."""

    def __init__(self, step, name, d):
        self.weight = step.param(f"{name}.weight", (d,))
        self.bias = step.param(f"{name}.bias", (d,))

    def params(self):
        return [self.weight, self.bias]

    def forward(self, e, x, hint):
        """Returns [y, mean, inv_std]."""
        return e.layer_norm(x, self.weight, self.bias, hint)

    def backward(self, e, x, saved, dy, hint):
        """Returns (dx, [d_weight, d_bias]); `saved` is forward()'s result."""
        _, mean, inv_std = saved
        dx, d_w, d_b = e.layer_norm_grad(dy, x, self.weight, mean, inv_std,
                                         f"d_{hint}")
        return dx, [d_w, d_b]


class ConvBnRelu:
    """relu(batch_norm(conv2d(x, weight))), 3x3 'same' convolution without a
    bias (batch norm's offset makes one redundant)."""

    def __init__(self, step, conv, bn, c_in, c_out, k=3, groups=1, stride=1):
        self.pad, self.groups, self.stride = k // 2, groups, stride
        self.weight = step.param(f"{conv}.weight",
                                 (c_out, c_in // groups, k, k))
        self.bn_weight = step.param(f"{bn}.weight", (c_out,))
        self.bn_bias = step.param(f"{bn}.bias", (c_out,))
        # Running statistics: persistent, not trained (see the file header).
        self.bn = bn
        self.running_mean = step.state(f"{bn}.running_mean", (c_out,),
                                       role="buffer")
        self.running_var = step.state(f"{bn}.running_var", (c_out,),
                                      role="buffer")

    def params(self):
        return [self.weight, self.bn_weight, self.bn_bias]

    def forward(self, step, x, conv_hint, bn_hint):
        e = step.e
        self.x = x
        self.conv = e.conv2d(x, self.weight, conv_hint, stride=self.stride,
                             pad=self.pad, groups=self.groups)
        self.bn_out = e.batch_norm(self.conv, self.bn_weight, self.bn_bias,
                                   self.running_mean, self.running_var,
                                   bn_hint)
        y, new_mean, new_var, _, _ = self.bn_out
        step.update("buffer", f"{self.bn}.running_mean", new_mean)
        step.update("buffer", f"{self.bn}.running_var", new_var)
        self.out = e.relu(y, bn_hint + "_relu")
        return self.out

    def backward(self, e, d_out, hint, need_dx=True):
        """Returns (dx or None, [d_weight, d_bn_weight, d_bn_bias])."""
        y, _, _, saved_mean, saved_inv_std = self.bn_out
        d_y = e.relu_grad(d_out, y, f"d_{hint}_bn_out")
        d_conv, d_gamma, d_beta = e.batch_norm_grad(
            d_y, self.conv, self.bn_weight, saved_mean, saved_inv_std,
            f"d_{hint}_bn")
        d_weight = e.conv2d_backward_filter(
            self.x, d_conv, self.weight.shape, f"d_{hint}_weight",
            stride=self.stride, pad=self.pad, groups=self.groups)
        dx = (e.conv2d_backward_data(d_conv, self.weight, self.x.shape,
                                     f"d_{hint}_in", stride=self.stride,
                                     pad=self.pad, groups=self.groups)
              if need_dx else None)
        return dx, [d_weight, d_gamma, d_beta]


def split_heads(e, t, heads, hint):
    """[B, S, D] -> [B, H, S, D/H]."""
    b, s, d = t.shape
    t4 = e.reshape(t, (b, s, heads, d // heads), hint + "_bshd")
    return e.transpose(t4, (0, 2, 1, 3), hint + "_heads")


def merge_heads(e, t, hint):
    """[B, H, S, Dh] -> [B, S, H * Dh]; the inverse of split_heads."""
    b, h, s, dh = t.shape
    t4 = e.transpose(t, (0, 2, 1, 3), hint + "_bshd")
    return e.reshape(t4, (b, s, h * dh), hint)


def adam_state(step, params):
    """Adam's per-parameter moments ("<name>.exp_avg", "<name>.exp_avg_sq")
    and the shared step counter "step" (0-d i64, 0 before the first step)."""
    moments = []
    for p in params:
        name = param_name(step, p)
        moments.append((step.state(name + ".exp_avg", p.shape),
                        step.state(name + ".exp_avg_sq", p.shape)))
    return moments, step.state("step", (), dtype="i64")


def adam_update(step, params, grads, moments, step_count, lr, weight_decay,
                mnemonic="adamw"):
    """Increments the counter, then one Adam / AdamW update per parameter
    (bias corrections see t = 1, 2, ...); `lr` a number or a Value."""
    e = step.e
    one = e.constant("1", (), "i64", "one")
    new_step = e.add(step_count, one, "new_step")
    step.update("opt_state", "step", new_step)
    for p, grad, (m, v) in zip(params, grads, moments):
        name = param_name(step, p)
        new_p, new_m, new_v = e.adamw(p, grad, m, v, new_step, "new_" + name,
                                      lr=lr, weight_decay=weight_decay,
                                      mnemonic=mnemonic)
        step.update("param", name, new_p)
        step.update("opt_state", name + ".exp_avg", new_m)
        step.update("opt_state", name + ".exp_avg_sq", new_v)


def param_name(step, value):
    for v, role, name in step.args:
        if v is value:
            return name
    raise KeyError(value)


def loss_and_seed(step, logits, labels):
    """The loss section, then the seed of the backward pass and dL/dlogits."""
    e = step.e
    e.section("loss: mean softmax cross-entropy")
    loss = e.sparse_cross_entropy(logits, labels, "loss")
    step.loss = loss
    e.section("backward")
    e.comment("dL/dL = 1 (loss scaling multiplies this seed)")
    seed = e.grad_seed(loss, "seed")
    e.comment("dL/dlogits = (softmax(logits) - one_hot(labels)) / N")
    return e.sparse_cross_entropy_grad(logits, labels, seed, "d_logits")
