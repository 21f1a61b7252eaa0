//===- StepStateOps.cpp - lr_schedule, clipping, dropout on the device ----===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

/// clip_grad_norm's workspace: the f64 partials of every gradient, then
/// the coefficient (an f32).
uint64_t clipNormWorkspace(const KernelDesc &kernel, const Plan &plan) {
  uint64_t partials = 0;
  for (uint32_t id : kernel.inputs)
    partials += normBlocks(plan.tensors[id].numElements());
  return partials * sizeof(double) + sizeof(float);
}

Status CudaBackend::runLrSchedule(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  ref::Schedule s;
  MP_RETURN_IF_ERROR(ref::getSchedule(k, s)); // the reference's decoding
  return launched(k, lrSchedule(context(), ref(in[0]), out[0].as<float>(), s));
}

Status CudaBackend::runClipGradNorm(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  double p = k.getFloat(AttrName::norm_type, 2.0);
  double maxNorm = k.getFloat(AttrName::max_norm, 1.0);
  auto *partials = static_cast<double *>(workspace_);
  int64_t count = 0;
  for (const TensorView &g : in) {
    int64_t n = g.numElements();
    MP_RETURN_IF_ERROR(
        launched(k, normPartial(context(), ref(g), n, p, partials + count)));
    count += normBlocks(n);
  }
  auto *coef = reinterpret_cast<float *>(partials + count);
  MP_RETURN_IF_ERROR(launched(
      k, normCoefficient(context(), partials, count, p, maxNorm,
                         out.back().as<float>(), coef)));
  for (size_t i = 0; i < in.size(); ++i)
    MP_RETURN_IF_ERROR(launched(k, scaleByDevice(context(), ref(in[i]),
                                                 ref(out[i]),
                                                 in[i].numElements(), coef)));
  return Status::ok();
}

Status CudaBackend::runClipGradValue(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  auto c = static_cast<float>(k.getFloat(AttrName::clip_value, 1.0));
  for (size_t i = 0; i < in.size(); ++i)
    MP_RETURN_IF_ERROR(launched(k, clampValues(context(), ref(in[i]),
                                               ref(out[i]),
                                               in[i].numElements(), c)));
  return Status::ok();
}

Status CudaBackend::runDropout(const KernelDesc &k, const Views &in,
                               const Views &out) {
  bool broadcast;
  ref::MaskIndex index;
  MP_RETURN_IF_ERROR(ref::getMaskIndex(k, in[0], broadcast, index));
  if (broadcast)
    return launched(k, broadcastDropout(context(), ref(in[0]), ref(in[1]),
                                        ref(in[2]), ref(out[0]),
                                        in[0].numElements(),
                                        k.getInt(AttrName::site, 0),
                                        k.getFloat(AttrName::p, 0.0), index));
  return launched(k, dropout(context(), ref(in[0]), ref(in[1]), ref(in[2]),
                             ref(out[0]), in[0].numElements(),
                             k.getInt(AttrName::site, 0),
                             k.getFloat(AttrName::p, 0.0)));
}

} // namespace mp::rt::cudabackend
