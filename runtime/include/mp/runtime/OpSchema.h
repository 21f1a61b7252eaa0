//===- OpSchema.h - what the op table says of each op -----------*- C++ -*-===//
//
// The form of the generated op table (OpTable.h, written by mp-tblgen from
// the dialects' ODS): each op's name, operand and result counts and
// attribute schema. The runtime resolves a kernel's op name to its OpId
// once, when a plan is loaded (resolveKernel in Plan.h), and checks the
// kernel against the schema there; backends index their tables by OpId.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_OPSCHEMA_H
#define MP_RUNTIME_OPSCHEMA_H

#include <cstddef>
#include <cstdint>

namespace mp::rt {

/// How a plan carries an attribute (Attr in Plan.h): Flag and Int and Ints
/// as integers, Float as a double, String (string and enum attributes, the
/// enum by its case's spelling) as a string. Elements (train.constant's
/// value) never reaches a kernel: such ops become plan constants.
enum class AttrKind : uint8_t { Flag, Int, Ints, Float, String, Elements };

/// Every attribute name of the ops (OpTable.h).
enum class AttrName : uint16_t;

struct AttrSchema {
  const char *name;
  AttrName id; ///< the name as an AttrName
  AttrKind kind;
  /// Neither optional nor defaulted: every kernel of the op has it.
  bool required;
  /// A default ODS gives; the loader fills it in where a kernel lacks it.
  bool hasDefault;
  int64_t defaultInt;        ///< Flag, Int
  double defaultFloat;       ///< Float
  const char *defaultString; ///< String
  const int64_t *defaultInts;
  size_t numDefaultInts;     ///< Ints
  /// An enum's case spellings, in value order; null for other attributes.
  const char *const *enumCases;
  size_t numEnumCases;
};

struct OpSchema {
  const char *name; ///< "train.matmul"
  /// Operands: at least minInputs; exactly maxInputs unless variadic
  /// (optional operands, e.g. a fused bias, make min < max).
  int minInputs;
  bool variadicInputs;
  int maxInputs;
  int minOutputs;
  bool variadicOutputs;
  int maxOutputs;
  size_t firstAttr, numAttrs; ///< into kAttrSchemas
  /// An optimizer update (OptimizerOpInterface): operand 0 is the
  /// parameter, operand 1 its gradient.
  bool optimizer;
};

} // namespace mp::rt

#endif // MP_RUNTIME_OPSCHEMA_H
