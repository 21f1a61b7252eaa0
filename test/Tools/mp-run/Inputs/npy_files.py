"""The .npy / .npz layouts the mp-run tests write, with the standard
library only (numpy's format 1.0 and np.savez's stored zip64 members)."""
import struct
import zipfile


def npy(descr, shape, payload):
    """The bytes of an .npy file of dtype `descr` ('<f4', '<i8')."""
    dims = "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


def f32(shape, values):
    return npy("<f4", shape, struct.pack("<%df" % len(values), *values))


def i64(shape, values):
    return npy("<i8", shape, struct.pack("<%dq" % len(values), *values))


def savez(path, arrays):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)
