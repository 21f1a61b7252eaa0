#!/usr/bin/env python3
"""Exports a PyTorch model's training step for mp, and trains the same model
in PyTorch (float32, same init, same batches in file order) as the
reference mp's training must match.

  torch_digits.py export MODEL --data DATA --out OUT [--batch B] [--steps N]
  torch_digits.py load MODEL CHECKPOINT --data DATA

(digits_driver.py says what they write.) MODEL is mlp, mlp_adam, cnn,
transformer or mlp_underflow (examples/frameworks/torch_models.py); DATA
holds train_x.npy, train_y.npy, test_x.npy, test_y.npy (data/get_digits.py).
"""
import copy
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))

import digits_driver  # noqa: E402
import mp_export.torch as torch_export  # noqa: E402
from torch_models import MODELS  # noqa: E402


class PyTorch:
    name, version, prefix, models = "PyTorch", torch.__version__, "torch_", MODELS

    @staticmethod
    def export(built, x, y, out, stem, description):
        model, opt, to_input, loss_fn = built
        torch_export.export(model, opt, to_input(torch.from_numpy(x)), torch.from_numpy(y),
                            out, stem, loss_fn=loss_fn, description=description)

        def step(xb, yb):
            opt.zero_grad()
            loss = loss_fn(model(to_input(torch.from_numpy(xb))), torch.from_numpy(yb))
            loss.backward()
            opt.step()
            return loss.item()
        return step

    @staticmethod
    def float64_run(name, built, batches, state_at):
        """A float64 copy of the model (its parameters and buffers widened
        exactly) with a fresh optimizer of the same kind and settings."""
        model, opt, to_input, loss_fn = built
        m64 = copy.deepcopy(model).double()
        opt64 = type(opt)(m64.parameters(), **opt.defaults)
        losses, states = [], {}
        for xb, yb in batches:
            opt64.zero_grad()
            loss = loss_fn(m64(to_input(torch.from_numpy(xb)).double()), torch.from_numpy(yb))
            loss.backward()
            opt64.step()
            losses.append(loss.item())
            if len(losses) in state_at:
                states[len(losses)] = torch_export.state_tensors(m64, opt64)
        return losses, states

    @staticmethod
    def evaluate(built, x, y, batch):
        """Mean loss and accuracy over the full batches, as mp-run's
        evaluation (batch statistics in batch norm: train mode, without
        touching the running statistics)."""
        model, _, to_input, loss_fn = built
        state = {k: v.clone() for k, v in model.state_dict().items()}
        losses, correct, n = [], 0, 0
        with torch.no_grad():
            for i in range(len(x) // batch):
                xb = to_input(torch.from_numpy(x[i * batch:(i + 1) * batch]))
                yb = torch.from_numpy(y[i * batch:(i + 1) * batch])
                out = model(xb)
                losses.append(loss_fn(out, yb).item())
                correct += (out.argmax(1) == yb).sum().item()
                n += len(yb)
        model.load_state_dict(state)
        return float(np.mean(losses)), correct / n

    @staticmethod
    def state(built):
        return torch_export.state_tensors(built[0], built[1])

    @staticmethod
    def load_checkpoint(built, path):
        return torch_export.load_checkpoint(built[0], path)


if __name__ == "__main__":
    torch.set_num_threads(1)
    digits_driver.main(PyTorch, __doc__)
