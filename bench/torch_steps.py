#!/usr/bin/env python3
"""Times PyTorch's training step of bench/gen_models.py's MLP on this
machine, float32 and autocast bf16, for the side-by-side row of
docs/benchmarks.md.

    .venv/bin/python bench/torch_steps.py [--steps 20] [--threads 2]
        [--policies float32,autocast_bfloat16]

The same model as `bench/gen_models.py mlp` (1024-4096-4096-1000, batch
256, ReLU, mean softmax cross-entropy, plain SGD lr 0.1), the same step
(forward, loss, backward, update). bf16 is torch.autocast("cpu",
dtype=torch.bfloat16): PyTorch's own mixed precision (f32 master weights,
bf16 matmuls through oneDNN). Prints one JSON line per policy: the best
step time of --runs runs of --steps steps (the first step of each run, with
oneDNN's primitive creation, excluded).
"""

import argparse
import json
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--policies", default="float32,autocast_bfloat16",
                        help="comma-separated: float32, autocast_bfloat16")
    args = parser.parse_args()
    policies = args.policies.split(",")
    for policy in policies:
        if policy not in ("float32", "autocast_bfloat16"):
            parser.error(f"unknown policy '{policy}'")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    dims = [1024, 4096, 4096, 1000]
    layers = []
    for i in range(len(dims) - 1):
        layers.append(torch.nn.Linear(dims[i], dims[i + 1]))
        if i + 2 < len(dims):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(args.batch, dims[0])
    y = torch.randint(0, dims[-1], (args.batch,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(bf16):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    for policy in policies:
        bf16 = policy == "autocast_bfloat16"
        best = None
        for _ in range(args.runs):
            step(bf16)  # warm-up: primitive creation
            start = time.perf_counter()
            for _ in range(args.steps):
                step(bf16)
            ms = (time.perf_counter() - start) * 1000 / args.steps
            best = ms if best is None else min(best, ms)
        print(json.dumps({"framework": f"pytorch {torch.__version__}",
                          "model": "mlp_big", "policy": policy,
                          "threads": args.threads, "ms_per_step": round(best, 2)}))


if __name__ == "__main__":
    main()
