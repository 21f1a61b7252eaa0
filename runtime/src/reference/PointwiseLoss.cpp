//===- PointwiseLoss.cpp - mse, bce_with_logits and huber losses ----------===//
//
// The mean over every element of a pointwise term of (input, target), the
// terms formed and summed in f64 (Accumulate.h) and the mean rounded once;
// the gradients are each element's derivative times grad_loss / N, formed
// in f64 and rounded once. The terms are common/ElementMath.h's.
//
//===----------------------------------------------------------------------===//
#include "reference/Accumulate.h"
#include "reference/ElementRules.h"
#include "reference/KernelSupport.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
using Views = std::vector<TensorView>;

/// Huber's delta; the others have no parameter.
double parameterOf(const KernelDesc &k) {
  return k.getFloat(AttrName::delta, 1.0);
}

Status checkOperands(const KernelDesc &k, const Views &in) {
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "input"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "input", in[1], "target"));
  double delta = parameterOf(k);
  if (!(std::isfinite(delta) && delta > 0))
    return kernelError(k, "needs a finite, positive 'delta'");
  return Status::ok();
}

Status checkLoss(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkOperands(k, in));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  return checkShape(k, out[0], {}, "loss");
}

Status checkLossGrad(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 1));
  MP_RETURN_IF_ERROR(checkOperands(k, in));
  MP_RETURN_IF_ERROR(checkFloat(k, in[2], "grad_loss"));
  MP_RETURN_IF_ERROR(checkShape(k, in[2], {}, "grad_loss"));
  return checkSameType(k, in[0], "input", out[0], "result");
}

// The rules with one signature: (input, target, Huber's delta).
double mse(double x, double t, double) { return mseTerm(x, t); }
double mseGrad(double x, double t, double) { return mseDerivative(x, t); }
double bce(double x, double t, double) { return bceLogitsTerm(x, t); }
double bceGrad(double x, double t, double) {
  return bceLogitsDerivative(x, t);
}

template <double (*Term)(double, double, double)>
Status runLoss(const KernelDesc &k, const Views &in, const Views &out) {
  FloatIn x(in[0]), t(in[1]);
  int64_t n = in[0].numElements();
  double delta = parameterOf(k);
  double total = laneSum(n, [&](int64_t i) {
    return Term(static_cast<double>(x[i]), static_cast<double>(t[i]), delta);
  });
  storeFloat(out[0], 0, static_cast<float>(total / static_cast<double>(n)));
  return Status::ok();
}

template <double (*Derivative)(double, double, double)>
Status runLossGrad(const KernelDesc &k, const Views &in, const Views &out) {
  FloatIn x(in[0]), t(in[1]);
  FloatOut r(out[0]);
  int64_t n = in[0].numElements();
  double delta = parameterOf(k);
  double factor =
      static_cast<double>(loadFloat(in[2], 0)) / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i)
    r[i] = static_cast<float>(Derivative(static_cast<double>(x[i]),
                                         static_cast<double>(t[i]), delta) *
                              factor);
  r.finish();
  return Status::ok();
}
} // namespace

void ref::addPointwiseLossKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainMseLoss, checkLoss, runLoss<mse>},
                   {OpId::TrainMseLossGrad, checkLossGrad, runLossGrad<mseGrad>},
                   {OpId::TrainBceWithLogitsLoss, checkLoss, runLoss<bce>},
                   {OpId::TrainBceWithLogitsLossGrad, checkLossGrad,
                    runLossGrad<bceGrad>},
                   {OpId::TrainHuberLoss, checkLoss, runLoss<huberTerm>},
                   {OpId::TrainHuberLossGrad, checkLossGrad,
                    runLossGrad<huberDerivative>},
               });
}
