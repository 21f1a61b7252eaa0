#!/usr/bin/env python3
"""Writes scikit-learn's handwritten digits as .npy files for mp-run.

The 1797 8x8 digits ship inside the scikit-learn wheel as
sklearn/datasets/data/digits.csv.gz. This script fetches the wheel with pip
(no install, no numpy needed), reads that one file, scales each image to
28x28 (bilinear, like MNIST's size, so the MLP's 784 inputs and the CNN's
1x28x28 input both take it), normalizes pixels to [0, 1], shuffles with a
fixed seed and splits 80/20:

  OUT/train_x.npy  float32 [N, 784]     OUT/train_y.npy  int64 [N]
  OUT/test_x.npy   float32 [M, 784]     OUT/test_y.npy   int64 [M]

Usage: get_digits.py OUT_DIR [--cache DIR]
"""
import argparse
import glob
import gzip
import os
import random
import struct
import subprocess
import sys
import zipfile

SIZE = 28


def fetch_csv(cache):
    os.makedirs(cache, exist_ok=True)
    wheels = glob.glob(os.path.join(cache, "scikit_learn-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet",
                        "--no-deps", "--only-binary=:all:", "-d", cache,
                        "scikit-learn"], check=True)
        wheels = glob.glob(os.path.join(cache, "scikit_learn-*.whl"))
    if not wheels:
        sys.exit("get_digits: pip did not fetch a scikit-learn wheel")
    with zipfile.ZipFile(sorted(wheels)[-1]) as wheel:
        return gzip.decompress(
            wheel.read("sklearn/datasets/data/digits.csv.gz")).decode()


def upsample(pixels):
    """8x8 -> 28x28 bilinear, pixel centres aligned, values in [0, 1]."""
    out = []
    scale = 8 / SIZE
    for i in range(SIZE):
        y = min(max((i + 0.5) * scale - 0.5, 0.0), 7.0)
        y0 = int(y)
        y1 = min(y0 + 1, 7)
        fy = y - y0
        for j in range(SIZE):
            x = min(max((j + 0.5) * scale - 0.5, 0.0), 7.0)
            x0 = int(x)
            x1 = min(x0 + 1, 7)
            fx = x - x0
            top = pixels[y0 * 8 + x0] * (1 - fx) + pixels[y0 * 8 + x1] * fx
            bottom = pixels[y1 * 8 + x0] * (1 - fx) + pixels[y1 * 8 + x1] * fx
            out.append((top * (1 - fy) + bottom * fy) / 16.0)
    return out


def write_npy(path, descr, shape, payload):
    """Writes a version-1.0 .npy file (little-endian, C order)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape) if len(shape) > 1
        else "%d," % shape[0])
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(path + ".tmp", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(payload)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--cache", default=None)
    args = parser.parse_args()
    cache = args.cache or os.path.join(args.out, "cache")

    rows = [line.split(",") for line in fetch_csv(cache).splitlines()
            if line.strip()]
    samples = [([float(v) for v in r[:64]], int(r[64])) for r in rows]
    random.Random(0).shuffle(samples)
    split = len(samples) * 4 // 5
    os.makedirs(args.out, exist_ok=True)
    for name, part in (("train", samples[:split]), ("test", samples[split:])):
        xs = bytearray()
        for pixels, _ in part:
            xs += struct.pack("<%df" % (SIZE * SIZE), *upsample(pixels))
        ys = struct.pack("<%dq" % len(part), *[label for _, label in part])
        write_npy(os.path.join(args.out, name + "_x.npy"), "<f4",
                  (len(part), SIZE * SIZE), bytes(xs))
        write_npy(os.path.join(args.out, name + "_y.npy"), "<i8",
                  (len(part),), ys)
        print("get_digits: %s: %d samples" % (name, len(part)))


if __name__ == "__main__":
    main()
