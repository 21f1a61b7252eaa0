"""The causal language model example (causal_lm.mlir) and its data.

    python3 examples/causal_lm.py corpus OUT_DIR [TEXT_FILE...]
    python3 examples/causal_lm.py check-loss DATA.npz LOG

`corpus` makes a character-level corpus from text the repository ships
(its README and docs/*.md unless files are given): every character mapped
to one of 96 tokens (newline and printable ASCII; anything else becomes
'?'), cut into windows of SEQ + 1 characters, written as train.npz and
test.npz (the last tenth of the text) with `tokens` [N, SEQ] and `targets`
[N, SEQ] (the next character) and the unigram entropy of the training
targets printed. `check-loss` reads the last "eval step ... loss X" of an
mp-run log and fails unless X is below 0.8 x the unigram entropy of
DATA.npz's targets: the model has learnt more than character frequencies.

The step (built by generate.py, which writes causal_lm.mlir): token and
positional embeddings, two pre-LN blocks with causal multi-head attention
and a GELU MLP, residual dropout 0.1 (Philox, keyed by the frozen buffer
"dropout.key", counted by the step counter, one site per dropout op), a
final layer norm and an output head tied to the token embedding,
cross-entropy over every position, AdamW (weight decay 0.01) with a linear
warm-up and cosine decay (train.lr_schedule) and clipping of the global
gradient norm at 1.0 (train.clip_grad_norm). Standard library only.
"""

import glob
import math
import os
import re
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from step_ir import TrainStep  # noqa: E402
from step_layers import (  # noqa: E402
    LayerNorm, Linear, adam_state, adam_update, merge_heads, split_heads)

VOCAB = 96  # "\n" and chr(32) .. chr(126)
SEQ = 32


# ===----------------------------------------------------------------------===
# The step
# ===----------------------------------------------------------------------===

class Block:
    """x + drop(attn(ln1(x))), then h + drop(mlp(ln2(h))); causal attention
    through an additive mask."""

    def __init__(self, step, name, d_model, heads, d_ff):
        self.heads, self.d_head = heads, d_model // heads
        self.ln1 = LayerNorm(step, f"{name}.ln1", d_model)
        self.q = Linear(step, f"{name}.attn.q_proj", d_model, d_model)
        self.k = Linear(step, f"{name}.attn.k_proj", d_model, d_model)
        self.v = Linear(step, f"{name}.attn.v_proj", d_model, d_model)
        self.out = Linear(step, f"{name}.attn.out_proj", d_model, d_model)
        self.ln2 = LayerNorm(step, f"{name}.ln2", d_model)
        self.fc1 = Linear(step, f"{name}.mlp.fc1", d_model, d_ff)
        self.fc2 = Linear(step, f"{name}.mlp.fc2", d_ff, d_model)

    def params(self):
        return (self.ln1.params() + self.q.params() + self.k.params()
                + self.v.params() + self.out.params() + self.ln2.params()
                + self.fc1.params() + self.fc2.params())

    def forward(self, e, x, mask, rng, sites, p, tag):
        key, counter = rng
        self.x, self.sites, self.p, self.rng = x, sites, p, rng
        self.ln1_out = self.ln1.forward(e, x, f"{tag}_ln1")
        a = self.a_in = self.ln1_out[0]
        self.qh = split_heads(e, self.q.forward(e, a, f"{tag}_q"), self.heads,
                              f"{tag}_q")
        self.kh = split_heads(e, self.k.forward(e, a, f"{tag}_k"), self.heads,
                              f"{tag}_k")
        self.vh = split_heads(e, self.v.forward(e, a, f"{tag}_v"), self.heads,
                              f"{tag}_v")
        scores = e.matmul(self.qh, self.kh, f"{tag}_scores",
                          transpose_rhs=True)
        self.scale = e.fill(1.0 / math.sqrt(self.d_head), scores.shape,
                            f"{tag}_attn_scale")
        scaled = e.mul(scores, self.scale, f"{tag}_scores_scaled")
        masked = e.add(scaled, mask, f"{tag}_scores_masked")
        self.probs = e.softmax(masked, f"{tag}_probs")
        ctx_h = e.matmul(self.probs, self.vh, f"{tag}_ctx_heads")
        self.ctx = merge_heads(e, ctx_h, f"{tag}_ctx")
        attn = self.out.forward(e, self.ctx, f"{tag}_attn_out")
        attn_d = e.dropout(attn, key, counter, p, sites[0], f"{tag}_attn_drop")
        self.h = e.add(x, attn_d, f"{tag}_h")
        self.ln2_out = self.ln2.forward(e, self.h, f"{tag}_ln2")
        self.m_in = self.ln2_out[0]
        self.f1 = self.fc1.forward(e, self.m_in, f"{tag}_fc1")
        self.g = e.gelu(self.f1, f"{tag}_gelu")
        f2 = self.fc2.forward(e, self.g, f"{tag}_fc2")
        f2_d = e.dropout(f2, key, counter, p, sites[1], f"{tag}_mlp_drop")
        return e.add(self.h, f2_d, f"{tag}_out")

    def backward(self, e, d_z, tag):
        """Returns (d_x, grads in params() order)."""
        key, counter = self.rng
        d_f2 = e.dropout(d_z, key, counter, self.p, self.sites[1],
                         f"d_{tag}_fc2_out", grad=True)
        d_g, g_fc2 = self.fc2.backward(e, self.g, d_f2, f"{tag}_fc2")
        d_f1 = e.gelu_grad(d_g, self.f1, f"d_{tag}_fc1_out")
        d_m_in, g_fc1 = self.fc1.backward(e, self.m_in, d_f1, f"{tag}_fc1")
        d_h_mlp, g_ln2 = self.ln2.backward(e, self.h, self.ln2_out, d_m_in,
                                           f"{tag}_ln2")
        d_h = e.add(d_z, d_h_mlp, f"d_{tag}_h")
        d_attn = e.dropout(d_h, key, counter, self.p, self.sites[0],
                           f"d_{tag}_attn_out", grad=True)
        d_ctx, g_out = self.out.backward(e, self.ctx, d_attn,
                                         f"{tag}_out_proj")
        d_ctx_h = split_heads(e, d_ctx, self.heads, f"d_{tag}_ctx")
        d_probs = e.matmul(d_ctx_h, self.vh, f"d_{tag}_probs",
                           transpose_rhs=True)
        d_vh = e.matmul(self.probs, d_ctx_h, f"d_{tag}_v_heads",
                        transpose_lhs=True)
        d_masked = e.softmax_grad(d_probs, self.probs, f"d_{tag}_scores_masked")
        d_scores = e.mul(d_masked, self.scale, f"d_{tag}_scores")
        d_qh = e.matmul(d_scores, self.kh, f"d_{tag}_q_heads")
        d_kh = e.matmul(d_scores, self.qh, f"d_{tag}_k_heads",
                        transpose_lhs=True)
        d_a_q, g_q = self.q.backward(e, self.a_in,
                                     merge_heads(e, d_qh, f"d_{tag}_q"),
                                     f"{tag}_q_proj")
        d_a_k, g_k = self.k.backward(e, self.a_in,
                                     merge_heads(e, d_kh, f"d_{tag}_k"),
                                     f"{tag}_k_proj")
        d_a_v, g_v = self.v.backward(e, self.a_in,
                                     merge_heads(e, d_vh, f"d_{tag}_v"),
                                     f"{tag}_v_proj")
        d_a_qk = e.add(d_a_q, d_a_k, f"d_{tag}_ln1_out_qk")
        d_a_in = e.add(d_a_qk, d_a_v, f"d_{tag}_ln1_out")
        d_x_attn, g_ln1 = self.ln1.backward(e, self.x, self.ln1_out, d_a_in,
                                            f"{tag}_ln1")
        d_x = e.add(d_h, d_x_attn, f"d_{tag}_in")
        return d_x, (g_ln1 + g_q + g_k + g_v + g_out + g_ln2 + g_fc1
                     + g_fc2)


CAUSAL_LM_HEADER = """\
Causal character-level language model (examples/causal_lm.py has the data):
batch 16 x 32 tokens of a 96-token vocabulary, d_model 64, 2 pre-LN blocks of
4 causal heads and a GELU MLP of 256, residual dropout 0.1, final layer norm,
output head tied to the token embedding, mean cross-entropy over every
position. Optimizer: AdamW (weight decay 0.01) at
  lr = 3e-3 * linear warm-up over 50 steps, then cosine to 0.1x by step 1000,
clipping the global gradient norm at 1.0. Dropout masks: Philox, keyed by the
frozen buffer "dropout.key" (drawn from mp-run's --seed), counted by "step".
Results "lr" and "grad_norm" are scalar outputs mp-run logs."""


def causal_mask_literal(seq):
    """[seq, seq]: 0 where a position may attend (j <= i), else -1e4 (a
    large finite value: exp underflows to 0 in f32, and 16-bit adds stay
    finite, where -inf would turn a cancelled row into NaN)."""
    rows = ["[" + ", ".join("0.0" if j <= i else "-1.0e+04"
                            for j in range(seq)) + "]" for i in range(seq)]
    return "[" + ", ".join(rows) + "]"


def build_causal_lm(batch=16, seq=SEQ, vocab=VOCAB, d_model=64, heads=4,
                    d_ff=256, layers=2, dropout=0.1, base_lr=3e-3,
                    warmup=50, total_steps=1000):
    step = TrainStep()
    e = step.e
    tokens = step.arg("tokens", (batch, seq), "input", "tokens", dtype="i64")
    targets = step.arg("targets", (batch, seq), "label", "targets",
                       dtype="i64")
    tok_emb = step.param("tok_emb.weight", (vocab, d_model))
    pos_emb = step.param("pos_emb.weight", (seq, d_model))
    blocks = [Block(step, f"blocks.{i}", d_model, heads, d_ff)
              for i in range(layers)]
    norm = LayerNorm(step, "norm", d_model)
    params = [tok_emb, pos_emb]
    for b in blocks:
        params += b.params()
    params += norm.params()
    moments, step_count = adam_state(step, params)
    key = step.frozen_buffer("dropout.key", (), dtype="i64")
    rng = (key, step_count)

    e.section("forward")
    e.comment("token + positional embeddings, dropout (site 0)")
    tok = e.embedding(tok_emb, tokens, "tok")
    pos = e.broadcast(pos_emb, [1, 2], tok.shape, "pos")
    x0 = e.add(tok, pos, "x0")
    x = e.dropout(x0, key, step_count, dropout, 0, "x0_drop")
    e.comment("the causal mask, added to every head's scores")
    mask = e.constant(causal_mask_literal(seq), (seq, seq), "f32",
                      "causal_mask")
    scores_shape = (batch, heads, seq, seq)
    mask_b = e.broadcast(mask, [2, 3], scores_shape, "causal_mask_b")
    for i, b in enumerate(blocks):
        e.comment(f"block {i}: dropout sites {2 * i + 1} and {2 * i + 2}")
        x = b.forward(e, x, mask_b, rng, (2 * i + 1, 2 * i + 2), dropout,
                      f"b{i}")
    e.comment("final layer norm; logits = h @ tok_emb^T (the tied head)")
    norm_out = norm.forward(e, x, "norm")
    h = norm_out[0]
    logits = e.matmul(h, tok_emb, "logits", transpose_rhs=True)
    logits2 = e.reshape(logits, (batch * seq, vocab), "logits_rows")
    targets2 = e.reshape(targets, (batch * seq,), "targets_rows")

    e.section("loss: mean softmax cross-entropy over every position")
    loss = e.sparse_cross_entropy(logits2, targets2, "loss")
    step.loss = loss
    e.section("backward")
    seed = e.grad_seed(loss, "seed")
    d_logits2 = e.sparse_cross_entropy_grad(logits2, targets2, seed,
                                            "d_logits_rows")
    e.comment("the tied head: d_tok_emb = d_logits^T @ h, d_h = d_logits @"
              " tok_emb")
    h2 = e.flatten_2d(h)
    d_emb_head = e.matmul(d_logits2, h2, "d_tok_emb_head", transpose_lhs=True)
    d_logits = e.reshape(d_logits2, logits.shape, "d_logits")
    d_h = e.matmul(d_logits, tok_emb, "d_norm_out")
    d_x, grads_norm = norm.backward(e, x, norm_out, d_h, "norm")
    grads_blocks = []
    for i in reversed(range(len(blocks))):
        e.comment(f"block {i}")
        d_x, g = blocks[i].backward(e, d_x, f"b{i}")
        grads_blocks = list(g) + grads_blocks
    e.comment("embeddings: x0 = tok + pos, then dropout (site 0)")
    d_x0 = e.dropout(d_x, key, step_count, dropout, 0, "d_x0", grad=True)
    d_pos = e.reduce_sum(d_x0, [0], "d_pos_emb")
    d_emb_rows = e.embedding_grad(d_x0, tokens, tok_emb.shape,
                                  "d_tok_emb_rows")
    d_emb = e.add(d_emb_head, d_emb_rows, "d_tok_emb")
    grads = [d_emb, d_pos] + grads_blocks + grads_norm

    e.section("optimizer: clip the global norm at 1.0, AdamW on a schedule")
    clipped = e.clip_grad_norm(grads, 1.0, "clip")
    step.output("grad_norm", clipped[-1])
    lr = e.lr_schedule(step_count, "lr", base_lr=base_lr,
                       warmup_steps=warmup, decay_steps=total_steps - warmup,
                       end_factor=0.1)
    step.output("lr", lr)
    adam_update(step, params, clipped, moments, step_count, lr=lr,
                weight_decay=0.01)
    return CAUSAL_LM_HEADER, step


# ===----------------------------------------------------------------------===
# The data
# ===----------------------------------------------------------------------===

def token_of(ch):
    if ch == "\n":
        return 0
    code = ord(ch)
    return code - 31 if 32 <= code <= 126 else ord("?") - 31


def npy(descr, shape, payload):
    dims = "".join("%d, " % d for d in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
            + header.encode("latin1") + payload)


def write_windows(path, ids, seq):
    """Windows of seq + 1 tokens at stride seq: tokens and next tokens."""
    n = (len(ids) - 1) // seq
    tokens = [ids[i * seq + j] for i in range(n) for j in range(seq)]
    targets = [ids[i * seq + j + 1] for i in range(n) for j in range(seq)]
    with zipfile.ZipFile(path, "w") as z:
        for name, values in (("tokens", tokens), ("targets", targets)):
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(npy("<i8", (n, seq),
                            struct.pack("<%dq" % len(values), *values)))
    return n


def unigram_entropy(ids):
    counts = {}
    for t in ids:
        counts[t] = counts.get(t, 0) + 1
    n = len(ids)
    return -sum(c / n * math.log(c / n) for c in counts.values())


def read_targets(path):
    with zipfile.ZipFile(path) as z:
        data = z.read("targets.npy")
    header_len = struct.unpack("<H", data[8:10])[0]
    payload = data[10 + header_len:]
    return list(struct.unpack("<%dq" % (len(payload) // 8), payload))


def corpus(out_dir, files):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not files:
        files = [os.path.join(root, "README.md")] + sorted(
            glob.glob(os.path.join(root, "docs", "*.md")))
    text = ""
    for path in files:
        with open(path, encoding="utf-8") as f:
            text += f.read() + "\n"
    ids = [token_of(ch) for ch in text]
    cut = len(ids) * 9 // 10
    os.makedirs(out_dir, exist_ok=True)
    n_train = write_windows(os.path.join(out_dir, "train.npz"), ids[:cut], SEQ)
    n_test = write_windows(os.path.join(out_dir, "test.npz"), ids[cut:], SEQ)
    print(f"{len(ids)} characters from {len(files)} files: {n_train} training"
          f" and {n_test} test windows of {SEQ}; unigram entropy"
          f" {unigram_entropy(ids[:cut]):.4f} nats")
    return 0


def check_loss(data, log):
    entropy = unigram_entropy(read_targets(data))
    with open(log, encoding="utf-8") as f:
        losses = re.findall(r"eval step \d+: loss ([0-9.]+)", f.read())
    if not losses:
        print(f"{log}: no 'eval step N: loss X' line")
        return 1
    loss = float(losses[-1])
    ok = loss < 0.8 * entropy
    print(f"eval loss {loss:.4f} vs unigram entropy {entropy:.4f} nats:"
          f" {'below' if ok else 'NOT below'} 0.8x")
    return 0 if ok else 1


def main(argv):
    if len(argv) >= 3 and argv[1] == "corpus":
        return corpus(argv[2], argv[3:])
    if len(argv) == 4 and argv[1] == "check-loss":
        return check_loss(argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
