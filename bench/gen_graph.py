#!/usr/bin/env python3
"""Generates a large, realistic `train.step` function for benchmarking.

    python3 bench/gen_graph.py N [-o FILE] [--batch B] [--width D]

writes (to FILE, or stdout) one `func.func @train_step` marked `train.step`
with about N `train` ops: a deep stack of pre-LN residual MLP blocks

    h_{i+1} = h_i + act_i(layer_norm_i(h_i) @ W_i + b_i)

(act_i alternates GELU and ReLU), a final layer norm and a linear head to 10
classes, mean softmax cross-entropy, the whole backward pass written out with
the dialect's gradient ops, and an AdamW update (exp_avg / exp_avg_sq per
parameter, one shared step counter) of every parameter. Each block is 15 ops:

  forward   layer_norm, matmul, bias_add, gelu|relu, add          5
  backward  gelu_grad|relu_grad, reduce_sum (d_bias),
            matmul (d_W = X^T dY), matmul (dX = dY W^T),
            layer_norm_grad, add (residual: skip + through-LN)    6
  optimizer adamw x 4 (W, b, ln.weight, ln.bias)                  4

so N = 1000 / 10000 / 100000 gives 66 / 666 / 6666 blocks and 1005 / 10005 /
100005 ops (the fixed part: final norm, head, loss, seed, their gradients,
step counter and 4 AdamW updates is 16 ops, less the first block's residual
gradient add, not needed since that block's input is x). Shapes are small
(batch 16 x width 32) so that a 100k-op file stays ~35 MB; the pipeline's
cost depends on the number of ops, not on the tensor sizes.

Reuses the emitter, TrainStep and layer helpers of examples/generate.py. The
output is deterministic. Standard library only.
"""

import argparse
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_REPO, "examples"))

from generate import (  # noqa: E402  (needs the sys.path entry above)
    LayerNorm, Linear, TrainStep, loss_and_seed)

OPS_PER_BLOCK = 15
FIXED_OPS = 15  # see the module docstring


def blocks_for(num_ops):
    """The number of residual blocks that gets closest to `num_ops` ops."""
    return max(1, round((num_ops - FIXED_OPS) / OPS_PER_BLOCK))


class ResidualBlock:
    """h + act(layer_norm(h) @ W + b): pre-LN, one linear layer, width d."""

    def __init__(self, step, index, d, activation):
        self.name = f"blocks.{index}"
        self.hint = f"b{index}"
        self.activation = activation
        self.ln = LayerNorm(step, f"{self.name}.ln", d)
        self.fc = Linear(step, f"{self.name}.fc", d, d)

    def params(self):
        return self.ln.params() + self.fc.params()

    def forward(self, e, h):
        hint = self.hint
        self.h = h
        self.ln_out = self.ln.forward(e, h, f"{hint}_ln")
        self.fc_out = self.fc.forward(e, self.ln_out[0], f"{hint}_fc")
        act = getattr(e, self.activation)(self.fc_out,
                                          f"{hint}_{self.activation}")
        return e.add(h, act, f"{hint}_out")

    def backward(self, e, d_out, need_dx=True):
        """Returns (d_h or None, grads in params() order)."""
        hint = self.hint
        # out = h + act: the skip path passes d_out on to h unchanged.
        d_fc = getattr(e, self.activation + "_grad")(
            d_out, self.fc_out, f"d_{hint}_fc_out")
        d_ln_y, grads_fc = self.fc.backward(e, self.ln_out[0], d_fc,
                                            f"{hint}_fc")
        d_ln_x, grads_ln = self.ln.backward(e, self.h, self.ln_out, d_ln_y,
                                            f"{hint}_ln")
        d_h = e.add(d_out, d_ln_x, f"d_{hint}_in") if need_dx else None
        return d_h, grads_ln + grads_fc


def build(num_ops, batch=16, width=32, classes=10):
    n_blocks = blocks_for(num_ops)
    step = TrainStep()
    e = step.e
    x = step.arg("x", (batch, width), "input")
    labels = step.arg("labels", (batch,), "label", dtype="i64")
    blocks = [ResidualBlock(step, i, width, "gelu" if i % 2 == 0 else "relu")
              for i in range(n_blocks)]
    norm = LayerNorm(step, "norm", width)
    head = Linear(step, "head", width, classes)
    params = [p for b in blocks for p in b.params()] + norm.params() \
        + head.params()
    # generate.param_name scans every argument: quadratic at 100k ops.
    names = {id(v): name for v, role, name in step.args if role == "param"}
    moments = []
    for p in params:
        name = names[id(p)]
        moments.append((step.state(name + ".exp_avg", p.shape),
                        step.state(name + ".exp_avg_sq", p.shape)))
    step_count = step.state("step", (), dtype="i64")

    e.section(f"forward: {n_blocks} residual blocks, final norm, head")
    h = x
    for b in blocks:
        h = b.forward(e, h)
    norm_out = norm.forward(e, h, "norm")
    logits = head.forward(e, norm_out[0], "logits")

    d_logits = loss_and_seed(step, logits, labels)
    d_norm_y, grads_head = head.backward(e, norm_out[0], d_logits, "head")
    d_h, grads_norm = norm.backward(e, h, norm_out, d_norm_y, "norm")
    block_grads = []
    for b in reversed(blocks):
        # The first block's input is x, an input: no gradient needed.
        d_h, g = b.backward(e, d_h, need_dx=b is not blocks[0])
        block_grads.append(g)
    grads = [g for gs in reversed(block_grads) for g in gs] + grads_norm \
        + grads_head

    e.section("optimizer: AdamW, lr 1e-3, weight decay 0.01")
    one = e.constant("1", (), "i64", "one")
    new_step = e.add(step_count, one, "new_step")
    step.update("opt_state", "step", new_step)
    for p, grad, (m, v) in zip(params, grads, moments):
        name = names[id(p)]
        new_p, new_m, new_v = e.adamw(p, grad, m, v, new_step, "new_" + name,
                                      lr=1e-3, weight_decay=0.01)
        step.update("param", name, new_p)
        step.update("opt_state", name + ".exp_avg", new_m)
        step.update("opt_state", name + ".exp_avg_sq", new_v)
    return step, n_blocks


def render(num_ops, **kwargs):
    """(text, number of train ops, number of blocks)."""
    step, n_blocks = build(num_ops, **kwargs)
    header = [
        "// Generated by bench/gen_graph.py for the pipeline benchmark;",
        f"//   python3 bench/gen_graph.py {num_ops}",
        f"// {n_blocks} pre-LN residual MLP blocks h + act(ln(h) @ W + b),"
        " final layer norm,",
        "// linear head, softmax cross-entropy, full backward pass, AdamW.",
        f"// {step.e.num_ops} train ops, {len(step.args)} arguments.",
    ]
    return "\n".join(header) + "\n\n" + step.render(), step.e.num_ops, \
        n_blocks


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("num_ops", type=int, help="approximate number of ops")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--width", type=int, default=32)
    args = ap.parse_args(argv)
    text, ops, n_blocks = render(args.num_ops, batch=args.batch,
                                 width=args.width)
    if args.output:
        with open(args.output, "w", newline="\n") as f:
            f.write(text)
        print(f"wrote {args.output}: {ops} train ops, {n_blocks} blocks",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
