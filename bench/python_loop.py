"""The user's own PyTorch loop, data loading included: one epoch over a
DataLoader (shuffled, drop_last) of random batches shaped like the bench
model's example, in PyTorch eager, under torch.compile, and with
mp.torch.compile, alternating the contenders in every round; prints the
best ms per step of each (docs/benchmarks.md).

usage: python bench/python_loop.py [--models resnet,causal_lm]
       [--batches 6] [--rounds 3] [--threads 2] [--autocast]

--autocast adds PyTorch eager and torch.compile under
torch.autocast(bfloat16) (slow on a CPU without bf16 instructions). mp.torch.compile uses policy="auto".
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="resnet,causal_lm")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--autocast", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MP_NUM_THREADS", str(args.threads))
    import torch
    import mp.torch
    from models import torch_model
    torch.set_num_threads(args.threads)

    for name in args.models.split(","):
        torch.manual_seed(0)
        _, _, x, y, loss_fn = torch_model(name)
        data = torch.utils.data.TensorDataset(
            torch.cat([x if not x.is_floating_point() else torch.randn_like(x)
                       for _ in range(args.batches)]),
            torch.cat([y for _ in range(args.batches)]))
        loader = torch.utils.data.DataLoader(data, batch_size=len(x),
                                             shuffle=True, drop_last=True)

        def fresh():
            """The model and optimizer again, from the same seed."""
            torch.manual_seed(0)
            m, o, _, _, _ = torch_model(name)
            return m, o

        def torch_loop(autocast, compiled):
            m, o = fresh()
            forward = torch.compile(m) if compiled else m

            def epoch():
                for xb, yb in loader:
                    o.zero_grad(set_to_none=True)
                    with torch.autocast("cpu", dtype=torch.bfloat16,
                                        enabled=autocast):
                        loss = loss_fn(forward(xb), yb)
                    loss.backward()
                    o.step()
            return epoch

        def mp_loop():
            m, o = fresh()
            step = mp.torch.compile(m, o, loss_fn=loss_fn, example=(x, y))

            def epoch():
                for xb, yb in loader:
                    step(xb, yb)
            return epoch

        contenders = {"torch-eager": torch_loop(False, False),
                      "torch-compile": torch_loop(False, True),
                      "mp.torch.compile": mp_loop()}
        if args.autocast:
            contenders["torch-eager-autocast"] = torch_loop(True, False)
            contenders["torch-compile-autocast"] = torch_loop(True, True)
        for epoch in contenders.values():  # warm-up: compiles, primitives
            epoch()
        best = {c: float("inf") for c in contenders}
        for _ in range(args.rounds):
            for contender, epoch in contenders.items():
                began = time.perf_counter()
                epoch()
                ms = (time.perf_counter() - began) * 1000 / args.batches
                best[contender] = min(best[contender], ms)
        for contender, ms in best.items():
            print("%-10s %-22s %8.1f ms/step (DataLoader included)"
                  % (name, contender, ms), flush=True)


if __name__ == "__main__":
    main()
