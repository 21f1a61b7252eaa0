#!/usr/bin/env python3
"""Counts hand-spelled vocabulary outside the ODS and the generated files.

The shared vocabulary (include/mp/IR/Vocabulary.td: policies, precision
categories, step roles, loss-scaler tensor names) and the dialects' enum
integers are spelled once, in the ODS; the compiler, the runtime and the
exporters read the generated enums. This script finds what is spelled by
hand again in the project's sources (tests excluded: they spell what they
check):

- a string literal equal to a shared spelling in C++ (lib/, include/,
  runtime/src, runtime/include, tools/) or Python (python/mp_export);
- an enum attribute written as a bare integer in Python
  (`Attr("4 : i64")`, the integer a dialect enum holds).

Generic words that are also operand names in messages ("input", "output",
"loss", "label", "param", "check", and the categories' English words) are
counted only where they sit in a role position: `train.role`, a
`builder.arg`/`result` role argument, or a role tuple. The spellings come
from the generated python/mp_export/vocabulary.py, so the list cannot go
stale. `--check` exits 1 when anything is found (docs/design.md,
"One vocabulary").
"""
import argparse
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED = {"runtime/include/mp/runtime/Vocabulary.h",
             "runtime/include/mp/runtime/OpTable.h",
             "python/mp_export/vocabulary.py"}
GENERIC = {"input", "output", "loss", "label", "param", "check", "buffer",
           "allow", "deny", "infer", "clear"}


def vocabulary():
    spec = importlib.util.spec_from_file_location(
        "vocabulary", os.path.join(ROOT, "python/mp_export/vocabulary.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    words = set()
    for name in ("PolicyKind", "PrecisionCategory", "Role", "ScalerTensor"):
        words.update(getattr(module, name).spellings())
    return words


def sources():
    for top, exts in (("lib", (".cpp", ".h")), ("include", (".h",)),
                      ("runtime/src", (".cpp", ".h")),
                      ("runtime/include", (".h",)), ("tools", (".cpp", ".h")),
                      ("python/mp_export", (".py",))):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                path = os.path.relpath(os.path.join(folder, f), ROOT)
                if f.endswith(exts) and path not in GENERATED:
                    yield path


def findings(path, words):
    python = path.endswith(".py")
    distinctive = sorted(words - GENERIC, key=len, reverse=True)
    literal = re.compile(r'"(%s)"' % "|".join(re.escape(w) for w in distinctive))
    generic_words = "|".join(sorted(words & GENERIC))
    # A role in a role position: `train.role = "..."`, a comparison with a
    # role, a (value, "role", name) tuple, or the last argument of a
    # builder.arg/result call.
    role_positions = [
        re.compile(r'train\.role = \\?"(%s)"' % generic_words),
        re.compile(r'\b(?:role|kind)\b[^=\n]{0,8}[!=]= "(%s)"' % generic_words),
        re.compile(r'\(\w[\w\[\]".]*, "(%s)", (?!None)' % generic_words),
        re.compile(r'builder\.(?:arg|result)\((?:[^()]|\([^()]*\))*, "(%s)"\)'
                   % generic_words),
    ]
    bare_enum = re.compile(r'Attr\("\d+ : i64"\)')
    out = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if python:
                code = line.split("#")[0]
            else:
                code = re.sub(r"/\*.*?\*/", "", line.split("//")[0])
            hits = literal.findall(code)
            # numpy's and the frameworks' own dtype and policy names (the
            # same word as the float32 policy) are their vocabulary.
            if python and ("dtype" in code or '"float64"' in code or
                           "float16" in code):
                hits = [h for h in hits if h != "float32"]
            for pattern in role_positions if python else role_positions[:2]:
                hits += pattern.findall(code)
            if python:
                hits += bare_enum.findall(code)
            out += [(number, h, line.strip()) for h in hits]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when anything is hand-spelled")
    args = parser.parse_args()
    words = vocabulary()
    total = 0
    for path in sources():
        for number, word, line in findings(path, words):
            print("%s:%d: %s    %s" % (path, number, word, line[:100]))
            total += 1
    print("hand-spelled vocabulary outside the ODS and tests: %d" % total)
    return 1 if args.check and total else 0


if __name__ == "__main__":
    sys.exit(main())
