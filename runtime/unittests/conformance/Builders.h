//===- Builders.h - the conformance table's row builders ---------*- C++
//-*-===//
//
// Operands by role and a row from its parts, for the files of the table
// (Cases.cpp: the ops' main forms; Variants.cpp: other dtypes, layouts,
// axes, and the integer forms).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CONFORMANCE_BUILDERS_H
#define MP_RUNTIME_UNITTESTS_CONFORMANCE_BUILDERS_H

#include "Conformance.h"

#include <string>
#include <vector>

namespace mp::rt::conformance {

using Shape = std::vector<int64_t>;
inline constexpr DType kF32 = DType::F32;

inline Operand data(Shape shape, double lo = -1, double hi = 1) {
  return {std::move(shape), Role::Data, lo, hi, true};
}
inline Operand plain(Shape shape, double lo = -1, double hi = 1) {
  return {std::move(shape), Role::Data, lo, hi, false};
}
inline Operand f32(Shape shape, double lo = -1, double hi = 1,
                   bool edges = false) {
  return {std::move(shape), Role::F32, lo, hi, edges};
}
inline Operand index(Shape shape, int64_t bound) {
  return {std::move(shape), Role::Index, 0, static_cast<double>(bound), false};
}
inline Operand index32(Shape shape, int64_t bound) {
  return {std::move(shape), Role::Index32, 0, static_cast<double>(bound),
          false};
}
inline Operand pred(Shape shape) {
  return {std::move(shape), Role::Pred, 0, 1, false};
}
inline Operand counter(int64_t value, bool i32 = false) {
  return {{},
          i32 ? Role::Counter32 : Role::Counter,
          static_cast<double>(value),
          0,
          false};
}

inline Case make(std::string name, std::string op, std::vector<Operand> inputs,
                 std::vector<Operand> outputs,
                 std::map<std::string, Attr> attrs = {},
                 Agreement agreement = Agreement::Exact, double ulps = 0) {
  Case c;
  c.name = std::move(name);
  c.op = std::move(op);
  c.inputs = std::move(inputs);
  c.outputs = std::move(outputs);
  c.attrs = std::move(attrs);
  c.agreement = agreement;
  c.ulps = ulps;
  return c;
}

inline constexpr Agreement kSum = Agreement::Accumulated;

/// Other forms of the ops of Cases.cpp: index and counter dtypes, fused
/// bias dtypes, layouts, axes, dilations, ties (Variants.cpp).
void addVariants(std::vector<Case> &t);
/// The ops that take integer tensors, in i32 and i64 (Variants.cpp).
void addIntegerRows(std::vector<Case> &t);

} // namespace mp::rt::conformance

#endif // MP_RUNTIME_UNITTESTS_CONFORMANCE_BUILDERS_H
