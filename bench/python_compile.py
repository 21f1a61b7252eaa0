"""How long mp.torch.compile takes before training starts, in a fresh
process each time: the first compile (empty plan cache: trace, mp-compile,
session), then ROUNDS more in new processes over the same cache (the step
found by its fingerprint: no trace, no mp-compile), alternating with a
compile whose cache is off (traced every time). Prints seconds per model
and kind (docs/benchmarks.md, "A second compile").

usage: python bench/python_compile.py [--rounds N] [--models resnet18,gpt2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import torch
t0 = time.perf_counter()
import mp, mp.torch
name = sys.argv[1]
torch.manual_seed(0)
if name == "resnet18":
    import torchvision
    model = torchvision.models.resnet18(num_classes=10)
    x, y = torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))
    loss_fn = None
else:
    import transformers
    config = transformers.GPT2Config(n_layer=2, n_embd=128, n_head=4,
                                     vocab_size=512, n_positions=64,
                                     bos_token_id=0, eos_token_id=0)
    config._attn_implementation = "eager"
    gpt = transformers.GPT2LMHeadModel(config)

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt = gpt

        def forward(self, ids):
            return self.gpt(input_ids=ids).logits

    model = LM()
    x = torch.randint(0, 512, (4, 64))
    y = torch.randint(0, 512, (4, 64))

    def loss_fn(logits, labels):
        return torch.nn.functional.cross_entropy(logits.reshape(-1, 512),
                                                 labels.reshape(-1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
t1 = time.perf_counter()
step = mp.torch.compile(model, optimizer, loss_fn=loss_fn, example=(x, y),
                        policy="float32")
t2 = time.perf_counter()
step(x, y)
print(json.dumps({"compile_s": t2 - t1, "traced": step.traced,
                  "from_cache": step.from_cache,
                  "why": step.fingerprint_unavailable}))
"""


def child(model, cache):
    env = dict(os.environ, MP_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD, model], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("%s failed:\n%s" % (model, out.stderr[-3000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default="resnet18,gpt2")
    args = parser.parse_args()
    for model in args.models.split(","):
        cache = tempfile.mkdtemp(prefix="mp-bench-cache-")
        first = child(model, cache)
        again, off = [], []
        for _ in range(args.rounds):
            again.append(child(model, cache))
            off.append(child(model, "off"))
        assert not first["from_cache"] and first["traced"]
        assert all(not r["traced"] for r in again), again
        print("%-9s first %.2f s | again (fingerprint hit) best %.2f s, all %s"
              " | cache off (traced) best %.2f s" % (
                  model, first["compile_s"],
                  min(r["compile_s"] for r in again),
                  " ".join("%.2f" % r["compile_s"] for r in again),
                  min(r["compile_s"] for r in off)))


if __name__ == "__main__":
    main()
