"""Exits 1 unless the 'last loss' of two mp-run logs agree within a
relative tolerance: python close_losses.py A.log B.log TOLERANCE."""
import re
import sys


def last_loss(path):
    with open(path) as f:
        found = re.findall(r"last loss ([-0-9.eE+naif]+)", f.read())
    if not found:
        sys.exit(f"{path}: no 'last loss' line")
    return float(found[-1])


a, b = last_loss(sys.argv[1]), last_loss(sys.argv[2])
tolerance = float(sys.argv[3])
if not abs(a - b) <= tolerance * max(1.0, abs(b)):
    sys.exit(f"last losses differ: {a} ({sys.argv[1]}) vs {b} ({sys.argv[2]})")
print(f"last losses agree: {a} vs {b}")
