#!/usr/bin/env python3
"""Checks the dependency rules between the project's parts (docs/design.md,
"Layers"), from the #include lines of every C++ file and the link lines of
the runtime's CMakeLists.txt. Exits 1 naming each broken rule's file and
line; ctest `layering/includes` runs it.

The rules, bottom to top: support <- plan <- core <- backends (reference,
cpu, cuda) <- tools; the compiler (lib/, include/mp) sees the runtime only
through its public headers.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
BACKENDS = ("cpu/", "cuda/", "reference/")
PRIVATE = ("support/", "plan/", "core/", "common/", "comm/") + BACKENDS

# (folder, what its files must not include, why)
RULES = [
    ("runtime", ("mlir/", "llvm/"), "the runtime never includes MLIR or LLVM"),
    ("runtime/src/support", ("mp/", "plan/", "core/", "common/") + BACKENDS,
     "support is the floor: it includes only the standard library and itself"),
    ("runtime/src/plan", ("core/", "common/") + BACKENDS,
     "plan never includes core or a backend"),
    ("runtime/src/core", ("cpu/", "cuda/"),
     "core never includes a backend (the registry names factories from Backend.h)"),
    ("runtime/src/comm", ("core/", "common/") + BACKENDS,
     "the communicator (MPI) includes no core or backend file: the session uses it"),
    ("runtime/src/reference", ("cpu/", "cuda/"),
     "the reference backend includes no other backend"),
    ("runtime/include", PRIVATE,
     "the runtime's public headers include no private one"),
    ("lib", PRIVATE, "the compiler sees the runtime through its public headers only"),
    ("include/mp", PRIVATE, "the compiler sees the runtime through its public headers only"),
]


def files(folder):
    for top, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(names):
            if name.endswith((".cpp", ".h", ".cu", ".cuh", ".inc")):
                yield os.path.join(top, name)


def main():
    broken = []
    for folder, banned, why in RULES:
        for path in files(folder):
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1).startswith(banned):
                        broken.append("%s:%d: includes %s: %s" % (
                            os.path.relpath(path, ROOT), number, m.group(1), why))
    # Link lines: the plan library stands alone (the compiler links it).
    with open(os.path.join(ROOT, "runtime/CMakeLists.txt")) as f:
        cmake = f.read()
    for m in re.finditer(r"target_link_libraries\(mp_plan\b([^)]*)\)", cmake):
        if re.search(r"\bmp_runtime\b|\bdnnl\b|cuda", m.group(1)):
            broken.append("runtime/CMakeLists.txt: mp_plan links %s: plan "
                          "never links core or a backend" % m.group(1).strip())
    for line in broken:
        print(line)
    print("%d rules, %d broken" % (len(RULES) + 1, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
