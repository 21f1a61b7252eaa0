//===- CodeLibrary.h - the generated code a plan names ----------*- C++ -*-===//
//
// Loads the shared library mp-compile writes next to a plan with fused
// regions (PlanCode, docs/codegen.md): checks that it is the plan's (its
// mp_code_id() returns the plan's id), picks the variant of each region's
// function this CPU runs (AVX-512, else AVX2; cpuFeatureSet(), so
// MP_MAX_CPU_ISA caps it too) and resolves every symbol. The library stays
// loaded while the CodeLibrary lives.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CORE_CODELIBRARY_H
#define MP_RUNTIME_CORE_CODELIBRARY_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace mp::rt {

class CodeLibrary {
public:
  /// The library of `code` (code.resolvedPath: a plan read from a file) with one
  /// function per region, in region order. Unimplemented when this CPU
  /// has no variant of it (no AVX2): the kernels run one by one. Any
  /// other failure means the library is not the plan's: NotFound (no such
  /// file), DataLoss (its size or checksum differs from the plan's record,
  /// checked before it is loaded, or none is recorded), Internal (it does
  /// not load, or is not the plan's code: its id or a symbol).
  static StatusOr<std::unique_ptr<CodeLibrary>> open(const PlanCode &code);
  ~CodeLibrary();
  CodeLibrary(const CodeLibrary &) = delete;
  CodeLibrary &operator=(const CodeLibrary &) = delete;

  const std::vector<FusedFunction> &functions() const { return functions_; }
  /// "avx512" or "avx2": the variant in use.
  const std::string &variant() const { return variant_; }

private:
  CodeLibrary() = default;
  void *handle_ = nullptr;
  std::vector<FusedFunction> functions_;
  std::string variant_;
};

} // namespace mp::rt

#endif // MP_RUNTIME_CORE_CODELIBRARY_H
