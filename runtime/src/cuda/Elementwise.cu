//===- Elementwise.cu - elementwise ops, casts, bias_add, fill ------------===//
//
// The reference's per-element rules (common/ElementMath.h, compiled for the
// device), in f32 with CUDA's math functions (expf, tanhf, erff: within 2
// ulp of the correctly rounded result, where the reference uses the host
// libm: the tests allow for that).
//
//===----------------------------------------------------------------------===//
#include "common/ElementMath.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;
namespace ref = mp::rt::ref;

namespace {

__device__ float applyUnary(Unary op, float x, float param) {
  switch (op) {
  case Unary::Neg:
    return ref::negF(x);
  case Unary::Exp:
    return ref::expF(x);
  case Unary::Log:
    return ref::logF(x);
  case Unary::Sqrt:
    return ref::sqrtF(x);
  case Unary::Rsqrt:
    return ref::rsqrtF(x);
  case Unary::Tanh:
    return ref::tanhF(x);
  case Unary::Sigmoid:
    return ref::sigmoidF(x);
  case Unary::Erf:
    return ref::erfF(x);
  case Unary::Relu:
    return ref::reluF(x);
  case Unary::Gelu:
    return ref::geluExact(x);
  case Unary::GeluTanh:
    return ref::geluTanh(x);
  case Unary::Silu:
    return ref::siluF(x);
  case Unary::Hardswish:
    return ref::hardswishF(x);
  case Unary::LeakyRelu:
    return ref::leakyReluF(x, param);
  case Unary::Elu:
    return ref::eluF(x, param);
  case Unary::Abs:
    return ref::absF(x);
  case Unary::Sign:
    return ref::signF(x);
  }
  return x;
}

__global__ void unaryKernel(Unary op, Ref x, Ref y, int64_t n, float param) {
  MP_GRID_STRIDE(i, n) storeF(y, i, applyUnary(op, loadF(x, i), param));
}

__device__ float applyBinary(Binary op, float a, float b) {
  switch (op) {
  case Binary::Add:
    return ref::AddOp::f(a, b);
  case Binary::Sub:
    return ref::SubOp::f(a, b);
  case Binary::Mul:
    return ref::MulOp::f(a, b);
  case Binary::Div:
    return ref::DivOp::f(a, b);
  case Binary::Maximum:
    return ref::MaximumOp::f(a, b);
  case Binary::Minimum:
    return ref::MinimumOp::f(a, b);
  case Binary::Pow:
    return ref::PowOp::f(a, b);
  }
  return a;
}

/// Wrapping integer arithmetic (the reference's); i32 results are
/// truncated when stored. Division by zero is caught by the caller.
__device__ int64_t applyInteger(Binary op, int64_t a, int64_t b) {
  switch (op) {
  case Binary::Add:
    return ref::AddOp::i(a, b);
  case Binary::Sub:
    return ref::SubOp::i(a, b);
  case Binary::Mul:
    return ref::MulOp::i(a, b);
  case Binary::Div:
    return ref::DivOp::i(a, b);
  case Binary::Maximum:
    return ref::MaximumOp::i(a, b);
  case Binary::Minimum:
    return ref::MinimumOp::i(a, b);
  case Binary::Pow:
    return ref::PowOp::i(a, b);
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

__global__ void activationGradKernel(ActGrad op, Ref g, Ref saved, Ref r,
                                     int64_t n, float param) {
  MP_GRID_STRIDE(i, n) {
    float grad = loadF(g, i), s = loadF(saved, i), v;
    switch (op) {
    case ActGrad::Relu:
      v = ref::reluGradF(grad, s);
      break;
    case ActGrad::Tanh:
      v = ref::tanhGradF(grad, s);
      break;
    case ActGrad::Sigmoid:
      v = ref::sigmoidGradF(grad, s);
      break;
    case ActGrad::Gelu:
      v = ref::geluGradExactF(grad, s);
      break;
    case ActGrad::Silu:
      v = ref::siluGradF(grad, s);
      break;
    case ActGrad::Hardswish:
      v = ref::hardswishGradF(grad, s);
      break;
    case ActGrad::LeakyRelu:
      v = ref::leakyReluGradF(grad, s, param);
      break;
    case ActGrad::Elu:
      v = ref::eluGradF(grad, s, param);
      break;
    case ActGrad::GeluTanh:
    default:
      v = ref::geluGradTanhF(grad, s);
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

int mp::rt::cuda::unary(const Context &ctx, Unary op, Ref x, Ref y, int64_t n,
                        float param) {
  unaryKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(op, x, y, n, param);
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
                                 Ref saved, Ref r, int64_t n, float param) {
  activationGradKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      op, g, saved, r, n, param);
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
