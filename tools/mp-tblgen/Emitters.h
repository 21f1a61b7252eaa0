//===- Emitters.h - mp-tblgen's generators -----------------------*- C++
//-*-===//
#ifndef MP_TOOLS_MPTBLGEN_EMITTERS_H
#define MP_TOOLS_MPTBLGEN_EMITTERS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace llvm {
class RecordKeeper;
} // namespace llvm

namespace mp::tblgen {

/// `s` as a C++ (and Python) string literal.
inline std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

/// runtime/include/mp/runtime/Vocabulary.h (Vocabulary.cpp). Each returns
/// true on an error (TableGen's convention), printed at the ODS record.
bool emitVocabularyHeader(llvm::raw_ostream &os,
                          const llvm::RecordKeeper &records);
/// python/mp_export/vocabulary.py (Vocabulary.cpp).
bool emitVocabularyPython(llvm::raw_ostream &os,
                          const llvm::RecordKeeper &records);

} // namespace mp::tblgen

#endif // MP_TOOLS_MPTBLGEN_EMITTERS_H
