//===- Optimizer.cpp - sgd, sgd_momentum, adam, adamw on own loops --------===//
#include "cpu/Optimizer.h"

#include "cpu/Chunks.h"
#include "cpu/PathMode.h"
#include "reference/ElementRules.h"

#include <atomic>

using namespace mp::rt;
using namespace mp::rt::cpu;

/// The optimizers; with `castOut`, also castOut = output #`castOutput`
/// (f32) narrowed to castOut's dtype, chunk by chunk: mp.cast's result
/// fused into the update; with `allFinite`, *allFinite = 0 when the
/// gradient (input #1) has an inf or NaN, judged on each chunk as the
/// update reads it: a fused mp.all_finite.
Status cpu::runOptimizer(PathMode mode, const KernelDesc &kernel,
                         const std::vector<TensorView> &in,
                         const std::vector<TensorView> &out, bool &handled,
                         const TensorView *castOut, size_t castOutput,
                         uint8_t *allFinite) {
  OpId op = kernel.opId();
  std::atomic<bool> finite{true};
  // In each chunk loop, on the gradient's f32 chunk (widening keeps inf
  // and NaN).
  auto check = [&](const float *g, int64_t len) {
    if (allFinite && !finiteChunk(g, len))
      finite.store(false, std::memory_order_relaxed);
  };
  auto verdict = [&] {
    if (allFinite && !finite.load())
      *allFinite = 0;
  };
  int64_t n = in.empty() ? 0 : in[0].numElements();
  if (castOut &&
      (castOutput >= out.size() || out[castOutput].dtype != DType::F32 ||
       castOut->numElements() != n || !isFloat(castOut->dtype) ||
       castOut->dtype == DType::F32 || (n && !castOut->data)))
    return Status::ok();
  auto post = [&](int64_t first, const float *const *y, int64_t len) {
    if (castOut)
      fromFloats(y[castOutput], castOut->dtype, elementAt(*castOut, first),
                 len);
  };
  if (op == OpId::TrainSgd || op == OpId::TrainSgdMomentum) {
    bool momentum = op == OpId::TrainSgdMomentum;
    if (!sameFloat(in, out, momentum ? 3 : 2, momentum ? 2 : 1))
      return Status::ok();
    if (mode == PathMode::Check) {
      handled = true;
      return Status::ok();
    }
    ref::SgdRule rule;
    MP_RETURN_IF_ERROR(ref::getSgdRule(kernel, in, momentum, rule));
    if (momentum)
      mapElements<3, 2>({&in[0], &in[1], &in[2]}, {&out[0], &out[1]}, n,
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          const ref::SgdRule r = rule;
                          const float *p = x[0], *g = x[1], *b = x[2];
                          float *newP = y[0], *newB = y[1];
                          check(g, len);
MP_IVDEP
                          for (int64_t j = 0; j < len; ++j)
                            r.withMomentum(p[j], g[j], b[j], newP[j], newB[j]);
                        },
                        post);
    else
      mapElements<2, 1>({&in[0], &in[1]}, {&out[0]}, n,
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          const ref::SgdRule r = rule;
                          const float *p = x[0], *g = x[1];
                          float *newP = y[0];
                          check(g, len);
MP_IVDEP
                          for (int64_t j = 0; j < len; ++j)
                            newP[j] = r.plain(p[j], g[j]);
                        },
                        post);
    verdict();
    handled = true;
    return Status::ok();
  }
  // adam / adamw: param, grad, exp_avg, exp_avg_sq, the scalar step and
  // an optional learning rate.
  if ((in.size() != 5 && in.size() != 6) || in[4].numElements() != 1 ||
      !in[4].data)
    return Status::ok();
  std::vector<TensorView> tensors(in.begin(), in.begin() + 4);
  if (!sameFloat(tensors, out, 4, 3))
    return Status::ok();
  if (mode == PathMode::Check) {
    handled = in[4].dtype == DType::F32 || in[4].dtype == DType::I32 ||
              in[4].dtype == DType::I64;
    return Status::ok();
  }
  double t;
  if (in[4].dtype == DType::F32)
    t = loadFloat(in[4], 0);
  else if (in[4].dtype == DType::I32 || in[4].dtype == DType::I64)
    t = static_cast<double>(loadInt(in[4], 0));
  else
    return Status::ok();
  ref::AdamRule rule;
  MP_RETURN_IF_ERROR(
      ref::getAdamRule(kernel, in, op == OpId::TrainAdamw, t, rule));
  mapElements<4, 3>({&in[0], &in[1], &in[2], &in[3]},
                    {&out[0], &out[1], &out[2]}, n,
                    [&](const float *const *x, float *const *y, int64_t len) {
                      const ref::AdamRule r = rule;
                      const float *p = x[0], *g = x[1], *m = x[2], *v = x[3];
                      float *newP = y[0], *newM = y[1], *newV = y[2];
                      check(g, len);
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r.apply(p[j], g[j], m[j], v[j], newP[j], newM[j],
                                newV[j]);
                    },
                    post);
  verdict();
  handled = true;
  return Status::ok();
}
