"""Writes the next-token data of data.mlir (target = token + 1 mod 6) as
.npy, .npz (np.savez's layout: stored zip64 members) and .safetensors
files, and broken variants, with the standard library only."""
import json
import os
import struct
import sys
import zipfile


def npy(descr, shape, payload):
    dims = "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


def ints(values, shape, descr="<i8"):
    fmt = {"<i8": "q", "<i4": "i"}[descr]
    return npy(descr, shape, struct.pack("<%d%s" % (len(values), fmt), *values))


def savez(path, arrays, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)


def safetensors(path, tensors):
    header, body = {}, b""
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(body), len(body) + len(data)]}
        body += data
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + body)


out = sys.argv[1]
n, t = 64, 4
tokens = [(i * 7 + j * 3) % 6 for i in range(n) for j in range(t)]
targets = [(v + 1) % 6 for v in tokens]
files = {
    "tokens.npy": ints(tokens, (n, t)),
    "targets.npy": ints(targets, (n, t)),
    "tokens_i32.npy": ints(tokens, (n, t), "<i4"),
    "tokens_flat.npy": ints(tokens, (n * t,)),
    "tokens_float.npy": npy("<f4", (n, t), struct.pack("<%df" % (n * t), *tokens)),
    "tokens_far.npy": ints(tokens[:37] + [6] + tokens[38:], (n, t)),
    "targets_short.npy": ints(targets[:-t], (n - 1, t)),
}
for name, data in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
savez(os.path.join(out, "seq.npz"), {"tokens": files["tokens.npy"], "targets": files["targets.npy"]})
savez(os.path.join(out, "seq_extra.npz"), {"tokens": files["tokens.npy"], "targets": files["targets.npy"],
                                           "unused": files["tokens.npy"]})
savez(os.path.join(out, "seq_compressed.npz"), {"tokens": files["tokens.npy"]}, zipfile.ZIP_DEFLATED)
with open(os.path.join(out, "seq.npz"), "rb") as f:
    corrupt = bytearray(f.read())
corrupt[200] ^= 0xFF  # inside the first member's array data
with open(os.path.join(out, "seq_corrupt.npz"), "wb") as f:
    f.write(corrupt)
# Initial values for frozen_scale.mlir: the frozen buffer with them, and
# without it.
emb = [((i * 5) % 7 - 3) * 0.1 for i in range(48)]
safetensors(os.path.join(out, "init.safetensors"),
            {"tok_emb": ("F32", [6, 8], struct.pack("<48f", *emb)),
             "head": ("F32", [8, 6], struct.pack("<48f", *reversed(emb))),
             "logit_scale": ("F32", [32, 6], struct.pack("<192f", *([2.0] * 192)))})
safetensors(os.path.join(out, "init_params_only.safetensors"),
            {"tok_emb": ("F32", [6, 8], struct.pack("<48f", *emb)),
             "head": ("F32", [8, 6], struct.pack("<48f", *reversed(emb)))})
safetensors(os.path.join(out, "seq.safetensors"),
            {"tokens": ("I64", [n, t], struct.pack("<%dq" % (n * t), *tokens)),
             "targets": ("I32", [n, t], struct.pack("<%di" % (n * t), *targets))})
