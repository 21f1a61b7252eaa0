//===- Vocabulary.cpp - the shared vocabulary for the runtime and Python --===//
//
// mp-tblgen -gen-vocabulary-header writes the enums of mp/IR/Vocabulary.td
// (those marked MP_SharedVocabulary) as the plain C++ header the runtime
// includes (runtime/include/mp/runtime/Vocabulary.h: no MLIR);
// -gen-vocabulary-python writes them, and every enum of the dialects (the
// integers attributes carry: layouts, predicates, schedule shapes), as the
// Python module the exporters import (python/mp_export/vocabulary.py).
// Both are checked in and compared with what this writes by ctest.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "mlir/TableGen/EnumInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"

#include <string>
#include <vector>

using namespace llvm;
using mlir::tblgen::EnumCase;
using mlir::tblgen::EnumInfo;
using mp::tblgen::quoted;

namespace {

/// The enums to write, in name order; false (with an error printed) when
/// one is not numbered 0, 1, 2, ... (the generated tables index by value).
bool collect(const RecordKeeper &records, bool sharedOnly,
             std::vector<const Record *> &out) {
  for (const Record *def :
       records.getAllDerivedDefinitionsIfDefined("EnumInfo")) {
    EnumInfo info(def);
    if (!info.getCppNamespace().starts_with("::mp"))
      continue; // MLIR's own, brought in by the includes
    if (sharedOnly && !def->isSubClassOf("MP_SharedVocabulary"))
      continue;
    std::vector<EnumCase> cases = info.getAllCases();
    for (size_t i = 0; i < cases.size(); ++i)
      if (cases[i].getValue() != static_cast<int64_t>(i)) {
        PrintError(def->getLoc(), "mp-tblgen: enum " + info.getEnumClassName() +
                                      " is not numbered 0, 1, 2, ...");
        return false;
      }
    out.push_back(def);
  }
  llvm::sort(out, [](const Record *a, const Record *b) {
    return EnumInfo(a).getEnumClassName() < EnumInfo(b).getEnumClassName();
  });
  return true;
}

/// "a, b or c".
std::string listOf(const std::vector<EnumCase> &cases) {
  std::string out;
  for (size_t i = 0; i < cases.size(); ++i)
    out += (i == 0                  ? ""
            : i + 1 == cases.size() ? " or "
                                    : ", ") +
           cases[i].getStr().str();
  return out;
}

} // namespace

bool mp::tblgen::emitVocabularyHeader(raw_ostream &os,
                                      const RecordKeeper &records) {
  std::vector<const Record *> enums;
  if (!collect(records, /*sharedOnly=*/true, enums))
    return true;
  os << "//===- Vocabulary.h - the shared vocabulary, for the runtime ---*- "
        "C++ -*-===//\n"
        "//\n"
        "// Written by mp-tblgen -gen-vocabulary-header from "
        "include/mp/IR/Vocabulary.td:\n"
        "// do not edit (`cmake --build build --target mp-update-generated` "
        "rewrites it).\n"
        "// The words the compiler writes into plans and the runtime reads: "
        "each is\n"
        "// spelled once, in the ODS.\n"
        "//\n"
        "//===------------------------------------------------------------"
        "----------===//\n"
        "#ifndef MP_RUNTIME_VOCABULARY_H\n#define MP_RUNTIME_VOCABULARY_H\n\n"
        "#include <cstdint>\n#include <optional>\n#include <string_view>\n\n"
        "namespace mp::rt::vocab {\n";
  for (const Record *def : enums) {
    EnumInfo info(def);
    StringRef name = info.getEnumClassName();
    std::vector<EnumCase> cases = info.getAllCases();
    os << "\n/// " << info.getSummary() << " (" << def->getName() << ").\n"
       << "enum class " << name << " : uint32_t {\n";
    for (const EnumCase &c : cases)
      os << "  " << c.getSymbol() << " = " << c.getValue() << ",\n";
    os << "};\n"
       << "inline constexpr uint32_t kNum" << name << " = " << cases.size()
       << ";\n"
       << "inline constexpr const char *k" << name << "Spellings[] = {";
    for (size_t i = 0; i < cases.size(); ++i)
      os << (i ? ", " : "") << quoted(cases[i].getStr());
    os << "};\n"
       << "/// \"" << listOf(cases) << "\", for messages.\n"
       << "inline constexpr const char *k" << name
       << "List = " << quoted(listOf(cases)) << ";\n"
       << "inline constexpr const char *stringify(" << name << " value) {\n"
       << "  return k" << name << "Spellings[static_cast<uint32_t>(value)];\n"
       << "}\n"
       << "inline std::optional<" << name << "> symbolize" << name
       << "(std::string_view text) {\n"
       << "  for (uint32_t i = 0; i < kNum" << name << "; ++i)\n"
       << "    if (text == k" << name << "Spellings[i])\n"
       << "      return static_cast<" << name << ">(i);\n"
       << "  return std::nullopt;\n"
       << "}\n";
  }
  os << "\n} // namespace mp::rt::vocab\n\n#endif // MP_RUNTIME_VOCABULARY_H\n";
  return false;
}

bool mp::tblgen::emitVocabularyPython(raw_ostream &os,
                                      const RecordKeeper &records) {
  std::vector<const Record *> enums;
  if (!collect(records, /*sharedOnly=*/false, enums))
    return true;
  os << "\"\"\"The shared vocabulary and the dialects' enums, for the "
        "exporters.\n\n"
        "Written by mp-tblgen -gen-vocabulary-python from the ODS "
        "(include/mp/IR/Vocabulary.td,\n"
        "include/mp/Dialect/*/IR/*.td): do not edit (`cmake --build build "
        "--target\n"
        "mp-update-generated` rewrites it). Each enum is an IntEnum whose "
        "members carry\n"
        "the ODS symbol (`Role.OptState`), the integer an attribute holds "
        "(`int(...)`) and\n"
        "the word the IR spells (`.spelling`, \"opt_state\"); "
        "`Role.parse(\"opt_state\")` goes back.\n"
        "\"\"\"\n\nimport enum\n\n\n"
        "class _Vocabulary(enum.IntEnum):\n"
        "    @property\n"
        "    def spelling(self) -> str:\n"
        "        return _SPELLINGS[type(self).__name__][self.value]\n\n"
        "    @classmethod\n"
        "    def parse(cls, text: str):\n"
        "        spellings = _SPELLINGS[cls.__name__]\n"
        "        if text not in spellings:\n"
        "            raise ValueError(\"unknown %s '%s' (expected one of "
        "%s)\"\n"
        "                             % (cls.__name__, text, \", \".join("
        "spellings)))\n"
        "        return cls(spellings.index(text))\n\n"
        "    @classmethod\n"
        "    def spellings(cls) -> tuple:\n"
        "        return _SPELLINGS[cls.__name__]\n";
  std::string table = "\n\n_SPELLINGS = {\n";
  for (const Record *def : enums) {
    EnumInfo info(def);
    StringRef name = info.getEnumClassName();
    os << "\n\nclass " << name << "(_Vocabulary):\n"
       << "    \"\"\"" << info.getSummary() << " (" << def->getName()
       << ").\"\"\"\n\n";
    std::string spellings;
    std::vector<EnumCase> cases = info.getAllCases();
    for (const EnumCase &c : cases) {
      os << "    " << c.getSymbol() << " = " << c.getValue() << "\n";
      spellings += (spellings.empty() ? "" : ", ") + quoted(c.getStr());
    }
    table += "    " + quoted(name) + ": (" + spellings +
             (cases.size() == 1 ? ",)" : ")") + ",\n";
  }
  os << table << "}\n";
  return false;
}
