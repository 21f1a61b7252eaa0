"""Writes the hand-made seeds of fuzz/corpus (plans and MLIR are copied
from bench/plans and the examples): small valid inputs of each format, and
the malformed ones the issue's fuzzing found trouble with.

    python3 fuzz/corpus/make_seeds.py
"""
import io
import json
import os
import struct
import zipfile

here = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    with open(os.path.join(here, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(descr, shape, payload, version=1):
    dims = "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header.encode() + payload


def safetensors(tensors, metadata=None):
    header, body = {}, b""
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(body), len(body) + len(data)]}
        body += data
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + body


put("json", "object.json", '{"a": [1, -2.5e3, "x\\u00e9\\n"], "b": null, "c": true}')
put("json", "deep.json", "[" * 2000 + "]" * 2000)
put("json", "numbers.json", "[1e999, -0, 0.000001, 18446744073709551616, -9223372036854775809]")
put("json", "truncated.json", '{"a": [1, 2')

put("npy", "f32.npy", npy("<f4", (2, 3), struct.pack("<6f", 1, 2, 3, 4, 5, 6)))
put("npy", "i64.npy", npy("<i8", (3,), struct.pack("<3q", 1, -2, 3)))
put("npy", "f16-v2.npy", npy("<f2", (2,), struct.pack("<2H", 0x3C00, 0x7E00), version=2))
put("npy", "overflow-shape.npy", npy("<f4", (0, 4611686018427387904, 4611686018427387904), b""))
put("npy", "short-data.npy", npy("<f4", (100, 100), b"\0" * 12))


def npz(arrays):
    """An np.savez archive: stored members, zip64 local records."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)
    return buffer.getvalue()


put("npy", "two.npz", npz({"x": npy("<f4", (2, 2), struct.pack("<4f", 1, 2, 3, 4)),
                           "y": npy("<i8", (2,), struct.pack("<2q", 0, 1))}))

put("policy", "edits.json", json.dumps({"allow": {"add": ["train.relu"]},
                                         "deny": {"remove": ["train.exp"]}}))
put("policy", "fused-names.json", json.dumps({"infer": {"add": ["train.sumtrain.tanh"]}}))
put("policy", "wrong-shapes.json", '{"allow": ["train.matmul"], "clear": {"add": [1]}}')

w = struct.pack("<6f", *[0.5] * 6)
put("safetensors", "params.safetensors",
    safetensors({"w": ("F32", [3, 2], w)}))
put("safetensors", "checkpoint.safetensors",
    safetensors({"w": ("F32", [3, 2], w), "w.momentum_buffer": ("F32", [3, 2], w)},
                {"format": "mp.checkpoint", "format_version": "1", "plan_hash": "0",
                 "policy": "float32", "step": "3", "steps_skipped": "0",
                 "last_overflow_step": "-1", "scaler_state": "[]"}))
put("safetensors", "bad-offsets.safetensors",
    safetensors({"w": ("F32", [3, 2], w)})[:-8])
