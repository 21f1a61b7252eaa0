//===- ElementRules.h - per-element rules shared by the backends -*- C++ -*-===//
//
// The arithmetic of the elementwise ops, the activation gradients and the
// optimizer updates, element by element in f32. The reference kernels and the cpu backend's
// fused loops both call these (inline, so the cpu loops vectorize), which
// makes the two bitwise equal by construction: the cpu backend only changes
// how elements are loaded, stored, chunked and split over threads.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_REFERENCE_ELEMENTRULES_H
#define MP_RUNTIME_REFERENCE_ELEMENTRULES_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mp::rt::ref {

//===----------------------------------------------------------------------===//
// Unary float ops
//===----------------------------------------------------------------------===//

/// NaN stays NaN (a comparison-based max would turn it into 0).
inline float reluF(float x) { return x < 0.0f ? 0.0f : x; }
inline float negF(float x) { return -x; }
inline float expF(float x) { return std::exp(x); }
inline float logF(float x) { return std::log(x); }
inline float sqrtF(float x) { return std::sqrt(x); }
inline float rsqrtF(float x) { return 1.0f / std::sqrt(x); }
inline float tanhF(float x) { return std::tanh(x); }
inline float erfF(float x) { return std::erf(x); }
/// Written with exp(-|x|) so that no intermediate overflows.
inline float sigmoidF(float x) {
  float e = std::exp(-std::fabs(x));
  return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

inline constexpr float kSqrtHalf = 0.70710678118654752f;    // 1/sqrt(2)
inline constexpr float kSqrt2OverPi = 0.79788456080286536f; // sqrt(2/pi)
inline constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/sqrt(2 pi)
inline constexpr float kGeluCubic = 0.044715f;

inline float geluExact(float x) {
  return 0.5f * x * (1.0f + std::erf(x * kSqrtHalf));
}
inline float geluTanh(float x) {
  float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(u));
}
inline float geluExactDerivative(float x) {
  return 0.5f * (1.0f + std::erf(x * kSqrtHalf)) +
         x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
}
inline float geluTanhDerivative(float x) {
  float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  float t = std::tanh(u);
  float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}

//===----------------------------------------------------------------------===//
// Binary arithmetic (float, and the integer forms of the numeric ops)
//===----------------------------------------------------------------------===//

/// Wrapping integer arithmetic: done on uint64, where overflow is defined;
/// i32 results are truncated to 32 bits when stored.
inline int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }

struct AddOp {
  static float f(float a, float b) { return a + b; }
  static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) + uint64_t(b));
  }
};
struct SubOp {
  static float f(float a, float b) { return a - b; }
  static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) - uint64_t(b));
  }
};
struct MulOp {
  static float f(float a, float b) { return a * b; }
  static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) * uint64_t(b));
  }
};
struct DivOp {
  static float f(float a, float b) { return a / b; }
  /// Truncating division; the caller has rejected b == 0.
  static int64_t i(int64_t a, int64_t b) {
    return b == -1 ? wrap(0 - uint64_t(a)) : a / b;
  }
};
/// maximum/minimum propagate NaN (like torch.maximum) and order -0 < +0.
struct MaximumOp {
  static float f(float a, float b) {
    if (a == b)
      return std::signbit(a) ? b : a;
    return (a > b || std::isnan(a)) ? a : b;
  }
  static int64_t i(int64_t a, int64_t b) { return a > b ? a : b; }
};
struct MinimumOp {
  static float f(float a, float b) {
    if (a == b)
      return std::signbit(a) ? a : b;
    return (a < b || std::isnan(a)) ? a : b;
  }
  static int64_t i(int64_t a, int64_t b) { return a < b ? a : b; }
};
struct PowOp {
  static float f(float a, float b) { return std::pow(a, b); }
  static int64_t i(int64_t, int64_t) { return 0; } // float only (checked)
};

//===----------------------------------------------------------------------===//
// Activation gradients: (upstream gradient, saved forward tensor)
//===----------------------------------------------------------------------===//

/// grad * (x > 0) as a product, so a NaN or inf gradient stays non-finite
/// (loss scaling must still see an overflow behind an inactive unit).
inline float reluGradF(float g, float x) { return g * (x > 0 ? 1.0f : 0.0f); }
inline float tanhGradF(float g, float y) { return g * (1.0f - y * y); }
inline float sigmoidGradF(float g, float y) { return g * y * (1.0f - y); }
inline float geluGradExactF(float g, float x) {
  return g * geluExactDerivative(x);
}
inline float geluGradTanhF(float g, float x) {
  return g * geluTanhDerivative(x);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Rounds a double to f32 with round-to-odd. f32 has more than two bits
/// beyond bf16's and f16's precision, so rounding this result to nearest
/// even again gives the correctly rounded 16-bit value: no double rounding
/// (train.fill's value into a 16-bit tensor).
inline float roundToOdd(double value) {
  float f = static_cast<float>(value);
  if (!std::isfinite(f) || static_cast<double>(f) == value)
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 1) == 0) {
    // f is even and inexact: step one ulp towards `value`, to the odd
    // neighbour (towards zero when f overshot in magnitude).
    bool overshot = std::fabs(static_cast<double>(f)) > std::fabs(value);
    bits = overshot ? bits - 1 : bits + 1;
    std::memcpy(&f, &bits, sizeof(f));
  }
  return f;
}

//===----------------------------------------------------------------------===//
// Max pooling
//===----------------------------------------------------------------------===//

/// Whether tap value `v` replaces the window's maximum so far (`best`; none
/// yet when `first`): the first maximum in tap order wins, and the first NaN
/// wins over everything (torch.max_pool2d propagates NaN).
inline bool maxPoolTakes(bool first, float best, float v) {
  return first || (!std::isnan(best) && (v > best || std::isnan(v)));
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

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

#endif // MP_RUNTIME_REFERENCE_ELEMENTRULES_H
