//===- Elementwise.cu - elementwise ops, casts, bias_add, fill ------------===//
//
// The same per-element formulas as the reference kernels
// (reference/Elementwise.cpp), in f32 with CUDA's math functions (expf,
// tanhf, erff: within 2 ulp of the correctly rounded result, where the
// reference uses the host libm: the tests allow for that).
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

constexpr float kSqrtHalf = 0.70710678118654752f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;
constexpr float kGeluCubic = 0.044715f;

__device__ float applyUnary(Unary op, float x) {
  switch (op) {
  case Unary::Neg:
    return -x;
  case Unary::Exp:
    return expf(x);
  case Unary::Log:
    return logf(x);
  case Unary::Sqrt:
    return sqrtf(x);
  case Unary::Rsqrt:
    return 1.0f / sqrtf(x);
  case Unary::Tanh:
    return tanhf(x);
  case Unary::Sigmoid: {
    float e = expf(-fabsf(x));
    return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
  }
  case Unary::Erf:
    return erff(x);
  case Unary::Relu:
    return x < 0.0f ? 0.0f : x;
  case Unary::Gelu:
    return 0.5f * x * (1.0f + erff(x * kSqrtHalf));
  case Unary::GeluTanh: {
    float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
  }
  }
  return x;
}

__global__ void unaryKernel(Unary op, Ref x, Ref y, int64_t n) {
  MP_GRID_STRIDE(i, n) storeF(y, i, applyUnary(op, loadF(x, i)));
}

__device__ float applyBinary(Binary op, float a, float b) {
  switch (op) {
  case Binary::Add:
    return a + b;
  case Binary::Sub:
    return a - b;
  case Binary::Mul:
    return a * b;
  case Binary::Div:
    return a / b;
  case Binary::Maximum:
    if (a == b)
      return signbit(a) ? b : a;
    return (a > b || a != a) ? a : b;
  case Binary::Minimum:
    if (a == b)
      return signbit(a) ? a : b;
    return (a < b || a != a) ? a : b;
  case Binary::Pow:
    return powf(a, b);
  }
  return a;
}

/// Wrapping integer arithmetic on uint64; i32 results are truncated when
/// stored.
__device__ int64_t applyInteger(Binary op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
  case Binary::Add:
    return static_cast<int64_t>(ua + ub);
  case Binary::Sub:
    return static_cast<int64_t>(ua - ub);
  case Binary::Mul:
    return static_cast<int64_t>(ua * ub);
  case Binary::Div:
    return b == -1 ? static_cast<int64_t>(0 - ua) : a / b;
  case Binary::Maximum:
    return a > b ? a : b;
  case Binary::Minimum:
    return a < b ? a : b;
  case Binary::Pow:
    return 0;
  }
  return 0;
}

__global__ void binaryKernel(Binary op, Ref a, Ref b, Ref r, int64_t n) {
  MP_GRID_STRIDE(i, n) storeF(r, i, applyBinary(op, loadF(a, i), loadF(b, i)));
}

__global__ void integerKernel(Binary op, Ref a, Ref b, Ref r, int64_t n,
                              DeviceError *error, int32_t launch) {
  MP_GRID_STRIDE(i, n) {
    int64_t x = loadI(a, i), y = loadI(b, i);
    if (op == Binary::Div && y == 0) {
      reportError(error, launch, kIntegerDivByZero, 0, i, 0);
      storeI(r, i, 0);
      continue;
    }
    storeI(r, i, applyInteger(op, x, y));
  }
}

__device__ float geluExactDerivative(float x) {
  return 0.5f * (1.0f + erff(x * kSqrtHalf)) +
         x * kInvSqrt2Pi * expf(-0.5f * x * x);
}
__device__ float geluTanhDerivative(float x) {
  float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  float t = tanhf(u);
  float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}

__global__ void activationGradKernel(ActGrad op, Ref g, Ref saved, Ref r,
                                     int64_t n) {
  MP_GRID_STRIDE(i, n) {
    float grad = loadF(g, i), s = loadF(saved, i), v;
    switch (op) {
    case ActGrad::Relu: // a product: a NaN gradient stays NaN
      v = grad * (s > 0 ? 1.0f : 0.0f);
      break;
    case ActGrad::Tanh:
      v = grad * (1.0f - s * s);
      break;
    case ActGrad::Sigmoid:
      v = grad * s * (1.0f - s);
      break;
    case ActGrad::Gelu:
      v = grad * geluExactDerivative(s);
      break;
    default:
      v = grad * geluTanhDerivative(s);
    }
    storeF(r, i, v);
  }
}

template <typename T> __device__ bool applyPredicate(Predicate p, T a, T b) {
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
  default:
    return a >= b;
  }
}

__global__ void compareKernel(Predicate p, Ref a, Ref b, uint8_t *r,
                              int64_t n) {
  bool integer = a.dtype == kI32 || a.dtype == kI64;
  MP_GRID_STRIDE(i, n) {
    r[i] = integer ? applyPredicate(p, loadI(a, i), loadI(b, i))
                   : applyPredicate(p, loadF(a, i), loadF(b, i));
  }
}

__global__ void selectKernel(const uint8_t *cond, const char *a, const char *b,
                             char *r, int64_t size, int64_t n) {
  MP_GRID_STRIDE(i, n) {
    const char *from = (cond[i] ? a : b) + i * size;
    for (int64_t byte = 0; byte < size; ++byte)
      r[i * size + byte] = from[byte];
  }
}

__global__ void biasAddKernel(Ref x, Ref bias, Ref r, int64_t channels,
                              int64_t inner, int64_t n) {
  MP_GRID_STRIDE(i, n) {
    int64_t c = (i / inner) % channels;
    storeF(r, i, loadF(x, i) + loadF(bias, c));
  }
}

__global__ void matmulEpilogueKernel(const float *acc, Ref bias, bool relu,
                                     Ref out, int64_t cols, int64_t n) {
  MP_GRID_STRIDE(i, n) {
    float v = acc[i];
    if (bias.data)
      v += loadF(bias, i % cols);
    storeF(out, i, relu && v < 0.0f ? 0.0f : v); // the reference's ReLU
  }
}

__global__ void castKernel(Ref in, Ref out, int64_t n) {
  MP_GRID_STRIDE(i, n) storeF(out, i, loadF(in, i));
}

template <typename T> __global__ void fillKernel(T *out, T value, int64_t n) {
  MP_GRID_STRIDE(i, n) out[i] = value;
}

} // namespace

int mp::rt::cuda::unary(const Context &ctx, Unary op, Ref x, Ref y, int64_t n) {
  unaryKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(op, x, y, n);
  return lastError();
}

int mp::rt::cuda::binary(const Context &ctx, Binary op, Ref a, Ref b, Ref r,
                         int64_t n) {
  if (a.dtype == kI32 || a.dtype == kI64)
    integerKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
        op, a, b, r, n, ctx.error, ctx.launch);
  else
    binaryKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(op, a, b, r, n);
  return lastError();
}

int mp::rt::cuda::activationGrad(const Context &ctx, ActGrad op, Ref g,
                                 Ref saved, Ref r, int64_t n) {
  activationGradKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(op, g, saved,
                                                                  r, n);
  return lastError();
}

int mp::rt::cuda::compare(const Context &ctx, Predicate p, Ref a, Ref b,
                          uint8_t *r, int64_t n) {
  compareKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(p, a, b, r, n);
  return lastError();
}

int mp::rt::cuda::select(const Context &ctx, const uint8_t *cond, const void *a,
                         const void *b, void *r, int64_t size, int64_t n) {
  selectKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      cond, static_cast<const char *>(a), static_cast<const char *>(b),
      static_cast<char *>(r), size, n);
  return lastError();
}

int mp::rt::cuda::biasAdd(const Context &ctx, Ref x, Ref bias, Ref r,
                          int64_t outer, int64_t channels, int64_t inner) {
  int64_t n = outer * channels * inner;
  biasAddKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(x, bias, r, channels,
                                                           inner, n);
  return lastError();
}

int mp::rt::cuda::matmulEpilogue(const Context &ctx, const float *acc,
                                 Ref bias, bool relu, Ref out, int64_t rows,
                                 int64_t n) {
  int64_t total = rows * n;
  matmulEpilogueKernel<<<blocksFor(total), kThreads, 0, ctx.stream>>>(
      acc, bias, relu, out, n, total);
  return lastError();
}

int mp::rt::cuda::cast(const Context &ctx, Ref in, Ref out, int64_t n) {
  castKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(in, out, n);
  return lastError();
}

int mp::rt::cuda::fillBits(const Context &ctx, void *out, uint64_t bits,
                           int64_t size, int64_t n) {
  unsigned blocks = blocksFor(n);
  switch (size) {
  case 1:
    fillKernel<<<blocks, kThreads, 0, ctx.stream>>>(
        static_cast<uint8_t *>(out), static_cast<uint8_t>(bits), n);
    break;
  case 2:
    fillKernel<<<blocks, kThreads, 0, ctx.stream>>>(
        static_cast<uint16_t *>(out), static_cast<uint16_t>(bits), n);
    break;
  case 4:
    fillKernel<<<blocks, kThreads, 0, ctx.stream>>>(
        static_cast<uint32_t *>(out), static_cast<uint32_t>(bits), n);
    break;
  default:
    fillKernel<<<blocks, kThreads, 0, ctx.stream>>>(
        static_cast<uint64_t *>(out), static_cast<uint64_t>(bits), n);
  }
  return lastError();
}
