//===- PrecisionOpInterface.cpp - how an op takes part in AMP -------------===//
#include "mp/Interfaces/PrecisionOpInterface.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mp;

llvm::StringRef mp::stringifyPrecisionCategory(PrecisionCategory category) {
  switch (category) {
  case PrecisionCategory::Allow:
    return "allow";
  case PrecisionCategory::Deny:
    return "deny";
  case PrecisionCategory::Infer:
    return "infer";
  case PrecisionCategory::Clear:
    return "clear";
  }
  llvm_unreachable("unknown precision category");
}

std::optional<PrecisionCategory>
mp::parsePrecisionCategory(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PrecisionCategory>>(name)
      .Case("allow", PrecisionCategory::Allow)
      .Case("deny", PrecisionCategory::Deny)
      .Case("infer", PrecisionCategory::Infer)
      .Case("clear", PrecisionCategory::Clear)
      .Default(std::nullopt);
}

#include "mp/Interfaces/PrecisionOpInterface.cpp.inc"
