#!/usr/bin/env python3
"""Writes the linalg-on-tensors and TOSA that torch-mlir makes of a small
ResNet (issue 18: real compiler IR in the tests).

    PYTHONPATH=DIR .venv/bin/python test/ExternalModels/Inputs/torch_mlir_resnet.py

after `pip install --no-deps --target DIR torch-mlir` (PyPI's torch-mlir
wheel, importing into the repository's PyTorch). Writes
torch-mlir-resnet-linalg.mlir and torch-mlir-resnet-tosa.mlir next to this
script; both are checked in, so the tests need no torch-mlir. The weights
are seeded, so a rerun with the same versions writes the same files.

The network is ResNet-18's pattern at toy size: a 3x3 stem with batch norm,
ReLU and max pooling, a basic block with an identity shortcut, a
downsampling block (stride 2, 1x1 convolution shortcut), global average
pooling and a linear head; batch norm in inference form, as torch-mlir's
importers export a forward graph.
"""
import os
import sys

import torch
import torch.nn as nn
from torch_mlir import fx


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class TinyResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.stem(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def main():
    torch.manual_seed(0)
    model = TinyResNet().eval()
    example = torch.randn(2, 3, 16, 16)
    here = os.path.dirname(os.path.abspath(__file__))
    for kind, name in (("linalg-on-tensors", "linalg"), ("tosa", "tosa")):
        module = fx.export_and_import(model, example, output_type=kind,
                                      func_name="resnet")
        path = os.path.join(here, f"torch-mlir-resnet-{name}.mlir")
        with open(path, "w") as out:
            out.write(f"// Written by torch_mlir_resnet.py (torch-mlir fx importer, "
                      f"output_type={kind}); do not edit.\n")
            out.write(str(module))
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
