//===- Elementwise.cpp - elementwise ops, activation grads, bias_add ------===//
//
// Float ops compute each element in f32 from exactly widened inputs and
// round once. Integer arithmetic (add/sub/mul/div/maximum/minimum on i32 and
// i64 counters) wraps on overflow instead of being undefined; an integer
// division by zero is an InvalidArgument error.
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"
#include "reference/ElementRules.h"

#include <cmath>
#include <cstring>
#include <type_traits>

using namespace mp::rt;
using namespace mp::rt::ref;

static bool isInteger(DType dtype) {
  return dtype == DType::I32 || dtype == DType::I64;
}

//===----------------------------------------------------------------------===//
// Unary float ops
//===----------------------------------------------------------------------===//

static Status checkUnary(const KernelDesc &k, const Views &in,
                         const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  return checkSameType(k, in[0], "x", out[0], "result");
}

template <float (*F)(float)>
static Status runUnary(const KernelDesc &, const Views &in, const Views &out) {
  FloatIn x(in[0]);
  FloatOut y(out[0]);
  int64_t n = out[0].numElements();
  for (int64_t i = 0; i < n; ++i)
    y[i] = F(x[i]);
  y.finish();
  return Status::ok();
}


/// The float attribute `A` of an activation (leaky_relu's slope, elu's
/// alpha) must be finite.
template <AttrName A> static Status checkFiniteParam(const KernelDesc &k) {
  if (!std::isfinite(k.getFloat(A, 0.0)))
    return kernelError(k, std::string("'") + attrName(A) + "' must be finite");
  return Status::ok();
}
template <AttrName A>
static Status checkParamUnary(const KernelDesc &k, const Views &in,
                              const Views &out) {
  MP_RETURN_IF_ERROR(checkUnary(k, in, out));
  return checkFiniteParam<A>(k);
}
template <float (*F)(float, float), AttrName A>
static Status runParamUnary(const KernelDesc &k, const Views &in,
                            const Views &out) {
  float param = static_cast<float>(k.getFloat(A, 0.0));
  FloatIn x(in[0]);
  FloatOut y(out[0]);
  int64_t n = out[0].numElements();
  for (int64_t i = 0; i < n; ++i)
    y[i] = F(x[i], param);
  y.finish();
  return Status::ok();
}

static Status runGelu(const KernelDesc &k, const Views &in, const Views &out) {
  return k.getFlag(AttrName::tanh_approx) ? runUnary<geluTanh>(k, in, out)
                                  : runUnary<geluExact>(k, in, out);
}

//===----------------------------------------------------------------------===//
// Binary arithmetic (float, i32, i64)
//===----------------------------------------------------------------------===//

static Status checkBinary(const KernelDesc &k, const Views &in,
                          const Views &out, bool allowInteger) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  if (!allowInteger || !isInteger(in[0].dtype))
    MP_RETURN_IF_ERROR(checkFloat(k, in[0], "lhs"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "lhs", in[1], "rhs"));
  return checkSameType(k, in[0], "lhs", out[0], "result");
}
static Status checkNumericBinary(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  return checkBinary(k, in, out, /*allowInteger=*/true);
}
static Status checkFloatBinary(const KernelDesc &k, const Views &in,
                               const Views &out) {
  return checkBinary(k, in, out, /*allowInteger=*/false);
}


template <typename Op>
static Status runBinary(const KernelDesc &k, const Views &in,
                        const Views &out) {
  int64_t n = out[0].numElements();
  if (isInteger(out[0].dtype)) {
    for (int64_t e = 0; e < n; ++e) {
      int64_t a = loadInt(in[0], e), b = loadInt(in[1], e);
      if (std::is_same<Op, DivOp>::value && b == 0)
        return kernelError(k, "integer division by zero at element " +
                                  std::to_string(e));
      storeInt(out[0], e, Op::i(a, b));
    }
    return Status::ok();
  }
  FloatIn a(in[0]), b(in[1]);
  FloatOut r(out[0]);
  for (int64_t e = 0; e < n; ++e)
    r[e] = Op::f(a[e], b[e]);
  r.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// compare and select
//===----------------------------------------------------------------------===//

enum class Predicate { Eq, Ne, Lt, Le, Gt, Ge };

static Status getPredicate(const KernelDesc &k, Predicate &predicate) {
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string *name = k.getString(AttrName::predicate);
  for (int i = 0; name && i < 6; ++i)
    if (*name == names[i]) {
      predicate = static_cast<Predicate>(i);
      return Status::ok();
    }
  return kernelError(k, "needs a 'predicate' attribute of eq, ne, lt, le, "
                        "gt or ge");
}

static Status checkCompare(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  if (!isInteger(in[0].dtype))
    MP_RETURN_IF_ERROR(checkFloat(k, in[0], "lhs"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "lhs", in[1], "rhs"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], DType::I1, "result"));
  MP_RETURN_IF_ERROR(checkShape(k, out[0], in[0].shape, "result"));
  Predicate predicate;
  return getPredicate(k, predicate);
}

/// Comparisons with NaN are false except `ne`, as in IEEE-754.
template <typename T> static bool compare(Predicate p, T a, T b) {
  switch (p) {
  case Predicate::Eq:
    return a == b;
  case Predicate::Ne:
    return a != b;
  case Predicate::Lt:
    return a < b;
  case Predicate::Le:
    return a <= b;
  case Predicate::Gt:
    return a > b;
  case Predicate::Ge:
    return a >= b;
  }
  return false;
}

static Status runCompare(const KernelDesc &k, const Views &in,
                         const Views &out) {
  Predicate p;
  MP_RETURN_IF_ERROR(getPredicate(k, p));
  int64_t n = out[0].numElements();
  uint8_t *result = out[0].as<uint8_t>();
  if (isInteger(in[0].dtype)) {
    for (int64_t e = 0; e < n; ++e)
      result[e] = compare(p, loadInt(in[0], e), loadInt(in[1], e));
    return Status::ok();
  }
  FloatIn a(in[0]), b(in[1]);
  for (int64_t e = 0; e < n; ++e)
    result[e] = compare(p, a[e], b[e]);
  return Status::ok();
}

static Status checkSelect(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 1));
  MP_RETURN_IF_ERROR(checkDType(k, in[0], DType::I1, "condition"));
  MP_RETURN_IF_ERROR(checkSameType(k, out[0], "result", in[1], "true_value"));
  MP_RETURN_IF_ERROR(checkSameType(k, out[0], "result", in[2], "false_value"));
  return checkShape(k, in[0], out[0].shape, "condition");
}

/// Copies whole elements, whatever their dtype.
static Status runSelect(const KernelDesc &, const Views &in, const Views &out) {
  size_t size = dtypeSize(out[0].dtype);
  const uint8_t *cond = in[0].as<const uint8_t>();
  const char *a = in[1].as<const char>(), *b = in[2].as<const char>();
  char *r = out[0].as<char>();
  int64_t n = out[0].numElements();
  for (int64_t e = 0; e < n; ++e)
    std::memcpy(r + e * size, (cond[e] ? a : b) + e * size, size);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Activation gradients: (upstream gradient, saved forward tensor)
//===----------------------------------------------------------------------===//

static Status checkActivationGrad(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad", in[1], "saved"));
  return checkSameType(k, in[0], "grad", out[0], "result");
}


template <float (*F)(float, float)>
static Status runActivationGrad(const KernelDesc &, const Views &in,
                                const Views &out) {
  FloatIn g(in[0]), saved(in[1]);
  FloatOut r(out[0]);
  int64_t n = out[0].numElements();
  for (int64_t e = 0; e < n; ++e)
    r[e] = F(g[e], saved[e]);
  r.finish();
  return Status::ok();
}

template <AttrName A>
static Status checkParamActivationGrad(const KernelDesc &k, const Views &in,
                                       const Views &out) {
  MP_RETURN_IF_ERROR(checkActivationGrad(k, in, out));
  return checkFiniteParam<A>(k);
}
template <float (*F)(float, float, float), AttrName A>
static Status runParamActivationGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  float param = static_cast<float>(k.getFloat(A, 0.0));
  FloatIn g(in[0]), saved(in[1]);
  FloatOut r(out[0]);
  int64_t n = out[0].numElements();
  for (int64_t e = 0; e < n; ++e)
    r[e] = F(g[e], saved[e], param);
  r.finish();
  return Status::ok();
}

static Status runGeluGrad(const KernelDesc &k, const Views &in,
                          const Views &out) {
  return k.getFlag(AttrName::tanh_approx)
             ? runActivationGrad<geluGradTanhF>(k, in, out)
             : runActivationGrad<geluGradExactF>(k, in, out);
}

//===----------------------------------------------------------------------===//
// bias_add
//===----------------------------------------------------------------------===//

static Status checkBiasAdd(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "result"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "bias"));
  int64_t dim;
  MP_RETURN_IF_ERROR(resolveDim(k, k.getInt(AttrName::dim, -1),
                                static_cast<int64_t>(in[0].shape.size()), "dim",
                                dim));
  return checkShape(k, in[1], {in[0].shape[dim]}, "bias");
}

static Status runBiasAdd(const KernelDesc &k, const Views &in,
                         const Views &out) {
  const Shape &shape = in[0].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim;
  MP_RETURN_IF_ERROR(resolveDim(k, k.getInt(AttrName::dim, -1), rank, "dim", dim));
  int64_t outer = product(shape, 0, dim), channels = shape[dim];
  int64_t inner = product(shape, dim + 1, rank);
  FloatIn x(in[0]), bias(in[1]);
  FloatOut r(out[0]);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        r[base + i] = x[base + i] + bias[c];
    }
  r.finish();
  return Status::ok();
}

void ref::addElementwiseKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainNeg, checkUnary, runUnary<negF>},
                   {OpId::TrainAbs, checkUnary, runUnary<absF>},
                   {OpId::TrainSign, checkUnary, runUnary<signF>},
                   {OpId::TrainExp, checkUnary, runUnary<expF>},
                   {OpId::TrainLog, checkUnary, runUnary<logF>},
                   {OpId::TrainSqrt, checkUnary, runUnary<sqrtF>},
                   {OpId::TrainRsqrt, checkUnary, runUnary<rsqrtF>},
                   {OpId::TrainTanh, checkUnary, runUnary<tanhF>},
                   {OpId::TrainSigmoid, checkUnary, runUnary<sigmoidF>},
                   {OpId::TrainErf, checkUnary, runUnary<erfF>},
                   {OpId::TrainRelu, checkUnary, runUnary<reluF>},
                   {OpId::TrainSilu, checkUnary, runUnary<siluF>},
                   {OpId::TrainHardswish, checkUnary, runUnary<hardswishF>},
                   {OpId::TrainLeakyRelu,
                    checkParamUnary<AttrName::negative_slope>,
                    runParamUnary<leakyReluF, AttrName::negative_slope>},
                   {OpId::TrainElu, checkParamUnary<AttrName::alpha>,
                    runParamUnary<eluF, AttrName::alpha>},
                   {OpId::TrainGelu, checkUnary, runGelu},
                   {OpId::TrainAdd, checkNumericBinary, runBinary<AddOp>},
                   {OpId::TrainSub, checkNumericBinary, runBinary<SubOp>},
                   {OpId::TrainMul, checkNumericBinary, runBinary<MulOp>},
                   {OpId::TrainDiv, checkNumericBinary, runBinary<DivOp>},
                   {OpId::TrainMaximum, checkNumericBinary, runBinary<MaximumOp>},
                   {OpId::TrainMinimum, checkNumericBinary, runBinary<MinimumOp>},
                   {OpId::TrainPow, checkFloatBinary, runBinary<PowOp>},
                   {OpId::TrainCompare, checkCompare, runCompare},
                   {OpId::TrainSelect, checkSelect, runSelect},
                   {OpId::TrainReluGrad, checkActivationGrad,
                    runActivationGrad<reluGradF>},
                   {OpId::TrainTanhGrad, checkActivationGrad,
                    runActivationGrad<tanhGradF>},
                   {OpId::TrainSigmoidGrad, checkActivationGrad,
                    runActivationGrad<sigmoidGradF>},
                   {OpId::TrainGeluGrad, checkActivationGrad, runGeluGrad},
                   {OpId::TrainSiluGrad, checkActivationGrad,
                    runActivationGrad<siluGradF>},
                   {OpId::TrainHardswishGrad, checkActivationGrad,
                    runActivationGrad<hardswishGradF>},
                   {OpId::TrainLeakyReluGrad,
                    checkParamActivationGrad<AttrName::negative_slope>,
                    runParamActivationGrad<leakyReluGradF,
                                           AttrName::negative_slope>},
                   {OpId::TrainEluGrad,
                    checkParamActivationGrad<AttrName::alpha>,
                    runParamActivationGrad<eluGradF, AttrName::alpha>},
                   {OpId::TrainBiasAdd, checkBiasAdd, runBiasAdd},
               });
}
