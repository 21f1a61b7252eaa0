//===- Vocabulary.h - the names that cross out of the compiler --*- C++ -*-===//
//
// The enums of Vocabulary.td: precision policies and categories, the roles
// of a training step's values, the loss scaler's tensors, each with its
// generated symbolize* (text -> enum) and stringify* (enum -> text). No
// file of the compiler spells these words itself.
//
//===----------------------------------------------------------------------===//
#ifndef MP_IR_VOCABULARY_H
#define MP_IR_VOCABULARY_H

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

#include "mp/IR/Vocabulary.h.inc"

namespace mp {

/// "a, b or c": every spelling of an enum, for messages.
template <typename Enum, typename Stringify>
std::string spellingsOf(unsigned maxValue, Stringify stringify) {
  std::string out;
  for (unsigned v = 0; v <= maxValue; ++v)
    out += (v == 0          ? ""
            : v == maxValue ? " or "
                            : ", ") +
           stringify(static_cast<Enum>(v)).str();
  return out;
}

inline std::string policySpellings() {
  return spellingsOf<PolicyKind>(getMaxEnumValForPolicyKind(),
                                 stringifyPolicyKind);
}

} // namespace mp

#endif // MP_IR_VOCABULARY_H
