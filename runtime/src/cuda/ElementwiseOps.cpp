//===- ElementwiseOps.cpp - elementwise ops, loss scaling, optimizers -----===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// The one float parameter of an activation and its gradient (leaky_relu's
/// slope, elu's alpha; their ODS defaults when absent), else 0.
static float activationParam(const KernelDesc &k) {
  switch (k.opId()) {
  case OpId::TrainLeakyRelu:
  case OpId::TrainLeakyReluGrad:
    return static_cast<float>(k.getFloat(AttrName::negative_slope, 0.01));
  case OpId::TrainElu:
  case OpId::TrainEluGrad:
    return static_cast<float>(k.getFloat(AttrName::alpha, 1.0));
  default:
    return 0.0f;
  }
}

Status CudaBackend::runUnary(const KernelDesc &k, const Views &in,
                             const Views &out) {
  static const std::unordered_map<OpId, Unary> kinds = {
      {OpId::TrainNeg, Unary::Neg},         {OpId::TrainExp, Unary::Exp},
      {OpId::TrainLog, Unary::Log},         {OpId::TrainSqrt, Unary::Sqrt},
      {OpId::TrainRsqrt, Unary::Rsqrt},     {OpId::TrainTanh, Unary::Tanh},
      {OpId::TrainSigmoid, Unary::Sigmoid}, {OpId::TrainErf, Unary::Erf},
      {OpId::TrainRelu, Unary::Relu},       {OpId::TrainGelu, Unary::Gelu},
      {OpId::TrainSilu, Unary::Silu},       {OpId::TrainHardswish, Unary::Hardswish},
      {OpId::TrainLeakyRelu, Unary::LeakyRelu}, {OpId::TrainElu, Unary::Elu},
      {OpId::TrainAbs, Unary::Abs},         {OpId::TrainSign, Unary::Sign},
  };
  Unary kind = kinds.at(k.opId());
  if (kind == Unary::Gelu && k.getFlag(AttrName::tanh_approx))
    kind = Unary::GeluTanh;
  return launched(k, unary(context(), kind, ref(in[0]), ref(out[0]),
                           out[0].numElements(), activationParam(k)));
}

Status CudaBackend::runBinary(const KernelDesc &k, const Views &in,
                              const Views &out) {
  static const std::unordered_map<OpId, Binary> kinds = {
      {OpId::TrainAdd, Binary::Add},         {OpId::TrainSub, Binary::Sub},
      {OpId::TrainMul, Binary::Mul},         {OpId::TrainDiv, Binary::Div},
      {OpId::TrainMaximum, Binary::Maximum}, {OpId::TrainMinimum, Binary::Minimum},
      {OpId::TrainPow, Binary::Pow},
  };
  return launched(k, binary(context(), kinds.at(k.opId()), ref(in[0]), ref(in[1]),
                            ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runCompare(const KernelDesc &k, const Views &in,
                               const Views &out) {
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string *name = k.getString(AttrName::predicate);
  int p = 0;
  while (p < 6 && !(name && *name == names[p]))
    ++p;
  if (p == 6)
    return invalidArgument(k.op + " needs a 'predicate' attribute of eq, ne, "
                                  "lt, le, gt or ge");
  return launched(k, compare(context(), static_cast<Predicate>(p), ref(in[0]),
                             ref(in[1]), out[0].as<uint8_t>(),
                             out[0].numElements()));
}

Status CudaBackend::runSelect(const KernelDesc &k, const Views &in,
                              const Views &out) {
  return launched(k, select(context(), in[0].as<const uint8_t>(), in[1].data,
                            in[2].data, out[0].data, dtypeSize(out[0].dtype),
                            out[0].numElements()));
}

Status CudaBackend::runActivationGrad(const KernelDesc &k, const Views &in,
                                      const Views &out) {
  static const std::unordered_map<OpId, ActGrad> kinds = {
      {OpId::TrainReluGrad, ActGrad::Relu},
      {OpId::TrainTanhGrad, ActGrad::Tanh},
      {OpId::TrainSigmoidGrad, ActGrad::Sigmoid},
      {OpId::TrainGeluGrad, ActGrad::Gelu},
      {OpId::TrainSiluGrad, ActGrad::Silu},
      {OpId::TrainHardswishGrad, ActGrad::Hardswish},
      {OpId::TrainLeakyReluGrad, ActGrad::LeakyRelu},
      {OpId::TrainEluGrad, ActGrad::Elu},
  };
  ActGrad kind = kinds.at(k.opId());
  if (kind == ActGrad::Gelu && k.getFlag(AttrName::tanh_approx))
    kind = ActGrad::GeluTanh;
  return launched(k, activationGrad(context(), kind, ref(in[0]), ref(in[1]),
                                    ref(out[0]), out[0].numElements(),
                                    activationParam(k)));
}

Status CudaBackend::runBiasAdd(const KernelDesc &k, const Views &in,
                               const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t dim = resolve(k.getInt(AttrName::dim, -1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'dim' out of range");
  return launched(k, biasAdd(context(), ref(in[0]), ref(in[1]), ref(out[0]),
                             product(shape, 0, dim), shape[dim],
                             product(shape, dim + 1, shape.size())));
}

Status CudaBackend::runCast(const KernelDesc &k, const Views &in,
                            const Views &out) {
  if (in[0].dtype == out[0].dtype)
    return copyOnDevice(out[0].data, in[0].data,
                        out[0].numElements() * dtypeSize(out[0].dtype));
  return launched(
      k, cast(context(), ref(in[0]), ref(out[0]), out[0].numElements()));
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

Status CudaBackend::runScale(const KernelDesc &k, const Views &in,
                             const Views &out) {
  return launched(k, scale(context(), ref(in[0]), in[1].as<const float>(),
                           ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runUnscale(const KernelDesc &k, const Views &in,
                               const Views &out) {
  if (out.size() != in.size())
    return invalidArgument(k.op + " expects one result per gradient and "
                                  "the verdict");
  uint8_t *finite = out.back().as<uint8_t>();
  MP_RETURN_IF_ERROR(launched(k, fillBits(context(), finite, 1, 1, 1)));
  for (size_t i = 1; i < in.size(); ++i)
    MP_RETURN_IF_ERROR(
        launched(k, unscale(context(), in[0].as<const float>(), ref(in[i]),
                            ref(out[i - 1]), in[i].numElements(), finite)));
  return Status::ok();
}

Status CudaBackend::runAllFinite(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  uint8_t *finite = out[0].as<uint8_t>();
  MP_RETURN_IF_ERROR(launched(k, fillBits(context(), finite, 1, 1, 1)));
  for (const TensorView &v : in)
    MP_RETURN_IF_ERROR(
        launched(k, checkFinite(context(), ref(v), v.numElements(), finite)));
  return Status::ok();
}

Status CudaBackend::runStateSelect(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  size_t n = out.size();
  if (in.size() != 2 * n + 1)
    return invalidArgument(k.op + " expects [pred, new..., old...]");
  for (size_t i = 0; i < n; ++i)
    MP_RETURN_IF_ERROR(launched(
        k, selectBytes(context(), in[0].as<const uint8_t>(), in[1 + i].data,
                       in[1 + n + i].data, out[i].data,
                       out[i].numElements() * dtypeSize(out[i].dtype))));
  return Status::ok();
}

Status CudaBackend::runUpdateScale(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  ScalerParams p;
  p.growthInterval = k.getInt(AttrName::growth_interval, 2000);
  p.growthFactor = static_cast<float>(k.getFloat(AttrName::growth_factor, 2.0));
  p.backoffFactor = static_cast<float>(k.getFloat(AttrName::backoff_factor, 0.5));
  p.minScale = static_cast<float>(k.getFloat(AttrName::min_scale, 0.0));
  p.maxScale =
      static_cast<float>(k.getFloat(AttrName::max_scale, 3.4028234663852886e+38));
  return launched(k, updateScale(context(), in[0].as<const float>(), ref(in[1]),
                                 in[2].as<const uint8_t>(), out[0].as<float>(),
                                 ref(out[1]), p));
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

Status CudaBackend::runSgd(const KernelDesc &k, const Views &in,
                           const Views &out) {
  SgdParams hp;
  hp.withMomentum = k.opId() == OpId::TrainSgdMomentum;
  hp.lr = static_cast<float>(k.getFloat(AttrName::lr, 0));
  hp.weightDecay = static_cast<float>(k.getFloat(AttrName::weight_decay, 0));
  hp.momentum = static_cast<float>(k.getFloat(AttrName::momentum, 0));
  hp.keep = static_cast<float>(1 - k.getFloat(AttrName::dampening, 0));
  hp.nesterov = hp.withMomentum && k.getFlag(AttrName::nesterov);
  Ref none{nullptr, 0};
  size_t fixed = hp.withMomentum ? 3 : 2;
  hp.lrTensor = in.size() > fixed ? ref(in[fixed]) : none;
  return launched(k, sgd(context(), ref(in[0]), ref(in[1]),
                         hp.withMomentum ? ref(in[2]) : none, ref(out[0]),
                         hp.withMomentum ? ref(out[1]) : none,
                         out[0].numElements(), hp));
}

Status CudaBackend::runAdam(const KernelDesc &k, const Views &in,
                            const Views &out) {
  AdamParams hp;
  hp.decoupled = k.opId() == OpId::TrainAdamw;
  hp.lr = k.getFloat(AttrName::lr, 0);
  hp.beta1 = k.getFloat(AttrName::beta1, 0.9);
  hp.beta2 = k.getFloat(AttrName::beta2, 0.999);
  hp.epsilon = k.getFloat(AttrName::epsilon, 1e-8);
  hp.weightDecay = k.getFloat(AttrName::weight_decay, hp.decoupled ? 0.01 : 0.0);
  hp.lrTensor = in.size() > 5 ? ref(in[5]) : Ref{nullptr, 0};
  return launched(k, adam(context(), ref(in[0]), ref(in[1]), ref(in[2]),
                          ref(in[3]), ref(in[4]), ref(out[0]), ref(out[1]),
                          ref(out[2]), out[0].numElements(), hp));
}


} // namespace mp::rt::cudabackend
