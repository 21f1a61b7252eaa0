//===- Conformance.h - the conformance table's form --------------*- C++ -*-===//
//
// One row per op form (Cases.cpp): the kernel (op, attributes), its
// operands and results by shape and role, the dtypes it runs in and how
// closely another backend must agree with the reference. The runner
// (ConformanceTest.cpp) fills the operands (seeded values, and edge values:
// NaN, +-inf, +-0, subnormals, the dtype's largest value, rounding ties),
// runs the row on every backend this build has and this machine can run,
// and compares each with the reference backend; rows with an oracle also
// check the reference against a float64 evaluation.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CONFORMANCE_CONFORMANCE_H
#define MP_RUNTIME_UNITTESTS_CONFORMANCE_CONFORMANCE_H

#include "mp/runtime/Plan.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace mp::rt::conformance {

/// What an operand or result is, which fixes its dtype.
enum class Role {
  Data,   ///< the row's dtype (f32, bf16 or f16)
  F32,    ///< always f32 (statistics, scale, losses, master weights)
  Index,   ///< i64 in [0, bound): labels, embedding ids
  Index32, ///< the same in i32
  Pred,    ///< i1
  Counter, ///< i64 scalar (the loss scaler's growth counter, Adam's step)
  Counter32 ///< the same in i32
};

struct Operand {
  std::vector<int64_t> shape;
  Role role = Role::Data;
  /// Data / F32: uniform in [lo, hi]; Index: [0, hi); Counter: lo.
  double lo = -1, hi = 1;
  /// Data / F32: the first elements are edge values (when the row allows).
  bool edges = true;
};

/// How a backend's result may differ from the reference's.
enum class Agreement {
  /// Bitwise (moves, selections, integer results, exact rules).
  Exact,
  /// Within `ulps` units in the last place of the result's dtype (f32 rules
  /// with the same formula: vector math libraries, fused multiply-add).
  Ulps,
  /// Accumulations (matmul, conv, norms, reductions, losses): within `ulps`
  /// units of the result's dtype plus 2^-20 of the largest reference
  /// magnitude of the result, for sums in another order.
  Accumulated,
};

/// A float64 evaluation of an elementwise row: operands -> result.
using Oracle = double (*)(const std::vector<double> &operands);

struct Case {
  std::string name; ///< unique; the test's parameter name
  std::string op;
  std::map<std::string, Attr> attrs;
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  std::vector<DType> dtypes = {DType::F32, DType::BF16, DType::F16};
  Agreement agreement = Agreement::Exact;
  double ulps = 0;
  /// Elementwise rows: the reference must be within 1 unit of the result's
  /// dtype (plus `oracleUlps` f32 units) of this.
  Oracle oracle = nullptr;
  double oracleUlps = 4;
  /// Rows whose formula cancels (gelu: 1 + erf(x / sqrt 2) near x = -3):
  /// both comparisons also allow `absolute` f32 units of the largest
  /// reference magnitude of the result.
  double absolute = 0;
  /// The oracle check skips elements with an operand beyond this: the f32
  /// formula overflows in an intermediate there (tanh_grad's y * y).
  double oracleMaxOperand = INFINITY;
};

/// The table (Cases.cpp).
const std::vector<Case> &cases();

/// Attribute helpers for the table.
Attr ints(std::vector<int64_t> values);
Attr floats(std::vector<double> values);
Attr str(std::string value);

} // namespace mp::rt::conformance

#endif // MP_RUNTIME_UNITTESTS_CONFORMANCE_CONFORMANCE_H
