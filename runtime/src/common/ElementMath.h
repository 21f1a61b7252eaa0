//===- ElementMath.h - per-element rules, host and device --------*- C++ -*-===//
//
// The arithmetic of the elementwise ops, the activation gradients, max
// pooling's tie rule and the optimizer updates, element by element in f32:
// one definition for every backend. The reference kernels and the cpu
// backend's fused loops call these inline (so the cpu loops vectorize and
// the two are bitwise equal by construction), and so do the CUDA kernels
// (compiled by nvcc as __host__ __device__; CUDA's expf, tanhf, erff are
// within 2 ulp of the host libm's). Only the C math functions both sides
// have are used (expf, not std::exp).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_COMMON_ELEMENTMATH_H
#define MP_RUNTIME_COMMON_ELEMENTMATH_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MP_HD __host__ __device__
#else
#define MP_HD
#endif

namespace mp::rt::ref {

/// NaN test and sign bit without <cmath>'s host-only overloads.
MP_HD inline bool isNan(float x) { return x != x; }
MP_HD inline bool signBit(float x) { return copysignf(1.0f, x) < 0.0f; }

//===----------------------------------------------------------------------===//
// Unary float ops
//===----------------------------------------------------------------------===//

/// NaN stays NaN (a comparison-based max would turn it into 0).
MP_HD inline float reluF(float x) { return x < 0.0f ? 0.0f : x; }
MP_HD inline float negF(float x) { return -x; }
MP_HD inline float absF(float x) { return fabsf(x); }
/// -1 or 1; a zero (either sign) or NaN is itself (torch.sign).
MP_HD inline float signF(float x) {
  return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
}
MP_HD inline float expF(float x) { return expf(x); }
MP_HD inline float logF(float x) { return logf(x); }
MP_HD inline float sqrtF(float x) { return sqrtf(x); }
MP_HD inline float rsqrtF(float x) { return 1.0f / sqrtf(x); }
MP_HD inline float tanhF(float x) { return tanhf(x); }
MP_HD inline float erfF(float x) { return erff(x); }
/// Written with exp(-|x|) so that no intermediate overflows.
MP_HD inline float sigmoidF(float x) {
  float e = expf(-fabsf(x));
  return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

inline constexpr float kSqrtHalf = 0.70710678118654752f;    // 1/sqrt(2)
inline constexpr float kSqrt2OverPi = 0.79788456080286536f; // sqrt(2/pi)
inline constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1/sqrt(2 pi)
inline constexpr float kGeluCubic = 0.044715f;

/// x * sigmoid(x) (SiLU, swish): the product of the two rules above, so
/// -inf gives NaN as x / (1 + e^-x) does in PyTorch.
MP_HD inline float siluF(float x) { return x * sigmoidF(x); }

/// x * relu6(x + 3) / 6 (hard swish); NaN stays NaN. The factor is
/// divided first, so that x itself comes out for x >= 3 up to the largest
/// float (PyTorch's x * r / 6 overflows to inf beyond 5.7e37).
MP_HD inline float hardswishF(float x) {
  float r = x + 3.0f;
  r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
  return x * (r / 6.0f);
}
/// x for x > 0, else negative_slope * x (NaN stays NaN).
MP_HD inline float leakyReluF(float x, float slope) {
  return x > 0.0f ? x : x * slope;
}
/// x for x > 0, else alpha * (e^x - 1), with expm1 for small |x|.
MP_HD inline float eluF(float x, float alpha) {
  return x > 0.0f ? x : alpha * expm1f(x);
}

MP_HD inline float geluExact(float x) {
  return 0.5f * x * (1.0f + erff(x * kSqrtHalf));
}
MP_HD inline float geluTanh(float x) {
  float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  return 0.5f * x * (1.0f + tanhf(u));
}
MP_HD inline float geluExactDerivative(float x) {
  return 0.5f * (1.0f + erff(x * kSqrtHalf)) +
         x * kInvSqrt2Pi * expf(-0.5f * x * x);
}
MP_HD inline float geluTanhDerivative(float x) {
  float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  float t = tanhf(u);
  float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}

//===----------------------------------------------------------------------===//
// Binary arithmetic (float, and the integer forms of the numeric ops)
//===----------------------------------------------------------------------===//

/// Wrapping integer arithmetic: done on uint64, where overflow is defined;
/// i32 results are truncated to 32 bits when stored.
MP_HD inline int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }

struct AddOp {
  MP_HD static float f(float a, float b) { return a + b; }
  MP_HD static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) + uint64_t(b));
  }
};
struct SubOp {
  MP_HD static float f(float a, float b) { return a - b; }
  MP_HD static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) - uint64_t(b));
  }
};
struct MulOp {
  MP_HD static float f(float a, float b) { return a * b; }
  MP_HD static int64_t i(int64_t a, int64_t b) {
    return wrap(uint64_t(a) * uint64_t(b));
  }
};
struct DivOp {
  MP_HD static float f(float a, float b) { return a / b; }
  /// Truncating division; the caller has rejected b == 0.
  MP_HD static int64_t i(int64_t a, int64_t b) {
    return b == -1 ? wrap(0 - uint64_t(a)) : a / b;
  }
};
/// maximum/minimum propagate NaN (like torch.maximum) and order -0 < +0.
struct MaximumOp {
  MP_HD static float f(float a, float b) {
    if (a == b)
      return signBit(a) ? b : a;
    return (a > b || isNan(a)) ? a : b;
  }
  MP_HD static int64_t i(int64_t a, int64_t b) { return a > b ? a : b; }
};
struct MinimumOp {
  MP_HD static float f(float a, float b) {
    if (a == b)
      return signBit(a) ? a : b;
    return (a < b || isNan(a)) ? a : b;
  }
  MP_HD static int64_t i(int64_t a, int64_t b) { return a < b ? a : b; }
};
/// Exponents 2 and 3 as products, as ATen computes them (its pow kernel's
/// special cases): the tanh GELU's x^3 in GPT-2 ran powf over every
/// activation, 36% of the step.
struct PowOp {
  MP_HD static float f(float a, float b) {
    if (b == 2.0f)
      return a * a;
    if (b == 3.0f)
      return a * a * a;
    return powf(a, b);
  }
  MP_HD static int64_t i(int64_t, int64_t) { return 0; } // float only (checked)
};

//===----------------------------------------------------------------------===//
// Activation gradients: (upstream gradient, saved forward tensor)
//===----------------------------------------------------------------------===//

/// grad * (x > 0) as a product, so a NaN or inf gradient stays non-finite
/// (loss scaling must still see an overflow behind an inactive unit).
MP_HD inline float reluGradF(float g, float x) { return g * (x > 0 ? 1.0f : 0.0f); }
MP_HD inline float tanhGradF(float g, float y) { return g * (1.0f - y * y); }
MP_HD inline float sigmoidGradF(float g, float y) { return g * y * (1.0f - y); }
/// silu'(x) = s (1 + x (1 - s)), s = sigmoid(x), with x the forward input.
MP_HD inline float siluGradF(float g, float x) {
  float s = sigmoidF(x);
  return g * s * (1.0f + x * (1.0f - s));
}
/// hardswish'(x): 0 below -3, x / 3 + 1/2 up to 3, 1 above (PyTorch's
/// rule, which also gives g for a NaN x).
MP_HD inline float hardswishGradF(float g, float x) {
  return x < -3.0f ? 0.0f : x <= 3.0f ? g * (x / 3.0f + 0.5f) : g;
}
/// g for x > 0, else g * negative_slope (x = 0 takes the slope, as PyTorch).
MP_HD inline float leakyReluGradF(float g, float x, float slope) {
  return x > 0.0f ? g : g * slope;
}
/// g for x > 0, else g * (alpha * e^x): elu' from the forward input (the
/// factor first: it is at most alpha, so a large finite g cannot overflow
/// before e^x makes it small).
MP_HD inline float eluGradF(float g, float x, float alpha) {
  return x > 0.0f ? g : g * (alpha * expf(x));
}
MP_HD inline float geluGradExactF(float g, float x) {
  return g * geluExactDerivative(x);
}
MP_HD inline float geluGradTanhF(float g, float x) {
  return g * geluTanhDerivative(x);
}

//===----------------------------------------------------------------------===//
// Max pooling
//===----------------------------------------------------------------------===//

/// Whether tap value `v` replaces the window's maximum so far (`best`; none
/// yet when `first`): the first maximum in tap order wins, and the first NaN
/// wins over everything (torch.max_pool2d propagates NaN).
MP_HD inline bool maxPoolTakes(bool first, float best, float v) {
  return first || (!isNan(best) && (v > best || isNan(v)));
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

  MP_HD float plain(float p, float g) const { return p - lr * (g + wd * p); }
  MP_HD void withMomentum(float p, float g, float b, float &newP,
                    float &newB) const {
    float grad = g + wd * p;
    float buf = momentum * b + keep * grad;
    float step = nesterov ? grad + momentum * buf : buf;
    newP = p - lr * step;
    newB = buf;
  }
};

/// Adam (L2: g += wd * p) or AdamW (p *= 1 - lr * wd first), then
///   m' = b1 m + (1 - b1) g;  v' = b2 v + (1 - b2) g^2;
///   p' = p - lr / (1 - b1^t) * m' / (sqrt(v') / sqrt(1 - b2^t) + eps),
/// the bias corrections taken in double from the step t, as PyTorch does.
struct AdamRule {
  float stepSize = 0, correction2 = 1, b1 = 0, b2 = 0, c1 = 0, c2 = 0,
        eps = 0, wd = 0, decay = 1;
  bool decoupled = false;

  MP_HD void apply(float p, float g, float m, float v, float &newP, float &newM,
             float &newV) const {
    float param = decoupled ? p * decay : p;
    float grad = decoupled ? g : g + wd * p;
    float avg = b1 * m + c1 * grad;
    float avgSq = b2 * v + c2 * grad * grad;
    float denom = sqrtf(avgSq) / correction2 + eps;
    newP = param - stepSize * avg / denom;
    newM = avg;
    newV = avgSq;
  }
};

/// Adam's rule at step t (>= 1): the bias corrections taken in double from
/// the step, as PyTorch does, then every constant rounded to f32 once (the
/// reference's getAdamRule and the CUDA kernel, which reads t on the device).
MP_HD inline AdamRule adamRuleAt(double lr, double beta1, double beta2,
                                 double epsilon, double weightDecay,
                                 bool decoupled, double t) {
  AdamRule rule;
  rule.stepSize = static_cast<float>(lr / (1 - pow(beta1, t)));
  rule.correction2 = static_cast<float>(sqrt(1 - pow(beta2, t)));
  rule.b1 = static_cast<float>(beta1);
  rule.b2 = static_cast<float>(beta2);
  rule.c1 = static_cast<float>(1 - beta1);
  rule.c2 = static_cast<float>(1 - beta2);
  rule.eps = static_cast<float>(epsilon);
  rule.wd = static_cast<float>(weightDecay);
  rule.decay = static_cast<float>(1 - lr * weightDecay);
  rule.decoupled = decoupled;
  return rule;
}

//===----------------------------------------------------------------------===//
// Pointwise losses: one element's term and its derivative, in f64 (the
// kernels sum the terms in f64 and round the mean, or each gradient, once)
//===----------------------------------------------------------------------===//

MP_HD inline double mseTerm(double x, double t) {
  double d = x - t;
  return d * d;
}
MP_HD inline double mseDerivative(double x, double t) { return 2 * (x - t); }
/// max(x, 0) - x t + log(1 + e^-|x|): the form that never overflows.
MP_HD inline double bceLogitsTerm(double x, double t) {
  return (x > 0 ? x : 0.0) - x * t + log1p(exp(-fabs(x)));
}
MP_HD inline double bceLogitsDerivative(double x, double t) {
  double e = exp(-fabs(x));
  return (x >= 0 ? 1 / (1 + e) : e / (1 + e)) - t;
}
/// d^2 / 2 for |d| <= delta, else delta (|d| - delta / 2), d = x - t.
MP_HD inline double huberTerm(double x, double t, double delta) {
  double d = fabs(x - t);
  return d <= delta ? 0.5 * d * d : delta * (d - 0.5 * delta);
}
/// clamp(x - t, -delta, delta); NaN stays NaN.
MP_HD inline double huberDerivative(double x, double t, double delta) {
  double d = x - t;
  return d < -delta ? -delta : d > delta ? delta : d;
}

} // namespace mp::rt::ref

#endif // MP_RUNTIME_COMMON_ELEMENTMATH_H
