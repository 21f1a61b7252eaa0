//===- CodeLibrary.cpp - the generated code a plan names ------------------===//
#include "core/CodeLibrary.h"

#include "mp/runtime/CpuFeatures.h"

#include <dlfcn.h>

using namespace mp::rt;

StatusOr<std::unique_ptr<CodeLibrary>>
CodeLibrary::open(const PlanCode &code) {
  if (code.resolvedPath.empty())
    return unimplemented("the plan names generated code ('" + code.library +
                         "') but was not read from a file (readPlanFile), so "
                         "the folder of its library is unknown");
  const std::string &path = code.resolvedPath;
  const CpuFeatureSet &cpu = cpuFeatureSet();
  std::string variant = cpu.avx512 ? "avx512" : cpu.avx2 && cpu.f16c ? "avx2" : "";
  if (variant.empty())
    return unimplemented("the generated code needs AVX2, FMA and F16C "
                              "at least; this CPU (or MP_MAX_CPU_ISA) has " +
                              cpuFeatures());
  // The bytes are the plan's before dlopen maps them: a truncated file
  // would crash the process inside dlopen (SIGBUS), a replaced one run
  // other code under the plan's name.
  MP_RETURN_IF_ERROR(checkCodeLibrary(code));
  std::unique_ptr<CodeLibrary> library(new CodeLibrary());
  // RTLD_LOCAL: two plans' libraries never see each other's symbols.
  library->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    const char *why = dlerror();
    return internalError("cannot load the plan's generated code '" + path +
                         "': " + (why ? why : "unknown error") +
                         " (mp-compile writes it next to the plan; copy the "
                         "two together)");
  }
  auto *id = reinterpret_cast<uint64_t (*)()>(
      dlsym(library->handle_, "mp_code_id"));
  if (!id)
    return internalError("'" + path +
                         "' is not mp-compile's generated code (no "
                         "mp_code_id)");
  if (id() != code.id)
    return internalError(
        "'" + path +
        "' was generated for another plan (its code id does not match the "
        "plan's): recompile the plan, which rewrites both");
  library->variant_ = variant;
  for (const FusedRegion &region : code.regions) {
    std::string symbol = region.symbol + "_" + variant;
    void *fn = dlsym(library->handle_, symbol.c_str());
    if (!fn)
      return internalError("'" + path + "' has no function '" + symbol +
                           "'");
    library->functions_.push_back(reinterpret_cast<FusedFunction>(fn));
  }
  return library;
}

CodeLibrary::~CodeLibrary() {
  if (handle_)
    dlclose(handle_);
}
