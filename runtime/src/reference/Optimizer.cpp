//===- Optimizer.cpp - sgd, sgd_momentum, adam, adamw ---------------------===//
//
// PyTorch's update rules, computed per element in f32 (hyper-parameters
// rounded to f32 once; Adam's bias corrections taken in double from the
// step number, as PyTorch does in Python). Parameters and state may be any
// float dtype; the precision passes keep them f32 (master weights).
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"
#include "reference/ElementRules.h"

#include <cmath>

using namespace mp::rt;
using namespace mp::rt::ref;

/// Checks that every view has the dtype and shape of the first (param).
static Status checkSameAsParam(const KernelDesc &k, const Views &in,
                               const Views &out,
                               std::initializer_list<const char *> inNames,
                               std::initializer_list<const char *> outNames) {
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "param"));
  size_t i = 0;
  for (const char *name : inNames)
    MP_RETURN_IF_ERROR(checkSameType(k, in[0], "param", in[i++], name));
  i = 0;
  for (const char *name : outNames)
    MP_RETURN_IF_ERROR(checkSameType(k, in[0], "param", out[i++], name));
  return Status::ok();
}

/// A hyper-parameter: the attribute or its ODS default (required when the
/// op has none), in [lo, hi] (or [lo, hi) with `hiOpen`).
static Status getHyper(const KernelDesc &k, AttrName name, double lo,
                       double hi, bool hiOpen, double &value) {
  const AttrSchema *schema = findAttrSchema(k.opId(), name);
  bool known = k.has(name) || (schema && schema->hasDefault);
  if (!known)
    return kernelError(k, std::string("needs the float attribute '") +
                              attrName(name) + "'");
  value = k.getFloat(name, 0.0);
  if (value >= lo && (hiOpen ? value < hi : value <= hi))
    return Status::ok();
  return kernelError(k, std::string("'") + attrName(name) + "' = " +
                            std::to_string(value) + " is out of range");
}

/// The learning rate: input #`fixed` when the update has one (a 0-d f32,
/// train.lr_schedule's result: finite and >= 0 at every step), else the
/// `lr` attribute.
static Status getLearningRate(const KernelDesc &k, const Views &in,
                              size_t fixed, double &lr) {
  if (in.size() <= fixed)
    return getHyper(k, AttrName::lr, 0, HUGE_VAL, true, lr);
  if (k.has(AttrName::lr))
    return kernelError(k, "has both an 'lr' attribute and a learning-rate "
                          "operand");
  if (!in[fixed].data)
    return Status::ok(); // checked before the tensors are bound
  lr = loadFloat(in[fixed], 0);
  if (std::isfinite(lr) && lr >= 0)
    return Status::ok();
  return kernelError(k, "got the learning rate " + std::to_string(lr) +
                            " from its operand; it must be finite and >= 0");
}

/// The update's inputs: `fixed` of them, then an optional learning rate
/// (a 0-d f32).
static Status checkUpdateArity(const KernelDesc &k, const Views &in,
                               const Views &out, size_t fixed,
                               size_t outputs) {
  if (in.size() == fixed + 1) {
    MP_RETURN_IF_ERROR(checkArity(k, in, out, fixed + 1, outputs));
    if (in[fixed].dtype != DType::F32)
      return kernelError(k, "expects the learning rate as f32");
    MP_RETURN_IF_ERROR(checkShape(k, in[fixed], {}, "learning rate"));
    if (k.has(AttrName::lr))
      return kernelError(k, "has both an 'lr' attribute and a "
                            "learning-rate operand");
    return Status::ok();
  }
  return checkArity(k, in, out, fixed, outputs);
}

//===----------------------------------------------------------------------===//
// sgd and sgd_momentum
//===----------------------------------------------------------------------===//

namespace {
struct SgdParams {
  double lr, weightDecay, momentum, dampening;
  bool nesterov;
};
} // namespace

static Status getSgdParams(const KernelDesc &k, const Views &in,
                           bool withMomentum, SgdParams &p) {
  p.lr = 0;
  MP_RETURN_IF_ERROR(getLearningRate(k, in, withMomentum ? 3 : 2, p.lr));
  MP_RETURN_IF_ERROR(
      getHyper(k, AttrName::weight_decay, 0, HUGE_VAL, true, p.weightDecay));
  p.momentum = p.dampening = 0;
  p.nesterov = false;
  if (!withMomentum)
    return Status::ok();
  MP_RETURN_IF_ERROR(getHyper(k, AttrName::momentum, 0, 1, false, p.momentum));
  MP_RETURN_IF_ERROR(
      getHyper(k, AttrName::dampening, 0, 1, false, p.dampening));
  p.nesterov = k.getFlag(AttrName::nesterov);
  if (p.nesterov && (p.momentum == 0 || p.dampening != 0))
    return kernelError(
        k, "nesterov momentum needs a positive momentum and zero dampening");
  return Status::ok();
}

static Status checkSgd(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkUpdateArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(
      checkSameAsParam(k, in, out, {"param", "grad"}, {"new_param"}));
  SgdParams p;
  return getSgdParams(k, in, false, p);
}

Status ref::getSgdRule(const KernelDesc &k, const Views &in,
                       bool withMomentum, SgdRule &rule) {
  SgdParams hp;
  MP_RETURN_IF_ERROR(getSgdParams(k, in, withMomentum, hp));
  rule.lr = static_cast<float>(hp.lr);
  rule.wd = static_cast<float>(hp.weightDecay);
  rule.momentum = static_cast<float>(hp.momentum);
  rule.keep = static_cast<float>(1 - hp.dampening);
  rule.nesterov = hp.nesterov;
  return Status::ok();
}

static Status runSgd(const KernelDesc &k, const Views &in, const Views &out) {
  SgdRule rule;
  MP_RETURN_IF_ERROR(getSgdRule(k, in, false, rule));
  FloatIn p(in[0]), g(in[1]);
  FloatOut np(out[0]);
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e)
    np[e] = rule.plain(p[e], g[e]);
  np.finish();
  return Status::ok();
}

static Status checkSgdMomentum(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkUpdateArity(k, in, out, 3, 2));
  MP_RETURN_IF_ERROR(checkSameAsParam(k, in, out,
                                      {"param", "grad", "momentum_buffer"},
                                      {"new_param", "new_momentum_buffer"}));
  SgdParams p;
  return getSgdParams(k, in, true, p);
}

static Status runSgdMomentum(const KernelDesc &k, const Views &in,
                             const Views &out) {
  SgdRule rule;
  MP_RETURN_IF_ERROR(getSgdRule(k, in, true, rule));
  FloatIn p(in[0]), g(in[1]), b(in[2]);
  FloatOut np(out[0]), nb(out[1]);
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e)
    rule.withMomentum(p[e], g[e], b[e], np[e], nb[e]);
  np.finish();
  nb.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// adam and adamw
//===----------------------------------------------------------------------===//

namespace {
struct AdamParams {
  double lr, beta1, beta2, epsilon, weightDecay;
};
} // namespace

static Status getAdamParams(const KernelDesc &k, const Views &in,
                            AdamParams &p) {
  p.lr = 0;
  MP_RETURN_IF_ERROR(getLearningRate(k, in, 5, p.lr));
  MP_RETURN_IF_ERROR(getHyper(k, AttrName::beta1, 0, 1, true, p.beta1));
  MP_RETURN_IF_ERROR(getHyper(k, AttrName::beta2, 0, 1, true, p.beta2));
  MP_RETURN_IF_ERROR(
      getHyper(k, AttrName::epsilon, 0, HUGE_VAL, true, p.epsilon));
  if (!(p.epsilon > 0))
    return kernelError(k, "expects a positive epsilon");
  return getHyper(k, AttrName::weight_decay, 0, HUGE_VAL, true,
                  p.weightDecay);
}

template <bool Decoupled>
static Status checkAdam(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkUpdateArity(k, in, out, 5, 3));
  MP_RETURN_IF_ERROR(
      checkSameAsParam(k, in, out, {"param", "grad", "exp_avg", "exp_avg_sq"},
                       {"new_param", "new_exp_avg", "new_exp_avg_sq"}));
  const TensorView &step = in[4];
  if (step.dtype != DType::F32)
    MP_RETURN_IF_ERROR(checkIndex(k, step, "step (i32, i64 or f32)"));
  MP_RETURN_IF_ERROR(checkShape(k, step, {}, "step"));
  AdamParams p;
  return getAdamParams(k, in, p);
}

Status ref::getAdamRule(const KernelDesc &k, const Views &in, bool decoupled,
                        double t, AdamRule &rule) {
  AdamParams hp;
  MP_RETURN_IF_ERROR(getAdamParams(k, in, hp));
  if (!(t >= 1))
    return kernelError(k, "expects step >= 1 but got " + std::to_string(t));
  rule = adamRuleAt(hp.lr, hp.beta1, hp.beta2, hp.epsilon, hp.weightDecay,
                    decoupled, t);
  return Status::ok();
}

template <bool Decoupled>
static Status runAdam(const KernelDesc &k, const Views &in, const Views &out) {
  double t = in[4].dtype == DType::F32 ? loadFloat(in[4], 0)
                                       : static_cast<double>(loadInt(in[4], 0));
  AdamRule rule;
  MP_RETURN_IF_ERROR(getAdamRule(k, in, Decoupled, t, rule));
  FloatIn p(in[0]), g(in[1]), m(in[2]), v(in[3]);
  FloatOut np(out[0]), nm(out[1]), nv(out[2]);
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e)
    rule.apply(p[e], g[e], m[e], v[e], np[e], nm[e], nv[e]);
  for (FloatOut *o : {&np, &nm, &nv})
    o->finish();
  return Status::ok();
}

void ref::addOptimizerKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainSgd, checkSgd, runSgd},
                   {OpId::TrainSgdMomentum, checkSgdMomentum, runSgdMomentum},
                   {OpId::TrainAdam, checkAdam<false>, runAdam<false>},
                   {OpId::TrainAdamw, checkAdam<true>, runAdam<true>},
               });
}
