"""The handlers of the layers: losses, convolutions, normalization,
pooling, embeddings, attention and dropout (the _Mapper's half that maps
one layer's ops; torch/mapper.py has the shape and elementwise half)."""
from ..vocabulary import ComparePredicate
from ..common import NCHW, Attr
from ..common import dropout_state
from .common import _DIV, _MUL, _Pending, _is_dropout_mask


class LayerHandlers:
    """Mixed into _Mapper: self.b (the StepBuilder), self.v, self.err, ..."""

    def map_gelu(self, node, a, shape, elem):
        approximate = node.kwargs.get("approximate", a[1] if len(a) > 1 else "none")
        props = {"tanh_approx": True} if approximate == "tanh" else {}
        return self.b.op("train.gelu", [self.v(a[0])], [(shape, elem)], props)

    def map_gelu_backward(self, node, a, shape, elem):
        approximate = node.kwargs.get("approximate", a[2] if len(a) > 2 else "none")
        props = {"tanh_approx": True} if approximate == "tanh" else {}
        return self.b.op("train.gelu_grad", [self.v(a[0]), self.v(a[1])], [(shape, elem)], props)

    def map_threshold_backward(self, node, a, shape, elem):
        if a[2] != 0:
            raise self.err(self.name, "threshold %r (only ReLU's 0 maps)" % a[2], "Use nn.ReLU.")
        return self.b.op("train.relu_grad", [self.v(a[0]), self.v(a[1])], [(shape, elem)])

    def map_log_softmax(self, node, a, shape, elem):
        x = self.v(a[0])
        out = self.b.op("train.log_softmax", [x], [(shape, elem)], {"axis": a[1] % len(shape)})
        self.log_softmax_input = getattr(self, "log_softmax_input", {})
        self.log_softmax_input[out.name] = x
        return out

    def map_softmax(self, node, a, shape, elem):
        return self.b.op("train.softmax", [self.v(a[0])], [(shape, elem)],
                         {"axis": a[1] % len(shape)})

    def map_softmax_backward(self, node, a, shape, elem):
        return self.b.op("train.softmax_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"axis": a[2] % len(shape)})

    def map_nll(self, node, a, shape, elem):
        log_probs, labels, weight, reduction, ignore = a[:5]
        self.check_nll(weight, reduction, ignore)
        lp = self.v(log_probs)
        logits = getattr(self, "log_softmax_input", {}).get(lp.name)
        if logits is None or len(logits.shape) != 2:
            raise self.err(self.name, "nll_loss of something other than log_softmax of "
                           "[N, C] logits",
                           "Use F.cross_entropy(logits, labels) on [N, C] logits.")
        loss = self.b.op("train.sparse_cross_entropy", [logits, self.v(labels)],
                         [((), "f32")], self.ce_props(ignore),
                         comment="loss: mean softmax cross-entropy")
        self.loss = loss
        return [loss, _Pending("nll_total_weight")]

    def pointwise_loss_props(self, name, reduction, delta=None):
        if reduction != 1:
            raise self.err(self.name, "a reduction other than 'mean'",
                           "Use the loss's default reduction='mean'.")
        return {"delta": float(delta)} if delta is not None else {}

    def map_pointwise_loss(self, node, a, shape, elem):
        """mse_loss / huber_loss / binary_cross_entropy_with_logits (mean):
        the train op, its sum in f64."""
        op = {"mse_loss": "train.mse_loss", "huber_loss": "train.huber_loss",
              "binary_cross_entropy_with_logits": "train.bce_with_logits_loss"}[
                  self.name.split(".")[0]]
        if op == "train.bce_with_logits_loss":
            if (len(a) > 2 and a[2] is not None) or (len(a) > 3 and a[3] is not None) \
                    or node.kwargs.get("weight") is not None \
                    or node.kwargs.get("pos_weight") is not None:
                raise self.err(self.name, "weight or pos_weight",
                               "Use F.binary_cross_entropy_with_logits without weights.")
            props = self.pointwise_loss_props(op, a[4] if len(a) > 4 else
                                              node.kwargs.get("reduction", 1))
        elif op == "train.huber_loss":
            props = self.pointwise_loss_props(op, a[2] if len(a) > 2 else 1,
                                              a[3] if len(a) > 3 else 1.0)
        else:
            props = self.pointwise_loss_props(op, a[2] if len(a) > 2 else 1)
        x, t = self.v(a[0]), self.v(a[1])
        loss = self.b.op(op, [x, t], [((), "f32")], props,
                         comment="loss: mean %s" % op.split(".")[1])
        self.loss = loss
        return loss

    def map_pointwise_loss_backward(self, node, a, shape, elem):
        grad, x, t = self.v(a[0]), self.v(a[1]), self.v(a[2])
        if self.name.startswith("huber"):
            op, props = "train.huber_loss_grad", self.pointwise_loss_props(
                "huber", a[3], a[4])
        else:
            op, props = "train.mse_loss_grad", self.pointwise_loss_props("mse", a[3])
        return self.b.op(op, [x, t, grad], [(shape, elem)], props)

    def map_ones_like(self, node, a, shape, elem):
        src = self.v(a[0])
        if src.shape != () or a[0] is not self.loss_node:
            raise self.err(self.name, "ones_like of something other than the loss",
                           "Only the seed of the backward pass maps.")
        return self.b.op("train.grad_seed", [src], [((), src.elem)],
                         comment="backward: d loss / d loss")

    def map_nll_backward(self, node, a, shape, elem):
        seed, _, labels, weight, reduction, ignore = a[:6]
        self.check_nll(weight, reduction, ignore)
        return _Pending("nll_loss_backward", seed=self.v(seed),
                        log_probs=self.v(a[1]), labels=self.v(labels), ignore=ignore)

    def map_log_softmax_backward(self, node, a, shape, elem):
        grad = self.env.get(a[0])
        if isinstance(grad, _Pending) and grad.kind == "nll_loss_backward":
            logits = self.log_softmax_input.get(grad.log_probs.name)
            if logits is None:
                raise self.err(self.name, "nll_loss of something other than a log_softmax",
                               "Use F.cross_entropy.")
            return self.b.op("train.sparse_cross_entropy_grad",
                             [logits, grad.labels, grad.seed], [(shape, elem)],
                             self.ce_props(grad.ignore))
        return self.b.op("train.log_softmax_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"axis": a[2] % len(shape)})

    def map_conv(self, node, a, shape, elem):
        x, w, bias, stride, padding, dilation, transposed, _out_pad, groups = a
        props = self.conv_props(stride, padding, dilation, transposed, groups)
        out = self.b.op("train.conv2d", [self.v(x), self.v(w)], [(shape, elem)], props)
        if bias is not None:
            out = self.b.op("train.bias_add", [out, self.v(bias)], [(shape, elem)], {"dim": 1})
        return out

    def map_conv_backward(self, node, a, shape, elem):
        grad, x, w, bias_sizes, stride, padding, dilation, transposed, _op, groups, mask = a
        props = self.conv_props(stride, padding, dilation, transposed, groups)
        g, xv, wv = self.v(grad), self.v(x), self.v(w)
        outs = [None, None, None]
        if mask[0]:
            outs[0] = self.b.op("train.conv2d_backward_data", [g, wv], [(xv.shape, xv.elem)], props)
        if mask[1]:
            outs[1] = self.b.op("train.conv2d_backward_filter", [xv, g], [(wv.shape, wv.elem)],
                                props)
        if mask[2]:
            outs[2] = self.b.op("train.reduce_sum", [g], [((g.shape[1],), g.elem)],
                                {"dims": [0, 2, 3]})
        return outs

    def map_batch_norm(self, node, a, shape, elem):
        x, weight, bias, rmean, rvar, training, momentum, eps = a[:8]
        if not training:
            return self.batch_norm_eval(x, weight, bias, rmean, rvar, eps)
        if weight is None or bias is None or rmean is None or rvar is None:
            raise self.err(self.name, "batch norm without affine parameters or running statistics",
                           "Use nn.BatchNorm2d(affine=True, track_running_stats=True).")
        xv = self.v(x)
        c = (self.v(weight).shape, "f32")
        res = self.b.op("train.batch_norm",
                        [xv, self.v(weight), self.v(bias), self.v(rmean), self.v(rvar)],
                        [(xv.shape, xv.elem), c, c, c, c],
                        {"epsilon": float(eps), "momentum": float(momentum), "feature_dim": 1})
        self.buffer_updates[rmean] = res[1]
        self.buffer_updates[rvar] = res[2]
        return [res[0], res[3], res[4]]

    def map_batch_norm_backward(self, node, a, shape, elem):
        grad, x, weight, rmean, rvar, save_mean, save_invstd, train = a[:8]
        if not train:
            mask = a[9] if len(a) > 9 else [True, True, True]
            return self.batch_norm_eval_backward(grad, x, weight, rmean, rvar, a[8], mask)
        xv = self.v(x)
        w = self.v(weight)
        return self.b.op("train.batch_norm_grad", [self.v(grad), xv, w, self.v(save_mean),
                                                  self.v(save_invstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)])

    # A batch norm module in eval mode (the user's model.eval() or
    # module.eval(), e.g. frozen statistics for fine-tuning): PyTorch's
    # formula with the running statistics, which the step reads and never
    # updates (they stay frozen buffers): alpha = weight / sqrt(var + eps),
    # beta = bias - mean * alpha, y = x * alpha + beta per channel (dim 1),
    # as ATen's CPU kernel computes it; the backward: dx = dy * alpha,
    # dweight = sum(dy * (x - mean) / sqrt(var + eps)), dbias = sum(dy).
    def batch_norm_stats(self, weight, rmean, rvar, eps):
        if rmean is None or rvar is None:
            raise self.err(self.name, "batch norm in eval mode without running statistics",
                           "Use track_running_stats=True, or keep the module in train mode.")
        var = self.v(rvar)
        c = (var.shape, "f32")
        inv = self.b.op("train.rsqrt", [self.b.op("train.add", [var, self.fill(eps, var)], [c])],
                        [c])
        alpha = inv if weight is None else self.b.op("train.mul", [self.v(weight), inv], [c])
        return inv, alpha

    def per_channel(self, v, like):
        dims = [1] if len(like.shape) > 1 else [0]
        return self.b.op("train.broadcast", [v], [(like.shape, v.elem)], {"dims": dims})

    def batch_norm_eval(self, x, weight, bias, rmean, rvar, eps):
        xv = self.v(x)
        inv, alpha = self.batch_norm_stats(weight, rmean, rvar, eps)
        c = (alpha.shape, "f32")
        shift = self.b.op("train.mul", [self.v(rmean), alpha], [c])
        beta = self.b.op("train.sub", [self.v(bias) if bias is not None else
                                       self.fill(0.0, alpha), shift], [c])
        out = (xv.shape, xv.elem)
        scaled = self.b.op("train.mul", [xv, self.per_channel(alpha, xv)], [out])
        y = self.b.op("train.add", [scaled, self.per_channel(beta, xv)], [out])
        # save_mean / save_invstd: empty in eval mode, read only by the
        # backward, which takes the running statistics instead.
        return [y, _Pending("batch_norm_eval_stats"), _Pending("batch_norm_eval_stats")]

    def batch_norm_eval_backward(self, grad, x, weight, rmean, rvar, eps, mask):
        g, xv = self.v(grad), self.v(x)
        inv, alpha = self.batch_norm_stats(weight, rmean, rvar, eps)
        out = (g.shape, g.elem)
        dims = [d for d in range(len(g.shape)) if d != 1]
        outs = [None, None, None]
        if mask[0]:
            outs[0] = self.b.op("train.mul", [g, self.per_channel(alpha, g)], [out])
        if mask[1] and weight is not None:
            centered = self.b.op("train.sub", [xv, self.per_channel(self.v(rmean), xv)],
                                 [(xv.shape, xv.elem)])
            xhat = self.b.op("train.mul", [centered, self.per_channel(inv, xv)],
                             [(xv.shape, xv.elem)])
            prod = self.b.op("train.mul", [g, xhat], [out])
            outs[1] = self.b.op("train.reduce_sum", [prod], [(alpha.shape, g.elem)],
                                {"dims": dims})
        if mask[2]:
            outs[2] = self.b.op("train.reduce_sum", [g], [(alpha.shape, g.elem)],
                                {"dims": dims})
        return outs

    def map_layer_norm(self, node, a, shape, elem):
        x, normalized, weight, bias, eps = a[:5]
        xv = self.v(x)
        axis = len(xv.shape) - len(normalized)
        if weight is None or bias is None:
            raise self.err(self.name, "layer norm without weight and bias",
                           "Use nn.LayerNorm(elementwise_affine=True).")
        stat = (xv.shape[:axis], "f32")
        return self.b.op("train.layer_norm", [xv, self.v(weight), self.v(bias)],
                         [(xv.shape, xv.elem), stat, stat],
                         {"axis": axis, "epsilon": float(eps)})

    def map_layer_norm_backward(self, node, a, shape, elem):
        grad, x, normalized, mean, rstd, weight, bias = a[:7]
        xv = self.v(x)
        w = self.v(weight)
        return self.b.op("train.layer_norm_grad",
                         [self.v(grad), xv, w, self.v(mean), self.v(rstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)],
                         {"axis": len(xv.shape) - len(normalized)})

    def map_max_pool(self, node, a, shape, elem):
        x = self.v(a[0])
        props = self.pool_props(a[1:], x.shape[2:])
        out = self.b.op("train.max_pool2d", [x], [(shape, elem)] if shape else
                        [(self.meta(node, 0))], props)
        return [out, _Pending("max_pool_indices", x=x)]

    def map_max_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        props = self.pool_props(a[2:], x.shape[2:])
        return self.b.op("train.max_pool2d_grad", [grad, x], [(x.shape, x.elem)], props)

    def avg_pool_props(self, a, in_hw):
        """avg_pool2d's (kernel, stride, padding, ceil_mode, count_include_pad,
        divisor_override) as train pooling attributes: mp's average divides by
        the full window, PyTorch's default count_include_pad=True."""
        padding = a[2] if len(a) > 2 else [0, 0]
        include_pad = a[4] if len(a) > 4 else True
        divisor = a[5] if len(a) > 5 else None
        if divisor is not None or (not include_pad and any(padding)):
            raise self.err(self.name, "divisor_override or count_include_pad=False "
                           "with padding", "Use nn.AvgPool2d's defaults.")
        return self.pool_props((a[0], a[1] if len(a) > 1 else [], padding, [1, 1],
                                a[3] if len(a) > 3 else False), in_hw, average=True)

    def map_avg_pool(self, node, a, shape, elem):
        x = self.v(a[0])
        props = self.avg_pool_props(a[1:], x.shape[2:])
        return self.b.op("train.avg_pool2d", [x], [(shape, elem)], props)

    def map_avg_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        props = self.avg_pool_props(a[2:], x.shape[2:])
        return self.b.op("train.avg_pool2d_grad", [grad], [(x.shape, x.elem)], props)

    def map_leaky_relu(self, node, a, shape, elem):
        slope = a[1] if len(a) > 1 else 0.01
        return self.b.op("train.leaky_relu", [self.v(a[0])], [(shape, elem)],
                         {"negative_slope": float(slope)})

    def map_leaky_relu_backward(self, node, a, shape, elem):
        if a[3]:
            raise self.err(self.name, "the gradient of an in-place leaky_relu",
                           "Use nn.LeakyReLU() (inplace=False).")
        return self.b.op("train.leaky_relu_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"negative_slope": float(a[2])})

    def map_elu(self, node, a, shape, elem):
        alpha = a[1] if len(a) > 1 else 1.0
        if (len(a) > 2 and a[2] != 1) or (len(a) > 3 and a[3] != 1):
            raise self.err(self.name, "elu with a scale or input_scale (SELU, CELU)",
                           "Use nn.ELU.")
        return self.b.op("train.elu", [self.v(a[0])], [(shape, elem)],
                         {"alpha": float(alpha)})

    def map_elu_backward(self, node, a, shape, elem):
        grad, alpha, scale, input_scale, is_result, x = a[:6]
        if scale != 1 or input_scale != 1 or is_result:
            raise self.err(self.name, "the gradient of SELU, CELU or an in-place ELU",
                           "Use nn.ELU() (inplace=False).")
        return self.b.op("train.elu_grad", [self.v(grad), self.v(x)], [(shape, elem)],
                         {"alpha": float(alpha)})

    def map_embedding(self, node, a, shape, elem):
        weight, indices = self.v(a[0]), self.v(a[1])
        return self.b.op("train.embedding", [weight, indices], [(shape, elem)])

    def map_embedding_backward(self, node, a, shape, elem):
        grad, indices, _num, padding_idx = a[:4]
        if len(a) > 4 and a[4]:
            raise self.err(self.name, "scale_grad_by_freq", "Use nn.Embedding's default "
                           "scale_grad_by_freq=False.")
        g, idx = self.v(grad), self.v(indices)
        if padding_idx is not None and padding_idx >= 0:
            # PyTorch's embedding backward skips the positions of
            # padding_idx: their rows' gradients are replaced by 0 before
            # they are summed into the table (the padding row gets none).
            pad = self.b.op("train.fill", [], [(idx.shape, idx.elem)],
                            {"value": float(padding_idx)})
            keep = self.b.op("train.compare", [idx, pad], [(idx.shape, "i1")],
                             {"predicate": Attr("%d : i64" % ComparePredicate.ne)})
            keep = self.broadcast_to(self.b.op("train.reshape", [keep], [(
                idx.shape + (1,), "i1")]), g.shape)
            g = self.b.op("train.select", [keep, g, self.fill(0.0, g)], [(g.shape, g.elem)])
        return self.b.op("train.embedding_grad", [g, idx], [(shape, elem)])

    def map_adaptive_avg_pool(self, node, a, shape, elem):
        return self.b.op("train.adaptive_avg_pool2d", [self.v(a[0])], [(shape, elem)],
                         {"layout": NCHW})

    def map_adaptive_avg_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        return self.b.op("train.adaptive_avg_pool2d_grad", [grad], [(x.shape, x.elem)],
                         {"layout": NCHW})

    def map_group_norm(self, node, a, shape, elem):
        x, weight, bias, _n, _c, _hw, groups, eps = a[:8]
        if weight is None or bias is None:
            raise self.err(self.name, "group norm without weight and bias",
                           "Use nn.GroupNorm(affine=True).")
        xv = self.v(x)
        stat = ((xv.shape[0], groups), "f32")
        return self.b.op("train.group_norm", [xv, self.v(weight), self.v(bias)],
                         [(xv.shape, xv.elem), stat, stat],
                         {"groups": int(groups), "epsilon": float(eps), "feature_dim": 1})

    def map_group_norm_backward(self, node, a, shape, elem):
        grad, x, mean, rstd, weight, _n, _c, _hw, groups = a[:9]
        xv, w = self.v(x), self.v(weight)
        return self.b.op("train.group_norm_grad",
                         [self.v(grad), xv, w, self.v(mean), self.v(rstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)],
                         {"groups": int(groups), "feature_dim": 1})

    # --- attention ---------------------------------------------------------
    def attention_props(self, node, dropout_p, causal):
        if dropout_p:
            raise self.err(self.name, "dropout inside the attention (dropout_p %g)" % dropout_p,
                           "Use dropout_p=0 (a dropout on the attention's output maps).")
        props = {"causal": True} if causal else {}
        scale = node.kwargs.get("scale")
        if scale is not None:
            props["scale"] = float(scale)
        mask = node.kwargs.get("attn_mask")
        return props, ([self.v(mask)] if mask is not None else [])

    # Grouped-query attention (enable_gqa=True: LLaMA's, Mistral's key /
    # value heads fewer than the query heads): query head h reads key /
    # value head h // G, G = query heads / key-value heads, PyTorch's
    # repeat_interleave. The train op takes as many heads in all three, so
    # each key / value head is repeated G times (a broadcast), and its
    # gradient is the sum over its G copies.
    def kv_heads(self, q, x):
        hq, hkv = q.shape[-3], x.shape[-3]
        if hq == hkv:
            return x
        if len(x.shape) < 3 or hq % hkv:
            raise self.err(self.name, "%d query heads for %d key / value heads" % (hq, hkv),
                           "Use a number of query heads that is a multiple of the key / "
                           "value heads.")
        lead, tail = x.shape[:-3], x.shape[-2:]
        one = self.b.op("train.reshape", [x], [(lead + (hkv, 1) + tail, x.elem)])
        wide = self.broadcast_to(one, lead + (hkv, hq // hkv) + tail)
        return self.b.op("train.reshape", [wide], [(lead + (hq,) + tail, x.elem)])

    def kv_heads_grad(self, g, like):
        hq, hkv = g.shape[-3], like.shape[-3]
        if hq == hkv:
            return g
        lead, tail = g.shape[:-3], g.shape[-2:]
        split = self.b.op("train.reshape", [g], [(lead + (hkv, hq // hkv) + tail, g.elem)])
        return self.b.op("train.reduce_sum", [split], [(like.shape, g.elem)],
                         {"dims": [len(lead) + 1]})

    def map_attention(self, node, a, shape, elem):
        q, k, v = (self.v(x) for x in a[:3])
        k, v = self.kv_heads(q, k), self.kv_heads(q, v)
        dropout_p = a[3] if len(a) > 3 else node.kwargs.get("dropout_p", 0.0)
        causal = a[4] if len(a) > 4 else node.kwargs.get("is_causal", False)
        props, mask = self.attention_props(node, dropout_p, causal)
        out_shape, out_elem = self.meta(node, 0)
        out = self.b.op("train.attention", [q, k, v] + mask, [(out_shape, out_elem)], props)
        return [out, _Pending("attention_logsumexp")]

    def map_attention_backward(self, node, a, shape, elem):
        grad, q, k0, v0 = (self.v(x) for x in a[:4])
        k, v = self.kv_heads(q, k0), self.kv_heads(q, v0)
        props, mask = self.attention_props(node, a[6], a[7])
        dq, dk, dv = self.b.op("train.attention_grad", [grad, q, k, v] + mask,
                               [(q.shape, q.elem), (k.shape, k.elem), (v.shape, v.elem)],
                               props)
        return [dq, self.kv_heads_grad(dk, k0), self.kv_heads_grad(dv, v0)]

    # --- dropout: train.dropout on the step's Philox state ----------------
    def map_empty(self, node, a, shape, elem):
        return _Pending("empty")

    def map_expand(self, node, a, shape, elem):
        """expand; of an empty tensor (dropout's draw under functionalization):
        still empty."""
        x = self.env.get(a[0])
        if isinstance(x, _Pending) and x.kind == "empty":
            return x
        return self.broadcast_to(self.v(a[0]), shape)

    def map_bernoulli(self, node, a, shape, elem):
        if not _is_dropout_mask(node):
            raise self.err(self.name, "random numbers other than F.dropout's mask",
                           "Use nn.Dropout / F.dropout.")
        keep = float(a[1] if len(a) > 1 else node.kwargs.get("p", 0.5))
        self.dropout_site = getattr(self, "dropout_site", -1) + 1
        # PyTorch passes keep = 1 - p: 15 digits give p back (0.1, not
        # 0.09999999999999998).
        return _Pending("dropout_mask", p=round(1.0 - keep, 15), site=self.dropout_site,
                        used=False, shape=tuple(shape))

    def map_mask_scale(self, node, a, shape, elem):
        mask = self.env.get(a[0])
        if isinstance(mask, _Pending) and mask.kind == "dropout_mask":
            return mask  # the 1 / keep scaling is train.dropout's own
        return _DIV(self, node, a, shape, elem)

    def map_mul(self, node, a, shape, elem):
        masks = [self.env.get(x) for x in a[:2]]
        for i, mask in enumerate(masks):
            if isinstance(mask, _Pending) and mask.kind == "dropout_mask":
                x = self.v(a[1 - i])
                key, counter = self.dropout_state()
                name = "train.dropout_grad" if mask.used else "train.dropout"
                mask.used = True
                x = self.broadcast_to(x, shape)
                props = {"p": mask.p, "site": mask.site}
                # A mask drawn smaller than x and broadcast (stochastic depth:
                # torchvision's StochasticDepth, timm's DropPath, one draw
                # per sample) keeps its shape: one mask element per position.
                pad = (1,) * (len(shape) - len(mask.shape)) + mask.shape
                if pad != tuple(shape):
                    if any(m != 1 and m != d for m, d in zip(pad, shape)):
                        raise self.err(self.name, "a dropout mask of shape %s on %s" % (
                            mask.shape, shape), "Report this model.")
                    props["mask_shape"] = list(pad)
                return self.b.op(name, [x, key, counter], [(shape, elem)], props)
        return _MUL(self, node, a, shape, elem)

    def dropout_state(self):
        return dropout_state(self.b)

    # --- shared pieces of the handlers ------------------------------------
    def pool_props(self, a, in_hw, average=False):
        """Pooling attributes for an [N, C, H, W] input of spatial size
        in_hw. ceil_mode (SqueezeNet's, GoogLeNet's max pooling) is floor
        mode on more padding at the bottom and right: PyTorch's ceil output
        size (a last window that would start in the right padding dropped),
        whose last window the extra padding completes; max pooling never
        picks padding. An average's divisor would count that extra padding,
        where PyTorch's stops at the padded input's edge: refused when
        ceil_mode adds a window."""
        kernel = list(a[0])
        if len(kernel) == 1:
            kernel = kernel * 2
        strides = list(a[1]) if len(a) > 1 and a[1] else kernel
        if len(strides) == 1:
            strides = strides * 2
        padding = list(a[2]) if len(a) > 2 else [0, 0]
        dilation = list(a[3]) if len(a) > 3 else [1, 1]
        ceil = a[4] if len(a) > 4 else False
        if len(padding) == 1:
            padding = padding * 2
        if any(d != 1 for d in dilation):
            raise self.err(self.name, "dilated pooling (no train op yet)",
                           "Use pooling with dilation=1.")
        extra = [0, 0]
        if ceil:
            for i in range(2):
                size = in_hw[i] + 2 * padding[i]
                out = -(-(size - kernel[i]) // strides[i]) + 1
                if (out - 1) * strides[i] >= in_hw[i] + padding[i]:
                    out -= 1
                extra[i] = max(0, (out - 1) * strides[i] + kernel[i] - size)
            if average and any(extra):
                raise self.err(self.name, "ceil-mode average pooling whose last window "
                               "overhangs the input (PyTorch's divisor stops at the edge)",
                               "Use ceil_mode=False, or pad the input so that the windows "
                               "tile it.")
        return {"layout": NCHW, "kernel": kernel, "strides": strides,
                "padding": [padding[0], padding[0] + extra[0], padding[1],
                            padding[1] + extra[1]]}

    def ce_props(self, ignore):
        """The cross-entropy's options: PyTorch's ignore_index, its default
        -100 included (Hugging Face pads shifted labels with -100), and the
        loss object's label_smoothing (export() reads it)."""
        props = {"ignore_index": int(ignore)}
        if self.label_smoothing:
            props["label_smoothing"] = float(self.label_smoothing)
        return props

    def check_nll(self, weight, reduction, ignore):
        if weight is not None or reduction != 1:
            raise self.err(self.name, "class weights or a reduction other than 'mean'",
                           "Use F.cross_entropy(logits, labels) (mean, no weights).")

    def conv_props(self, stride, padding, dilation, transposed, groups):
        if transposed:
            raise self.err(self.name, "a transposed convolution (no train op yet)",
                           "Use nn.Conv2d, with nn.Upsample for upsampling.")
        if len(stride) != 2:
            raise self.err(self.name, "a %d-D convolution" % len(stride), "Use nn.Conv2d.")
        # Grouped and depthwise (groups = C): PyTorch's [O, C / G, KH, KW]
        # filter is the train dialect's OIHW filter of `groups` G.
        props = {"layout": NCHW, "strides": list(stride),
                 "padding": [padding[0], padding[0], padding[1], padding[1]],
                 "dilations": list(dilation)}
        if groups != 1:
            props["groups"] = int(groups)
        return props
