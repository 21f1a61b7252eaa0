# -*- Python -*-
# lit configuration of mp's regression tests (read through lit.site.cfg.py,
# which the build writes with the paths below).
import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "mp"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mp_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mp_src_root", config.mp_src_root))
config.substitutions.append(("%examples", os.path.join(config.mp_src_root, "examples")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.mp_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("mp-opt", unresolved="fatal"),
         ToolSubst("mp-compile", unresolved="fatal"),
         ToolSubst("mp-run", unresolved="fatal"),
         # Built with the cpu backend only (tests that use it require onednn).
         ToolSubst("mp-bench-limit", unresolved="ignore")]
config.substitutions.append(("%python", sys.executable))
# Upstream's own mlir-opt of the same MLIR (no mp dialect): what another
# compiler reads of mp's upstream-only output (issue 18).
# In a sanitized build (scripts/sanitize.sh) the sanitizer's runtime is
# preloaded into it, so that it can load the instrumented MPPlugin.so.
# %mp_san_preload goes before a test's own LD_PRELOAD list for mp's tools:
# the sanitizer's runtime where the tools load it as a shared library
# (GCC's libasan / libtsan must come first in the list); nothing otherwise.
upstream_mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
san_preload = ""
sanitizer_runtime = getattr(config, "mp_sanitizer_runtime", "")
if sanitizer_runtime:
    upstream_mlir_opt = "env LD_PRELOAD=%s %s" % (sanitizer_runtime,
                                                 upstream_mlir_opt)
    import subprocess
    deps = subprocess.run(["ldd", os.path.join(config.mp_tools_dir, "mp-run")],
                          capture_output=True, text=True).stdout
    if os.path.basename(sanitizer_runtime).split(".so")[0] in deps:
        san_preload = sanitizer_runtime + ":"
config.substitutions.append(("%upstream-mlir-opt", upstream_mlir_opt))
config.substitutions.append(("%mp_san_preload", san_preload))
# Upstream's JIT runner and its runtime libraries: mp's upstream-only
# output compiled by upstream passes alone and run.
mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
mlir_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner_libs = [os.path.join(mlir_lib_dir, name) for name in
               ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
if os.path.exists(mlir_runner) and all(map(os.path.exists, runner_libs)):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%upstream-mlir-runner", mlir_runner))
    config.substitutions.append(("%mlir_runner_libs", ",".join(runner_libs)))
# mp's mlir-opt plugin (dialects, models, passes), for that mlir-opt.
config.substitutions.append(
    ("%mp_plugin", os.path.join(config.mp_obj_root, "lib", "MPPlugin.so")))
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The cpu backend (oneDNN) was built: tests of what it runs and says.
if getattr(config, "mp_have_onednn", "OFF") in ("ON", "TRUE", "1"):
    config.available_features.add("onednn")
