//===- RefTestUtil.h - helpers for the reference kernel tests ---*- C++ -*-===//
//
// Tensors that own their memory, a one-kernel runner that goes through
// Backend::prepare (on a one-kernel plan) and Backend::run, tolerance
// comparisons against double-precision expectations, and central finite
// differences for gradient checks.
//
// Tolerances (also in docs/runtime-reference.md). Every kernel test computes
// its expectation in double from the inputs as the kernel sees them (already
// rounded to their dtype), and accepts |got - want| <= atol + rtol * |want|:
//
//   kind of op                       f32           bf16          f16
//   elementwise (1-3 f32 ops,        rtol 1e-5     rtol 2^-7     rtol 2^-10
//   then one rounding)               atol 1e-6     atol 1e-6     atol 1e-6
//   accumulating (dot products,      rtol 1e-4     rtol 2^-7     rtol 2^-10
//   sums, statistics, softmax)       atol 1e-4     atol 1e-4     atol 1e-4
//   data movement, casts, scaler,    exact         exact         exact
//   select, gather, max, grad_seed
//   gradient vs central finite differences of the f32 forward kernel
//   (step 1e-2): rtol 2e-2, atol 2e-3
//   optimizers, 6 steps of f32 state vs the double recurrence:
//   rtol 2e-5, atol 2e-6
//
// Why: a 16-bit result is the f32 value rounded to nearest even, at most half
// an ulp (2^-9 relative for bf16, 2^-12 for f16) from it; one ulp (2^-7,
// 2^-10) leaves room for the f32 computation error before the rounding.
// f32 results carry only that computation error: a few ulps for one op, and
// about K * 2^-24 * sum|terms| for a K-term f32 sum (inputs are O(1) and
// K <= a few hundred in these tests). Where a result cancels (1 - y^2,
// p - lr * b) the atol is raised to 1e-5, the f32 error of the operands.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_REFERENCE_REFTESTUTIL_H
#define MP_RUNTIME_UNITTESTS_REFERENCE_REFTESTUTIL_H

#include "mp/runtime/Backend.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mp::rt::test {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

/// A dense tensor that owns its bytes.
struct HostTensor {
  DType dtype = DType::F32;
  Shape shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(DType dtype, Shape shape);
  TensorView view() { return {dtype, shape, bytes.data()}; }
  int64_t size() const;
  /// Element i as a double (floats widened exactly, integers converted).
  double at(int64_t i) const;
  void set(int64_t i, double value); ///< rounds to the dtype
  Values values() const;
};

/// A tensor holding `values` rounded to `dtype`.
HostTensor makeTensor(DType dtype, Shape shape, const Values &values);
/// Uniform values in [lo, hi), rounded to `dtype`; deterministic per seed.
HostTensor randomTensor(DType dtype, Shape shape, double lo, double hi,
                        unsigned seed);
HostTensor zerosTensor(DType dtype, Shape shape);

/// Kernel attributes, as the compiler writes them.
using AttrMap = std::map<std::string, Attr>;
Attr intsAttr(std::vector<int64_t> values);
Attr floatAttr(double value);
Attr stringAttr(std::string value);

/// Checks and runs `op` on one-kernel plan of these tensors.
Status runKernel(const std::string &op, const AttrMap &attrs,
                 const std::vector<HostTensor *> &inputs,
                 const std::vector<HostTensor *> &outputs);
/// Only Backend::prepare.
Status checkKernel(const std::string &op, const AttrMap &attrs,
                   const std::vector<HostTensor *> &inputs,
                   const std::vector<HostTensor *> &outputs);

/// |got - want| <= atol + rtol * |want| (NaN matches NaN; inf matches an
/// inf of the same sign).
struct Tolerance {
  double rtol, atol;
};
/// One or two f32 operations per element, then one rounding.
Tolerance elementwiseTolerance(DType result);
/// Sums, dot products and statistics accumulated in f32, then one rounding.
Tolerance accumulateTolerance(DType result);
/// Analytic gradients against central differences of f32 forward kernels.
Tolerance finiteDifferenceTolerance();

void expectNear(const HostTensor &got, const Values &want, Tolerance tol,
                const std::string &what);

/// d loss / d x[i] for every element of x (an f32 tensor) by central
/// differences with step h; `loss` reads x.
Values numericGradient(HostTensor &x, const std::function<double()> &loss,
                       double h = 1e-2);
/// sum_i w[i] * t[i], in double.
double dot(const HostTensor &t, const HostTensor &w);

/// The float dtypes, for value-parameterized tests.
const std::vector<DType> &floatDTypes();
std::string dtypeTestName(const ::testing::TestParamInfo<DType> &info);

/// Expects a failed status with `code` whose message contains `fragment`.
void expectError(const Status &status, StatusCode code,
                 const std::string &fragment);

} // namespace mp::rt::test

/// Fails the test when `expr` returns a non-ok Status, printing it.
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::mp::rt::Status assertStatus_ = (expr);                                   \
    ASSERT_TRUE(assertStatus_.isOk()) << assertStatus_.message();              \
  } while (false)

#endif // MP_RUNTIME_UNITTESTS_REFERENCE_REFTESTUTIL_H
