//===- SessionCode.cpp - fused regions on the plan's generated code -------===//
//
// A plan may name a library of functions mp-compile generated for runs of
// its kernels (PlanCode, docs/codegen.md). Where the backend calls
// generated code (the cpu backend) and the library loads here, each such
// run is one call of its function; elsewhere (the reference backend, the
// oracle; a CPU without AVX2; MP_GENERATED_CODE=off) the kernels run one
// by one, as without code, and generatedCodeStatus() says why. A library
// that is not the plan's (missing, truncated, replaced, another plan's)
// is an error, not a fallback: the kernels one by one give slightly other
// numbers than the generated code (its transcendental approximations),
// which would then pass under the plan's name. MP_GENERATED_CODE=off is
// the named way to run such a plan kernel by kernel.
//
//===----------------------------------------------------------------------===//
#include "core/CodeLibrary.h"
#include "mp/runtime/Session.h"

#include <cstdlib>
#include <cstring>

using namespace mp::rt;

Status Session::useGeneratedCode() {
  const PlanCode &code = plan_.code;
  if (code.empty())
    return Status::ok();
  size_t kernels = 0;
  for (const FusedRegion &region : code.regions)
    kernels += region.count;
  std::string what = std::to_string(code.regions.size()) + " fused region" +
                     (code.regions.size() == 1 ? "" : "s") + " (" +
                     std::to_string(kernels) + " kernels)";
  const char *setting = std::getenv("MP_GENERATED_CODE");
  if (setting && std::strcmp(setting, "off") == 0) {
    codeStatus_ = what + " run kernel by kernel: MP_GENERATED_CODE=off";
    return Status::ok();
  }
  if (!backend_->runsGeneratedCode() || device_) {
    codeStatus_ = what + " run kernel by kernel: the " +
                  std::string(backend_->name()) +
                  " backend does not run generated host code";
    return Status::ok();
  }
  StatusOr<std::unique_ptr<CodeLibrary>> library = CodeLibrary::open(code);
  if (!library.isOk()) {
    if (library.status().code() != StatusCode::Unimplemented)
      return Status(library.status().code(),
                    "the plan's generated code: " +
                        library.status().message() +
                        " (or MP_GENERATED_CODE=off runs its " + what +
                        " kernel by kernel, with slightly different "
                        "numbers)");
    codeStatus_ = what + " run kernel by kernel: " + library.status().message();
    return Status::ok();
  }
  code_ = std::move(*library);
  regionAt_.assign(plan_.kernels.size(), -1);
  for (size_t r = 0; r < code.regions.size(); ++r) {
    const FusedRegion &region = code.regions[r];
    regionAt_[region.first] = static_cast<int32_t>(r);
    for (int parity : {0, 1}) {
      std::vector<void *> operands;
      for (uint32_t id : region.operands)
        operands.push_back(views_[parity][id].data);
      regionOperands_[parity].push_back(std::move(operands));
    }
  }
  codeStatus_ = what + " on generated code, " + code_->variant() +
                " variant (" + code.library + ")";
  return Status::ok();
}

Status Session::runRegion(size_t r) {
  return backend_->runFused(plan_.code.regions[r], code_->functions()[r],
                            regionOperands_[parity_][r].data());
}
