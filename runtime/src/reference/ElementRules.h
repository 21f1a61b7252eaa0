//===- UpdateRules.h - per-element rules shared by the backends -*- C++ -*-===//
//
// The arithmetic of the elementwise activations and the optimizer updates,
// element by element in f32. The reference kernels and the cpu backend's
// fused loops both call these (inline, so the cpu loops vectorize), which
// makes the two bitwise equal by construction: the cpu backend only changes
// how elements are loaded, stored, chunked and split over threads.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_UPDATERULES_H
#define MP_RUNTIME_REFERENCE_UPDATERULES_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"

#include <cmath>

namespace mp::rt::ref {

/// NaN stays NaN (a comparison-based max would turn it into 0).
inline float reluRule(float x) { return x < 0.0f ? 0.0f : x; }
/// grad * (x > 0) as a product, so a NaN or inf gradient stays non-finite
/// (loss scaling must still see an overflow behind an inactive unit).
inline float reluGradRule(float g, float x) {
  return g * (x > 0 ? 1.0f : 0.0f);
}

/// sgd / sgd_momentum with their hyper-parameters rounded to f32 once:
///   g' = g + wd * p;  b' = momentum * b + (1 - dampening) * g';
///   p' = p - lr * (nesterov ? g' + momentum * b' : b')   (momentum)
///   p' = p - lr * (g + wd * p)                           (plain sgd)
struct SgdRule {
  float lr = 0, wd = 0, momentum = 0, keep = 1;
  bool nesterov = false;

  float plain(float p, float g) const { return p - lr * (g + wd * p); }
  void withMomentum(float p, float g, float b, float &newP,
                    float &newB) const {
    float grad = g + wd * p;
    float buf = momentum * b + keep * grad;
    float step = nesterov ? grad + momentum * buf : buf;
    newP = p - lr * step;
    newB = buf;
  }
};
/// Reads and checks the attributes of train.sgd (`withMomentum` false) or
/// train.sgd_momentum.
Status getSgdRule(const KernelDesc &k, bool withMomentum, SgdRule &rule);

/// Adam (L2: g += wd * p) or AdamW (p *= 1 - lr * wd first), then
///   m' = b1 m + (1 - b1) g;  v' = b2 v + (1 - b2) g^2;
///   p' = p - lr / (1 - b1^t) * m' / (sqrt(v') / sqrt(1 - b2^t) + eps),
/// the bias corrections taken in double from the step t, as PyTorch does.
struct AdamRule {
  float stepSize = 0, correction2 = 1, b1 = 0, b2 = 0, c1 = 0, c2 = 0,
        eps = 0, wd = 0, decay = 1;
  bool decoupled = false;

  void apply(float p, float g, float m, float v, float &newP, float &newM,
             float &newV) const {
    float param = decoupled ? p * decay : p;
    float grad = decoupled ? g : g + wd * p;
    float avg = b1 * m + c1 * grad;
    float avgSq = b2 * v + c2 * grad * grad;
    float denom = std::sqrt(avgSq) / correction2 + eps;
    newP = param - stepSize * avg / denom;
    newM = avg;
    newV = avgSq;
  }
};
/// Reads and checks the attributes of train.adam / train.adamw
/// (`decoupled`) and the step t (>= 1) from the scalar tensor `step`.
Status getAdamRule(const KernelDesc &k, bool decoupled, double step,
                   AdamRule &rule);

} // namespace mp::rt::ref

#endif // MP_RUNTIME_REFERENCE_UPDATERULES_H
