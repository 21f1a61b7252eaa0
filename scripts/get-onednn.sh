#!/usr/bin/env bash
# Installs oneDNN v3 for the cpu backend from PyPI into a prefix, without
# pip-installing anything into Python: the wheels are downloaded into a
# cache and their `*.data/data/{include,lib,etc}` trees unpacked.
#
#   scripts/get-onednn.sh [PREFIX]      (default: build/_deps/onednn)
#
# Env: MP_ONEDNN_CACHE (wheel cache, default ~/.cache/mp/onednn-wheels),
#      MP_ONEDNN_VERSION (default 2026.1.0, i.e. oneDNN 3.13).
# Idempotent: does nothing when PREFIX already holds the headers and the
# library. Prints the prefix on its last line.
#
# Why all the dependencies: the PyPI build of oneDNN is the oneAPI one, its
# CPU engine runs on SYCL (DNNL_CPU_RUNTIME=SYCL, TBB threading), so
# libdnnl.so needs the SYCL, TBB, compiler and OpenCL CPU runtimes of the
# `dpcpp-cpp-rt` and `intel-opencl-rt` wheels (~630 MB of wheels, ~2 GB
# unpacked). docs/runtime-cpu.md has the details.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-$root/build/_deps/onednn}
version=${MP_ONEDNN_VERSION:-2026.1.0}
# Without HOME (a bare CI environment) the cache sits beside the build.
cache=${MP_ONEDNN_CACHE:-${XDG_CACHE_HOME:-${HOME:-$root/build}/.cache}/mp/onednn-wheels}

if [[ -f $prefix/include/oneapi/dnnl/dnnl.hpp && -e $prefix/lib/libdnnl.so \
      && -f $prefix/.mp-onednn-$version ]]; then
  echo "get-onednn: oneDNN $version already in $prefix"
  echo "$prefix"
  exit 0
fi

if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "get-onednn: needs python3 -m pip (scripts/setup.sh installs it)" >&2
  exit 1
fi

mkdir -p "$cache"
echo "get-onednn: downloading onednn-devel $version and its runtime wheels into $cache"
# --only-binary: these are binary wheels; never build anything.
python3 -m pip download --quiet --only-binary=:all: --dest "$cache" \
  "onednn-devel==$version" "onednn==$version"

rm -rf "$prefix.tmp"
mkdir -p "$prefix.tmp"
python3 - "$cache" "$prefix.tmp" "$version" <<'PY'
import hashlib, os, re, sys, zipfile
cache, prefix, version = sys.argv[1:]
# The wheels the pinned onednn needs: its Requires-Dist closure, resolved
# against what pip just downloaded (older versions may also sit in the cache:
# the newest of each name wins).
wheels = {}
for f in sorted(os.listdir(cache)):
    if not f.endswith(".whl"):
        continue
    name, ver = f.split("-")[:2]
    key = name.lower().replace("_", "-")
    if key in ("onednn", "onednn-devel") and ver != version:
        continue
    def vkey(v):
        return [int(x) if x.isdigit() else 0 for x in re.split(r"[.]", v)]
    if key not in wheels or vkey(ver) > vkey(wheels[key][0]):
        wheels[key] = (ver, f)
for key, (ver, f) in sorted(wheels.items()):
    with zipfile.ZipFile(os.path.join(cache, f)) as z:
        for info in z.infolist():
            if ".data/data/" not in info.filename or info.filename.endswith("/"):
                continue
            rel = info.filename.split(".data/data/", 1)[1]
            if rel.split("/", 1)[0] not in ("include", "lib", "etc"):
                continue
            dst = os.path.join(prefix, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with z.open(info) as src, open(dst, "wb") as out:
                out.write(src.read())
            if info.external_attr >> 16 & 0o111:
                os.chmod(dst, 0o755)
    print(f"get-onednn: unpacked {f}")
# Wheels cannot hold symlinks: libdnnl.so, .so.3 and .so.3.13 are three
# copies of 110 MB. Identical `libX.so*` files become links to the longest
# name, as a normal install has them.
libdir = os.path.join(prefix, "lib")
groups = {}
for f in os.listdir(libdir):
    m = re.match(r"(lib.+?\.so)(\.[0-9.]+)?$", f)
    p = os.path.join(libdir, f)
    if m and os.path.isfile(p) and not os.path.islink(p):
        groups.setdefault(m.group(1), []).append(f)
for base, names in groups.items():
    names.sort(key=len, reverse=True)
    digest = {}
    for f in names:
        p = os.path.join(libdir, f)
        h = (os.path.getsize(p), hashlib.sha1(open(p, "rb").read()).hexdigest())
        if h in digest:
            os.remove(p)
            os.symlink(digest[h], p)
        else:
            digest[h] = f
PY
touch "$prefix.tmp/.mp-onednn-$version"
rm -rf "$prefix"
mv "$prefix.tmp" "$prefix"
echo "get-onednn: oneDNN $version in $prefix"
echo "$prefix"
