#!/usr/bin/env python3
"""Fails when the plan seeds the build wrote are not of the current plan
format: every seed's header version must be Plan::kVersion, and the seeds
must carry the newest sections (kernel sources, compile options, a code
section in one of them), so that the plan fuzzer starts from what plans are.

    check_plan_seeds.py runtime/include/mp/runtime/Plan.h BUILD/fuzz-seeds/plan
"""
import os
import re
import struct
import sys


def main(plan_h, seeds):
    with open(plan_h) as f:
        version = int(re.search(r"kVersion = (\d+);", f.read()).group(1))
    names = sorted(n for n in os.listdir(seeds) if n.endswith(".mpplan"))
    if not names:
        print("no plan seeds in %s: the build writes them (mp-fuzz-plan-seeds)" % seeds)
        return 1
    bad = 0
    code = False
    for name in names:
        with open(os.path.join(seeds, name), "rb") as f:
            data = f.read()
        if data[:8] != b"MPPLAN\0\0":
            print("%s: not a plan" % name)
            bad += 1
            continue
        seed_version = struct.unpack_from("<I", data, 8)[0]
        if seed_version != version:
            print("%s: plan format %d, the runtime's is %d" % (name, seed_version, version))
            bad += 1
        code = code or b".code.so" in data
    if not code:
        print("no seed has a code section (--codegen=cpu)")
        bad += 1
    print("%d plan seeds of format %d, %d stale" % (len(names), version, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
