//===- HelpOptions.h - a tool's --help lists its own options ----*- C++ -*-===//
//
// LLVM's libraries register their command-line options when they load: a
// tool linking libMLIR / libLLVM carries several hundred of them (aarch64,
// amdgpu, profile and pass tuning knobs) in its general category, above its
// own options in --help. hideLibraryOptions marks every option registered so
// far Hidden except the ones a tool names: they still parse (and
// --help-hidden lists them), --help shows what the tool is for. Options a
// tool registers afterwards (mlir-opt's pass pipeline and context options,
// registered inside MlirOptMain) are not touched.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_COMMON_HELPOPTIONS_H
#define MP_TOOLS_COMMON_HELPOPTIONS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace mp::tools {

/// Hides the registered options except --help, --help-list, --version,
/// those named in `keep` and those in one of `keepCategories`.
inline void hideLibraryOptions(
    llvm::ArrayRef<llvm::StringRef> keep,
    llvm::ArrayRef<const llvm::cl::OptionCategory *> keepCategories = {}) {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    llvm::cl::Option *option = entry.second;
    if (llvm::is_contained(keep, name) || name == "help" ||
        name == "help-list" || name == "version")
      continue;
    if (llvm::any_of(option->Categories,
                     [&](const llvm::cl::OptionCategory *category) {
                       return llvm::is_contained(keepCategories, category);
                     }))
      continue;
    option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace mp::tools

#endif // MP_TOOLS_COMMON_HELPOPTIONS_H
