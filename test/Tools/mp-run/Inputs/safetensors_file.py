"""Reads a safetensors file (a checkpoint) with the standard library: its
tensors as {name: (dtype, shape, bytes)}, the metadata left out."""
import json
import struct


def tensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    return {name: (t["dtype"], t["shape"],
                   body[t["data_offsets"][0]:t["data_offsets"][1]])
            for name, t in header.items() if name != "__metadata__"}
