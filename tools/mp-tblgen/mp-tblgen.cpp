//===- mp-tblgen.cpp - the runtime's op table from the dialects' ODS ------===//
//
// A TableGen backend: reads TrainOps.td and MPOps.td (through
// include/mp/Target/Plan/RuntimeOps.td) and writes the plain C++ header the
// runtime includes (runtime/include/mp/runtime/OpTable.h): one OpId per op,
// and each op's schema, its operand and result counts (variadic or fixed)
// and its attributes (name, kind, required or default, enum spellings).
// The runtime builds without MLIR, so the header is checked in; the ctest
// `generated/op-table` fails when it differs from what this tool writes,
// and the build target `mp-update-generated` rewrites it
// (CONTRIBUTING.md, "Add an op").
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"
#include "common/HelpOptions.h"

#include "mlir/TableGen/Attribute.h"
#include "mlir/TableGen/EnumInfo.h"
#include "mlir/TableGen/Operator.h"
#include "mlir/TableGen/Pass.h"
#include "mlir/TableGen/Trait.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"

#include <map>
#include <string>
#include <vector>

using namespace llvm;
using mlir::tblgen::Operator;
using mp::tblgen::quoted;

namespace {

/// "train.conv2d_backward_data" -> "TrainConv2dBackwardData".
std::string idName(StringRef opName) {
  std::string out;
  bool upper = true;
  for (char c : opName) {
    if (c == '.' || c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper ? toUpper(c) : c);
    upper = false;
  }
  return out;
}

struct AttrRow {
  std::string name, kind;
  bool required = false, hasDefault = false;
  std::string defaultInt = "0", defaultFloat = "0", defaultString = "nullptr";
  std::string defaultInts = "nullptr", enumCases = "nullptr";
  size_t numDefaultInts = 0, numEnumCases = 0;
};

struct Emitter {
  raw_ostream &os;
  std::vector<std::string> arrays; // helper constants, in order
  std::map<std::string, std::string> enumArrays;

  /// The runtime's kind of `attr`, or "" for attributes plans never carry.
  static std::string kindOf(const mlir::tblgen::Attribute &attr) {
    mlir::tblgen::Attribute base = attr.getBaseAttr();
    if (base.isEnumAttr())
      return "String";
    StringRef def = base.getAttrDefName();
    if (def == "UnitAttr" || def == "BoolAttr")
      return "Flag";
    if (def == "I64Attr" || def == "I32Attr" || def == "SI64Attr")
      return "Int";
    if (def == "F64Attr" || def == "F32Attr")
      return "Float";
    if (def == "DenseI64ArrayAttr")
      return "Ints";
    if (def == "StrAttr")
      return "String";
    if (def == "ElementsAttr")
      return "Elements";
    return "";
  }

  bool row(const Operator &op, const mlir::tblgen::NamedAttribute &named,
           AttrRow &out) {
    const mlir::tblgen::Attribute &attr = named.attr;
    out.name = named.name.str();
    out.kind = kindOf(attr);
    if (out.kind.empty()) {
      PrintError(op.getLoc(), "mp-tblgen: attribute '" + out.name +
                                  "' of " + op.getOperationName() +
                                  " has a kind the runtime has no form for (" +
                                  attr.getBaseAttr().getAttrDefName() + ")");
      return false;
    }
    mlir::tblgen::Attribute base = attr.getBaseAttr();
    if (base.isEnumAttr()) {
      mlir::tblgen::EnumInfo info(base.getDef());
      std::string key = info.getEnumClassName().str();
      auto it = enumArrays.find(key);
      if (it == enumArrays.end()) {
        std::string array = "kEnum" + key;
        std::string text = "inline constexpr const char *" + array + "[] = {";
        std::vector<mlir::tblgen::EnumCase> cases = info.getAllCases();
        for (size_t i = 0; i < cases.size(); ++i) {
          if (cases[i].getValue() != static_cast<int64_t>(i)) {
            PrintError(op.getLoc(), "mp-tblgen: enum " + key +
                                        " is not numbered 0, 1, ...");
            return false;
          }
          text += (i ? ", " : "") + quoted(cases[i].getStr());
        }
        arrays.push_back(text + "};");
        it = enumArrays.emplace(key, array).first;
      }
      out.enumCases = it->second;
      out.numEnumCases = mlir::tblgen::EnumInfo(base.getDef()).getAllCases().size();
    }
    // UnitAttr is optional by nature: absent means false.
    out.required = !attr.isOptional() && !attr.hasDefaultValue() &&
                   out.kind != "Flag";
    if (!attr.hasDefaultValue())
      return true;
    out.hasDefault = true;
    StringRef text = attr.getDefaultValue().trim();
    if (base.isEnumAttr()) {
      // "::mp::train::Layout::NCHW": the case's spelling.
      out.defaultString = quoted(text.rsplit("::").second);
    } else if (out.kind == "Int") {
      out.defaultInt = text.str();
    } else if (out.kind == "Float") {
      out.defaultFloat = text.str();
    } else if (out.kind == "String") {
      out.defaultString = text.str(); // already a C++ string literal
    } else if (out.kind == "Ints") {
      std::string array = "kDefault" + idName(op.getOperationName()) +
                          idName(out.name);
      SmallVector<StringRef> parts;
      text.trim("{} ").split(parts, ',', -1, false);
      std::string body;
      for (StringRef p : parts)
        body += (body.empty() ? "" : ", ") + p.trim().str();
      arrays.push_back("inline constexpr int64_t " + array + "[] = {" + body +
                       "};");
      out.defaultInts = array;
      out.numDefaultInts = parts.size();
    } else if (out.kind == "Flag") {
      out.defaultInt = text == "true" ? "1" : "0";
    }
    return true;
  }

  bool run(const RecordKeeper &records) {
    std::vector<std::pair<std::string, const Record *>> defs;
    for (const Record *def : records.getAllDerivedDefinitions("Op"))
      defs.emplace_back(Operator(def).getOperationName(), def);
    llvm::sort(defs);
    std::vector<Operator> ops;
    ops.reserve(defs.size());
    for (const auto &[name, def] : defs)
      ops.emplace_back(def);

    std::vector<AttrRow> attrs;
    std::vector<std::string> opRows;
    for (const Operator &op : ops) {
      size_t first = attrs.size();
      for (const mlir::tblgen::NamedAttribute &named : op.getAttributes()) {
        if (named.attr.isDerivedAttr())
          continue;
        AttrRow r;
        if (!row(op, named, r))
          return true;
        attrs.push_back(r);
      }
      // Optional operands (a fused bias) make min < max; a variadic one
      // makes the count unbounded (max is then the number of groups).
      int inputs = op.getNumOperands(), outputs = op.getNumResults();
      int minIn = 0, minOut = 0;
      bool variadicIn = false, variadicOut = false;
      for (int i = 0; i < inputs; ++i) {
        const mlir::tblgen::NamedTypeConstraint &v = op.getOperand(i);
        variadicIn |= v.isVariadic();
        minIn += !v.isVariableLength();
      }
      for (int i = 0; i < outputs; ++i) {
        const mlir::tblgen::NamedTypeConstraint &v = op.getResult(i);
        variadicOut |= v.isVariadic();
        minOut += !v.isVariableLength();
      }
      // Optimizer updates (OptimizerOpInterface): the runtime names the
      // parameter a failed gradient check belongs to by them.
      bool optimizer = false;
      for (const mlir::tblgen::Trait &trait : op.getTraits())
        if (const auto *i = dyn_cast<mlir::tblgen::InterfaceTrait>(&trait))
          optimizer |= i->getFullyQualifiedTraitName() ==
                       "::mp::train::OptimizerOpInterface::Trait";
      opRows.push_back("  {" + quoted(op.getOperationName()) + ", " +
                       std::to_string(minIn) + ", " +
                       (variadicIn ? "true" : "false") + ", " +
                       std::to_string(inputs) + ", " + std::to_string(minOut) +
                       ", " + (variadicOut ? "true" : "false") + ", " +
                       std::to_string(outputs) + ", " + std::to_string(first) +
                       ", " + std::to_string(attrs.size() - first) + ", " +
                       (optimizer ? "true" : "false") + "},");
    }

    os << "//===- OpTable.h - the ops plans run (generated) ----------------*- "
          "C++ -*-===//\n"
          "//\n"
          "// GENERATED by mp-tblgen from TrainOps.td and MPOps.td: do not "
          "edit.\n"
          "// Rewrite it with `cmake --build build --target "
          "mp-update-generated`;\n"
          "// the ctest generated/op-table fails while it differs from the "
          "ODS.\n"
          "//\n"
          "//===------------------------------------------------------------"
          "----------===//\n"
          "#ifndef MP_RUNTIME_OPTABLE_H\n#define MP_RUNTIME_OPTABLE_H\n\n"
          "#include \"mp/runtime/OpSchema.h\"\n\nnamespace mp::rt {\n\n"
          "/// One id per op of the train and mp dialects, in name order.\n"
          "enum class OpId : uint16_t {\n";
    for (const Operator &op : ops)
      os << "  " << idName(op.getOperationName()) << ",\n";
    os << "  /// Not an op: a kernel whose name is not resolved (yet).\n"
          "  Unknown,\n";
    os << "};\n\ninline constexpr size_t kNumOps = " << ops.size()
       << ";\n\nnamespace op_table {\n";
    for (const std::string &a : arrays)
      os << a << "\n";
    std::vector<std::string> names;
    for (const AttrRow &r : attrs)
      names.push_back(r.name);
    llvm::sort(names);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    os << "} // namespace op_table\n\n"
          "/// Every attribute name of the ops, in name order. Kernels read\n"
          "/// attributes by these (KernelDesc::getInt(AttrName::axis, ...)),\n"
          "/// so that a misspelt name does not compile.\n"
          "enum class AttrName : uint16_t {\n";
    for (const std::string &name : names)
      os << "  " << name << ",\n";
    os << "};\n\ninline constexpr size_t kNumAttrNames = " << names.size()
       << ";\n\n/// Indexed by AttrName.\n"
          "inline constexpr const char *kAttrNames[kNumAttrNames] = {\n";
    for (const std::string &name : names)
      os << "  " << quoted(name) << ",\n";
    os << "};\n\n"
          "/// Every op's attributes; an op's are kOpSchemas[id].firstAttr ..\n"
          "/// + numAttrs.\n"
          "inline constexpr AttrSchema kAttrSchemas[] = {\n";
    for (const AttrRow &r : attrs) {
      auto ns = [](const std::string &s) {
        return s == "nullptr" || s.front() == '"' ? s : "op_table::" + s;
      };
      os << "  {" << quoted(r.name) << ", AttrName::" << r.name
         << ", AttrKind::" << r.kind << ", "
         << (r.required ? "true" : "false") << ", "
         << (r.hasDefault ? "true" : "false") << ", " << r.defaultInt << ", "
         << r.defaultFloat << ", " << ns(r.defaultString) << ", "
         << ns(r.defaultInts) << ", " << r.numDefaultInts << ", "
         << ns(r.enumCases) << ", " << r.numEnumCases << "},\n";
    }
    if (attrs.empty())
      os << "  {},\n";
    os << "};\n\n/// Indexed by OpId.\ninline constexpr OpSchema "
          "kOpSchemas[kNumOps] = {\n";
    for (const std::string &r : opRows)
      os << r << "\n";
    os << "};\n\n} // namespace mp::rt\n\n#endif // MP_RUNTIME_OPTABLE_H\n";
    return false;
  }
};

bool emitOpTable(raw_ostream &os, const RecordKeeper &records) {
  Emitter emitter{os, {}, {}};
  return emitter.run(records);
}

/// docs/generated/PrecisionTable.md: the train ops' default categories and
/// why (precisionCategory, precisionReason), ops with one category and one
/// reason on one row, categories in allow, deny, infer, clear order.
bool emitPrecisionTable(raw_ostream &os, const RecordKeeper &records) {
  struct Row {
    std::string category, reason;
    std::vector<std::string> ops;
  };
  std::vector<Row> rows;
  std::vector<std::pair<std::string, const Record *>> defs;
  for (const Record *def : records.getAllDerivedDefinitions("Op"))
    if (def->getValue("precisionCategory"))
      defs.emplace_back(Operator(def).getOperationName(), def);
  llvm::sort(defs);
  for (const auto &[name, def] : defs) {
    std::string category = def->getValueAsString("precisionCategory").lower();
    // One line: the ODS text may be wrapped.
    SmallVector<StringRef> words;
    def->getValueAsString("precisionReason").split(words, ' ', -1, false);
    std::string reason;
    for (StringRef w : words)
      for (StringRef part : llvm::split(w, '\n'))
        if (!part.trim().empty())
          reason += (reason.empty() ? "" : " ") + part.trim().str();
    if (reason.empty()) {
      PrintError(def->getLoc(), "mp-tblgen: " + name +
                                    " has no precisionReason (why its "
                                    "precisionCategory; docs/precision.md)");
      return true;
    }
    std::string mnemonic = StringRef(name).split('.').second.str();
    auto it = llvm::find_if(rows, [&](const Row &r) {
      return r.category == category && r.reason == reason;
    });
    if (it == rows.end())
      rows.push_back({category, reason, {mnemonic}});
    else
      it->ops.push_back(mnemonic);
  }
  os << "<!-- Generated by mp-tblgen -gen-precision-table from TrainOps.td "
        "(precisionCategory, precisionReason); do not edit. -->\n\n"
        "| category | ops | why |\n| --- | --- | --- |\n";
  for (const char *category : {"allow", "deny", "infer", "clear"})
    for (const Row &r : rows) {
      if (r.category != category)
        continue;
      os << "| " << category << " | ";
      for (size_t i = 0; i < r.ops.size(); ++i)
        os << (i ? ", " : "") << "`" << r.ops[i] << "`";
      os << " | " << r.reason << " |\n";
    }
  return false;
}

/// Passes.h's pipeline options, from a PassPipeline record (Passes.td):
/// one cl option per entry of its `options` (the same Option records the
/// passes declare, so each is declared once), and for every pass a copyTo()
/// that fills the pass's generated options struct from the pipeline's
/// options of the same names.
bool emitPipelineOptions(raw_ostream &os, const RecordKeeper &records) {
  os << "// GENERATED by mp-tblgen -gen-pipeline-options from Passes.td; do "
        "not edit.\n\n";
  std::vector<mlir::tblgen::Pass> passes;
  for (const Record *def : records.getAllDerivedDefinitions("PassBase"))
    passes.emplace_back(def);
  for (const Record *def : records.getAllDerivedDefinitions("PassPipeline")) {
    std::string name = def->getValueAsString("cppName").str();
    std::vector<mlir::tblgen::PassOption> options;
    for (const Record *o : def->getValueAsListOfDefs("options"))
      options.emplace_back(o);
    os << "/// " << def->getValueAsString("summary") << " (`--"
       << def->getValueAsString("argument") << "=\"...\"`).\n"
       << "struct " << name << " : public ::mlir::PassPipelineOptions<"
       << name << "> {\n";
    for (const mlir::tblgen::PassOption &o : options) {
      os << "  " << (o.isListOption() ? "ListOption" : "Option") << "<"
         << o.getType() << "> " << o.getCppVariableName() << "{*this, \""
         << o.getArgument() << "\", ::llvm::cl::desc("
         << quoted(o.getDescription()) << ")";
      if (std::optional<StringRef> init = o.getDefaultValue())
        if (!init->empty())
          os << ", ::llvm::cl::init(" << *init << ")";
      if (std::optional<StringRef> flags = o.getAdditionalFlags())
        if (!flags->empty())
          os << ", " << *flags;
      os << "};\n";
    }
    for (const mlir::tblgen::Pass &pass : passes) {
      std::vector<const mlir::tblgen::PassOption *> shared;
      for (const mlir::tblgen::PassOption &po : pass.getOptions())
        for (const mlir::tblgen::PassOption &o : options)
          if (o.getCppVariableName() == po.getCppVariableName() &&
              o.getType() == po.getType() &&
              o.isListOption() == po.isListOption())
            shared.push_back(&o);
      if (shared.empty())
        continue;
      os << "  /// The " << pass.getDef()->getName()
         << " options this pipeline shares (by name).\n"
         << "  void copyTo(" << pass.getDef()->getName()
         << "Options &out) const {\n";
      for (const mlir::tblgen::PassOption *o : shared) {
        StringRef v = o->getCppVariableName();
        if (o->isListOption())
          os << "    out." << v << ".assign(" << v << ".begin(), " << v
             << ".end());\n";
        else
          os << "    out." << v << " = " << v << ";\n";
      }
      os << "  }\n";
    }
    os << "};\n\n";
  }
  return false;
}

enum class Generator {
  OpTable,
  PrecisionTable,
  PipelineOptions,
  VocabularyHeader,
  VocabularyPython
};
cl::OptionCategory tblgenCategory("mp-tblgen options");
cl::opt<Generator> generator(
    cl::desc("what to write"), cl::init(Generator::OpTable),
    cl::cat(tblgenCategory),
    cl::values(clEnumValN(Generator::OpTable, "gen-op-table",
                          "the runtime's op table (OpTable.h)"),
               clEnumValN(Generator::PrecisionTable, "gen-precision-table",
                          "the train ops' default precision categories and "
                          "their reasons (markdown)"),
               clEnumValN(Generator::PipelineOptions, "gen-pipeline-options",
                          "pass pipelines' options, from the passes' own "
                          "option records"),
               clEnumValN(Generator::VocabularyHeader, "gen-vocabulary-header",
                          "the shared vocabulary for the runtime "
                          "(Vocabulary.h)"),
               clEnumValN(Generator::VocabularyPython, "gen-vocabulary-python",
                          "the shared vocabulary and the dialects' enums "
                          "for Python (vocabulary.py)")));

bool emit(raw_ostream &os, const RecordKeeper &records) {
  switch (generator) {
  case Generator::OpTable:
    return emitOpTable(os, records);
  case Generator::PrecisionTable:
    return emitPrecisionTable(os, records);
  case Generator::PipelineOptions:
    return emitPipelineOptions(os, records);
  case Generator::VocabularyHeader:
    return mp::tblgen::emitVocabularyHeader(os, records);
  case Generator::VocabularyPython:
    return mp::tblgen::emitVocabularyPython(os, records);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // TableGen's own options (include paths, output, dependency file) and
  // this tool's generators; LLVM's other options out of --help.
  mp::tools::hideLibraryOptions({"I", "D", "o", "d", "write-if-changed"},
                                {&tblgenCategory});
  cl::ParseCommandLineOptions(argc, argv, "mp's TableGen backends\n");
  return TableGenMain(argv[0], &emit);
}
