//===- Elementwise.cpp - the cpu backend's own elementwise loops ----------===//
#include "cpu/Elementwise.h"

#include "mp/runtime/Backend.h"

#include "cpu/Cast.h"
#include "cpu/Chunks.h"
#include "cpu/ElementAccess.h"
#include "cpu/LossScaling.h"
#include "cpu/Optimizer.h"
#include "cpu/PathMode.h"
#include "cpu/ShapeOps.h"
#include "cpu/Sums.h"
#include "cpu/VectorMath.h"
#include "reference/ElementRules.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {

using Views = std::vector<TensorView>;

/// y = f(x), one dtype, one shape.
template <typename Fn>
bool mapUnary(PathMode mode, const Views &in, const Views &out, const Fn &f) {
  if (!sameFloat(in, out, 1, 1) || in[0].shape != out[0].shape)
    return false;
  if (mode == PathMode::Check)
    return true;
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(),
                    [&f](const float *const *x, float *const *y, int64_t len) {
                      const float *a = x[0];
                      float *r = y[0];
                      // Outputs never alias inputs (Backend::run).
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = f(a[j]);
                    });
  return true;
}

/// r = f(a, b): a, b, r of one dtype and shape.
template <typename Fn>
bool mapBinary(PathMode mode, const Views &in, const Views &out, const Fn &f) {
  if (!sameFloat(in, out, 2, 1) || in[0].shape != out[0].shape ||
      in[1].shape != out[0].shape)
    return false;
  if (mode == PathMode::Check)
    return true;
  mapElements<2, 1>({&in[0], &in[1]}, {&out[0]}, out[0].numElements(),
                    [&f](const float *const *x, float *const *y, int64_t len) {
                      const float *a = x[0], *b = x[1];
                      float *r = y[0];
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = f(a[j], b[j]);
                    });
  return true;
}

template <float (*F)(float)>
bool unary(PathMode mode, const Views &in, const Views &out) {
  return mapUnary(mode, in, out, [](float a) { return F(a); });
}
/// The float binary ops and the activation gradients F(grad, saved).
template <float (*F)(float, float)>
bool binary(PathMode mode, const Views &in, const Views &out) {
  return mapBinary(mode, in, out, [](float a, float b) { return F(a, b); });
}
/// The activations with a parameter (leaky_relu's negative_slope), p as
/// the reference reads it: F(x, p) and F(grad, saved, p).
template <float (*F)(float, float)>
bool paramUnary(PathMode mode, float p, const Views &in, const Views &out) {
  return mapUnary(mode, in, out, [p](float a) { return F(a, p); });
}
template <float (*F)(float, float, float)>
bool paramBinary(PathMode mode, float p, const Views &in, const Views &out) {
  return mapBinary(mode, in, out, [p](float a, float b) { return F(a, b, p); });
}

//===----------------------------------------------------------------------===//
// Transcendental activations on the vector math library: the reference's
// formulas, term for term, with exp / erf / tanh of whole chunks.
//===----------------------------------------------------------------------===//

using ChunkFn = void (*)(const float *const *x, float *const *y, int64_t n);

template <ChunkFn F>
bool unaryChunks(PathMode mode, const Views &in, const Views &out) {
  if (!sameFloat(in, out, 1, 1) || in[0].shape != out[0].shape)
    return false;
  if (mode == PathMode::Check)
    return true;
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(), F);
  return true;
}
template <ChunkFn F>
bool binaryChunks(PathMode mode, const Views &in, const Views &out) {
  if (!sameFloat(in, out, 2, 1) || in[0].shape != out[0].shape ||
      in[1].shape != out[0].shape)
    return false;
  if (mode == PathMode::Check)
    return true;
  mapElements<2, 1>({&in[0], &in[1]}, {&out[0]}, out[0].numElements(), F);
  return true;
}

// The chunk buffers below are written for [0, n) before they are read;
// GCC cannot see through the vector-library calls and warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

void expChunk(const float *const *x, float *const *y, int64_t n) {
  vectorExp(x[0], y[0], n);
}
void erfChunk(const float *const *x, float *const *y, int64_t n) {
  vectorErf(x[0], y[0], n);
}
void tanhChunk(const float *const *x, float *const *y, int64_t n) {
  vectorTanh(x[0], y[0], n);
}
/// e = exp(-|x|); x >= 0 ? 1 / (1 + e) : e / (1 + e).
void sigmoidChunk(const float *const *x, float *const *y, int64_t n) {
  float e[kChunk];
  for (int64_t j = 0; j < n; ++j)
    e[j] = -std::fabs(x[0][j]);
  vectorExp(e, e, n);
  for (int64_t j = 0; j < n; ++j)
    y[0][j] = x[0][j] >= 0 ? 1.0f / (1.0f + e[j]) : e[j] / (1.0f + e[j]);
}
/// x sigmoid(x), sigmoid as sigmoidChunk takes it.
void siluChunk(const float *const *x, float *const *y, int64_t n) {
  float e[kChunk];
  const float *v = x[0];
  for (int64_t j = 0; j < n; ++j)
    e[j] = -std::fabs(v[j]);
  vectorExp(e, e, n);
  for (int64_t j = 0; j < n; ++j)
    y[0][j] = v[j] * (v[j] >= 0 ? 1.0f / (1.0f + e[j]) : e[j] / (1.0f + e[j]));
}
/// g s (1 + x (1 - s)), s = sigmoid(x).
void siluGradChunk(const float *const *x, float *const *y, int64_t n) {
  float e[kChunk];
  const float *g = x[0], *v = x[1];
  for (int64_t j = 0; j < n; ++j)
    e[j] = -std::fabs(v[j]);
  vectorExp(e, e, n);
  for (int64_t j = 0; j < n; ++j) {
    float s = v[j] >= 0 ? 1.0f / (1.0f + e[j]) : e[j] / (1.0f + e[j]);
    y[0][j] = g[j] * s * (1.0f + v[j] * (1.0f - s));
  }
}
/// 0.5 x (1 + erf(x / sqrt 2)).
void geluExactChunk(const float *const *x, float *const *y, int64_t n) {
  vectorGelu(x[0], y[0], n);
}
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void geluTanhChunk(const float *const *x, float *const *y, int64_t n) {
  vectorGelu(x[0], y[0], n, /*tanhForm=*/true);
}
/// g * (0.5 (1 + erf(x / sqrt 2)) + x / sqrt(2 pi) exp(-x^2 / 2)).
void geluGradExactChunk(const float *const *x, float *const *y, int64_t n) {
  vectorGeluGrad(x[0], x[1], y[0], n);
}
/// g * (0.5 (1 + t) + 0.5 x (1 - t^2) du), t = tanh(u), the tanh form.
void geluGradTanhChunk(const float *const *x, float *const *y, int64_t n) {
  vectorGeluGrad(x[0], x[1], y[0], n, /*tanhForm=*/true);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

using ElementwiseFn = bool (*)(PathMode, const Views &, const Views &);

/// The elementwise ops by id; gelu and gelu_grad pick their form from
/// `tanh_approx`.
ElementwiseFn elementwiseKernel(const KernelDesc &kernel) {
  using namespace ref;
  static const std::pair<OpId, ElementwiseFn> table[] = {
      {OpId::TrainNeg, unary<negF>},
      {OpId::TrainAbs, unary<absF>},
      {OpId::TrainSign, unary<signF>},
      {OpId::TrainExp, unaryChunks<expChunk>},
      {OpId::TrainLog, unary<logF>},
      {OpId::TrainSqrt, unary<sqrtF>},
      {OpId::TrainRsqrt, unary<rsqrtF>},
      {OpId::TrainTanh, unaryChunks<tanhChunk>},
      {OpId::TrainSigmoid, unaryChunks<sigmoidChunk>},
      {OpId::TrainSilu, unaryChunks<siluChunk>},
      {OpId::TrainSiluGrad, binaryChunks<siluGradChunk>},
      {OpId::TrainErf, unaryChunks<erfChunk>},
      {OpId::TrainRelu, unary<reluF>},
      {OpId::TrainHardswish, unary<hardswishF>},
      {OpId::TrainAdd, binary<AddOp::f>},
      {OpId::TrainSub, binary<SubOp::f>},
      {OpId::TrainMul, binary<MulOp::f>},
      {OpId::TrainDiv, binary<DivOp::f>},
      {OpId::TrainMaximum, binary<MaximumOp::f>},
      {OpId::TrainMinimum, binary<MinimumOp::f>},
      {OpId::TrainPow, binary<PowOp::f>},
      {OpId::TrainReluGrad, binary<reluGradF>},
      {OpId::TrainTanhGrad, binary<tanhGradF>},
      {OpId::TrainSigmoidGrad, binary<sigmoidGradF>},
      {OpId::TrainHardswishGrad, binary<hardswishGradF>},
  };
  OpId op = kernel.opId();
  bool tanhApprox = kernel.getFlag(AttrName::tanh_approx);
  if (op == OpId::TrainGelu)
    return tanhApprox ? unaryChunks<geluTanhChunk>
                      : unaryChunks<geluExactChunk>;
  if (op == OpId::TrainGeluGrad)
    return tanhApprox ? binaryChunks<geluGradTanhChunk>
                      : binaryChunks<geluGradExactChunk>;
  for (const auto &[name, fn] : table)
    if (op == name)
      return fn;
  return nullptr;
}

/// x [outer, channels, inner] + bias[channels], `dim` the channel axis.
bool biasAdd(PathMode mode, const KernelDesc &kernel,
             const std::vector<TensorView> &in,
             const std::vector<TensorView> &out) {
  if (in.size() != 2 || out.size() != 1 || !isFloat(in[0].dtype) ||
      in[1].dtype != in[0].dtype || out[0].dtype != in[0].dtype ||
      out[0].shape != in[0].shape || in[1].shape.size() != 1)
    return false;
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim = kernel.getInt(AttrName::dim, -1);
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank || in[1].shape[0] != shape[dim])
    return false;
  if (mode == PathMode::Check)
    return true;
  int64_t outer = 1, inner = 1, channels = shape[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < rank; ++d)
    inner *= shape[d];
  if (outer * channels * inner == 0)
    return true;
  std::vector<float> bias(static_cast<size_t>(channels));
  toFloats(in[1].dtype, in[1].data, bias.data(), channels);
  // Rows of `len` elements: a row of channels (inner == 1) adds the bias
  // vector, a row of one channel's pixels adds one bias value.
  bool perElement = inner == 1;
  int64_t rows = perElement ? outer : outer * channels;
  int64_t len = perElement ? channels : inner;
  DType dtype = in[0].dtype;
  int64_t rowGrain = std::max<int64_t>(1, kGrain / len);
  parallelFor(rows, rowGrain, [&](int64_t begin, int64_t end) {
    float buf[kChunk];
    for (int64_t r = begin; r < end; ++r)
      for (int64_t c = 0; c < len; c += kChunk) {
        int64_t n = std::min(kChunk, len - c);
        int64_t at = r * len + c;
        const float *x;
        float *y = dtype == DType::F32 ? out[0].as<float>() + at : buf;
        if (dtype == DType::F32) {
          x = in[0].as<const float>() + at;
        } else {
          toFloats(dtype, elementAt(in[0], at), buf, n);
          x = buf;
        }
        if (perElement) {
          const float *b = bias.data() + c;
          for (int64_t j = 0; j < n; ++j)
            y[j] = x[j] + b[j];
        } else {
          float b = bias[static_cast<size_t>(r % channels)];
          for (int64_t j = 0; j < n; ++j)
            y[j] = x[j] + b;
        }
        if (dtype != DType::F32)
          fromFloats(buf, dtype, elementAt(out[0], at), n);
      }
  });
  return true;
}

/// How many contiguous sums reduceRun interleaves: enough independent
/// chains of f64 adds to cover an add's latency on two ports.
constexpr int64_t kRowsAtOnce = 8;

/// acc[r] = the sum of x[r * length + m] over m, in order, in f64, for
/// rows r < `rows` (at most kRowsAtOnce), elements read as `Elems` says
/// (cpu/ElementAccess.h).
template <typename Elems>
void sumRows(const typename Elems::T *x, int64_t length, int64_t rows,
             double *acc) {
  if (rows == kRowsAtOnce) {
    double s[kRowsAtOnce] = {};
    for (int64_t m = 0; m < length; ++m)
      for (int64_t r = 0; r < kRowsAtOnce; ++r)
        s[r] += static_cast<double>(Elems::load(x, r * length + m));
    std::copy(s, s + kRowsAtOnce, acc);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t m = 0; m < length; ++m)
      sum += static_cast<double>(Elems::load(x, r * length + m));
    acc[r] = sum;
  }
}

/// reduce_sum / reduce_mean over one run of neighbouring dimensions [a, b)
/// (the leading ones, the middle ones, as NHWC's H and W, or the trailing
/// ones): x seen as [outer, mid, inner], each result element (o, i) sums
/// its `mid` values in memory order in f64, as the reference walks them
/// (bitwise its result). The columns of an (outer, block of inner) item sit
/// side by side in vector registers (cpu/Sums.h: addColumns).
bool reduceRun(PathMode mode, const KernelDesc &kernel, bool mean,
               const std::vector<TensorView> &in,
               const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || !isFloat(in[0].dtype) ||
      !(out[0].dtype == in[0].dtype || out[0].dtype == DType::F32))
    return false;
  const std::vector<int64_t> *dims = kernel.getInts(AttrName::dims);
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  if (!dims || dims->empty() || static_cast<int64_t>(dims->size()) > rank)
    return false;
  std::vector<int64_t> sorted;
  for (int64_t d : *dims)
    sorted.push_back(d < 0 ? d + rank : d);
  std::sort(sorted.begin(), sorted.end());
  int64_t a = sorted.front(), b = a + static_cast<int64_t>(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != a + static_cast<int64_t>(i) || sorted[i] >= rank)
      return false; // not one run (or repeated): the reference's
  int64_t outer = 1, mid = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < a ? outer : d < b ? mid : inner) *= shape[d];
  std::vector<int64_t> expected;
  bool keep = kernel.getFlag(AttrName::keep_dims);
  for (int64_t d = 0; d < rank; ++d)
    if (d < a || d >= b)
      expected.push_back(shape[d]);
    else if (keep)
      expected.push_back(1);
  if (out[0].shape != expected || in[0].numElements() == 0 || !in[0].data ||
      !out[0].data)
    return false;
  if (mode == PathMode::Check)
    return true;
  double count = mean ? static_cast<double>(mid) : 1.0;
  DType inType = in[0].dtype, outType = out[0].dtype;
  // Columns per item: kChunk, or fewer where there are fewer items than
  // threads (a bias gradient: one [rows, features] sum, outer 1), in
  // multiples of 16. Each column's sum is the same whatever the split.
  int64_t width = kChunk;
  int64_t threads = std::max<int64_t>(1, cpuThreads());
  bool fewItems = outer * ((inner + kChunk - 1) / kChunk) < threads &&
                  mid * inner >= kGrain;
  if (fewItems)
    width = std::clamp<int64_t>((inner / threads + 15) / 16 * 16, 16, kChunk);
  int64_t blocks = (inner + width - 1) / width;
  int64_t grain = std::max<int64_t>(
      1, kGrain / std::max<int64_t>(1, mid * std::min(inner, width)));
  auto items = [&](int64_t begin, int64_t end) {
    double acc[kChunk];
    float buf[kChunk];
    if (inner == 1 && (inType == DType::F32 || inType == DType::BF16)) {
      // Sums down contiguous runs (a row's sum: the last dimensions): each
      // in memory order in f64 as the reference adds it, kRowsAtOnce of
      // them side by side, so that the adds of different rows overlap
      // (one chain waits for each add's latency).
      for (int64_t item = begin; item < end; item += kRowsAtOnce) {
        int64_t rows = std::min(kRowsAtOnce, end - item);
        withElems(inType, [&](auto elems) {
          using Elems = decltype(elems);
          sumRows<Elems>(in[0].as<const typename Elems::T>() + item * mid, mid,
                         rows, acc);
        });
        for (int64_t r = 0; r < rows; ++r)
          buf[r] = static_cast<float>(acc[r] / count);
        fromFloats(buf, outType, elementAt(out[0], item), rows);
      }
      return;
    }
    for (int64_t item = begin; item < end; ++item) {
      int64_t o = item / blocks, c = (item % blocks) * width;
      int64_t n = std::min(width, inner - c);
      int64_t first = o * mid * inner + c;
      std::fill(acc, acc + n, 0.0);
      if (inType == DType::F32) {
        addColumns(acc, in[0].as<const float>() + first, mid, inner, n);
      } else if (inType == DType::BF16) {
        addColumnsBf16(acc, in[0].as<const uint16_t>() + first, mid, inner, n);
      } else {
        // As many rows as the buffer holds widened before they are added
        // (one addColumns call for them, not one per short row), added
        // row by row as before.
        int64_t rowsAtOnce = std::max<int64_t>(1, kChunk / n);
        for (int64_t m = 0; m < mid; m += rowsAtOnce) {
          int64_t rows = std::min(rowsAtOnce, mid - m);
          if (n == inner)
            toFloats(inType, elementAt(in[0], first + m * inner), buf,
                     rows * n);
          else
            for (int64_t k = 0; k < rows; ++k)
              toFloats(inType, elementAt(in[0], first + (m + k) * inner),
                       buf + k * n, n);
          addColumns(acc, buf, rows, n, n);
        }
      }
      for (int64_t j = 0; j < n; ++j)
        buf[j] = static_cast<float>(acc[j] / count);
      fromFloats(buf, outType, elementAt(out[0], o * inner + c), n);
    }
  };
  if (fewItems)
    parallelForItems(outer * blocks, items);
  else
    parallelFor(outer * blocks, grain, items);
  return true;
}

/// train.fill of a float tensor: the reference encodes the value (f32 or
/// round-to-odd for 16 bits) into element 0; the rest are copies of it.
bool fill(PathMode mode, const KernelDesc &kernel,
          const std::vector<TensorView> &in,
          const std::vector<TensorView> &out) {
  if (!in.empty() || out.size() != 1 || !isFloat(out[0].dtype))
    return false;
  int64_t n = out[0].numElements();
  if (n < kGrain) // small fills: the reference kernel is as fast
    return false;
  if (mode == PathMode::Check)
    return true;
  TensorView first = out[0];
  first.shape = {1};
  // One element through the reference kernel: its encoding, exactly.
  Status status = createReferenceBackend()->run(kernel, {}, {first});
  if (!status.isOk())
    return false;
  size_t size = dtypeSize(out[0].dtype);
  parallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
    if (size == 4) {
      uint32_t v = *out[0].as<const uint32_t>();
      std::fill(out[0].as<uint32_t>() + std::max<int64_t>(begin, 1),
                out[0].as<uint32_t>() + end, v);
    } else {
      uint16_t v = *out[0].as<const uint16_t>();
      std::fill(out[0].as<uint16_t>() + std::max<int64_t>(begin, 1),
                out[0].as<uint16_t>() + end, v);
    }
  });
  return true;
}

/// train.select(cond, a, b) on tensors of one shape: own typed loop,
/// elements over the threads (the reference copies element by element).
bool selectElements(PathMode mode, const std::vector<TensorView> &in,
                    const std::vector<TensorView> &out) {
  if (in.size() != 3 || out.size() != 1 || in[0].dtype != DType::I1 ||
      in[1].dtype != out[0].dtype || in[2].dtype != out[0].dtype ||
      in[0].shape != out[0].shape || in[1].shape != out[0].shape ||
      in[2].shape != out[0].shape || out[0].numElements() == 0)
    return false;
  // i1 data too (one byte per element): a conjunction of masks written as
  // select(c1, c2, false), Keras' ReLU6 gradient.
  size_t bytes = dtypeSize(out[0].dtype);
  if (bytes != 1 && bytes != 2 && bytes != 4)
    return false;
  if (mode == PathMode::Check)
    return true;
  const uint8_t *cond = in[0].as<const uint8_t>();
  auto run = [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *a = in[1].as<const T>(), *b = in[2].as<const T>();
    T *r = out[0].as<T>();
    parallelFor(out[0].numElements(), kGrain, [&](int64_t begin, int64_t end) {
      const uint8_t *__restrict c = cond;
      const T *__restrict av = a, *__restrict bv = b;
      T *__restrict rv = r;
      runVectorized([&] {
        for (int64_t e = begin; e < end; ++e)
          rv[e] = c[e] ? av[e] : bv[e];
      });
    });
  };
  if (bytes == 1)
    run(static_cast<uint8_t *>(nullptr));
  else if (bytes == 2)
    run(static_cast<uint16_t *>(nullptr));
  else
    run(static_cast<uint32_t *>(nullptr));
  return true;
}

/// train.compare of two f32 or bf16 tensors of one shape into i1 bytes
/// (IEEE-754: NaN compares false but for `ne`), own vectorizable loop: the
/// reference's element loop was 7% of Keras' MobileNetV2 step (ReLU6's
/// gradient masks).
bool compareElements(PathMode mode, const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out) {
  if (in.size() != 2 || out.size() != 1 || out[0].dtype != DType::I1 ||
      in[0].dtype != in[1].dtype ||
      (in[0].dtype != DType::F32 && in[0].dtype != DType::BF16) ||
      in[0].shape != out[0].shape || in[1].shape != out[0].shape ||
      out[0].numElements() == 0)
    return false;
  // The predicate's index in the ODS enum (eq, ne, lt, le, gt, ge).
  const std::string *name = kernel.getString(AttrName::predicate);
  int predicate = -1;
  for (int i = 0; name && i < 6; ++i)
    if (*name == op_table::kEnumComparePredicate[i])
      predicate = i;
  if (predicate < 0)
    return false; // the reference kernel names the attribute
  if (mode == PathMode::Check)
    return true;
  bool bf16 = in[0].dtype == DType::BF16;
  uint8_t *r = out[0].as<uint8_t>();
  auto run = [&](auto cmp) {
    parallelFor(out[0].numElements(), kGrain, [&](int64_t begin,
                                                  int64_t end) {
      uint8_t *__restrict rv = r;
      if (bf16) {
        const uint16_t *__restrict a = in[0].as<const uint16_t>();
        const uint16_t *__restrict b = in[1].as<const uint16_t>();
        runVectorized([&] {
          for (int64_t e = begin; e < end; ++e) {
            uint32_t x = static_cast<uint32_t>(a[e]) << 16,
                     y = static_cast<uint32_t>(b[e]) << 16;
            float fx, fy;
            std::memcpy(&fx, &x, 4);
            std::memcpy(&fy, &y, 4);
            rv[e] = cmp(fx, fy);
          }
        });
      } else {
        const float *__restrict a = in[0].as<const float>();
        const float *__restrict b = in[1].as<const float>();
        runVectorized([&] {
          for (int64_t e = begin; e < end; ++e)
            rv[e] = cmp(a[e], b[e]);
        });
      }
    });
  };
  switch (predicate) {
  case 0: run([](float x, float y) -> uint8_t { return x == y; }); break;
  case 1: run([](float x, float y) -> uint8_t { return x != y; }); break;
  case 2: run([](float x, float y) -> uint8_t { return x < y; }); break;
  case 3: run([](float x, float y) -> uint8_t { return x <= y; }); break;
  case 4: run([](float x, float y) -> uint8_t { return x > y; }); break;
  default: run([](float x, float y) -> uint8_t { return x >= y; }); break;
  }
  return true;
}

} // namespace

Status cpu::runOwnKernel(PathMode mode, const KernelDesc &kernel,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         bool &handled) {
  handled = false;
  OpId op = kernel.opId();
  if (ElementwiseFn fn = elementwiseKernel(kernel))
    handled = fn(mode, inputs, outputs);
  else if (op == OpId::TrainLeakyRelu)
    handled = paramUnary<ref::leakyReluF>(
        mode,
        static_cast<float>(kernel.getFloat(AttrName::negative_slope, 0.0)),
        inputs, outputs);
  else if (op == OpId::TrainLeakyReluGrad)
    handled = paramBinary<ref::leakyReluGradF>(
        mode,
        static_cast<float>(kernel.getFloat(AttrName::negative_slope, 0.0)),
        inputs, outputs);
  else if (op == OpId::MpScale)
    handled = runScale(mode, inputs, outputs);
  else if (op == OpId::MpUnscaleAndCheck || op == OpId::MpAllFinite)
    handled = runUnscaleAndCheck(mode, inputs, outputs,
                                 op == OpId::MpUnscaleAndCheck);
  else if (op == OpId::TrainFill)
    handled = fill(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainTranspose)
    handled = runTranspose(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainBiasAdd)
    handled = biasAdd(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainBroadcast)
    handled = runBroadcast(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainSlice)
    handled = runSlice(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainPad)
    handled = runPad(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainSelect)
    handled = selectElements(mode, inputs, outputs);
  else if (op == OpId::TrainCompare)
    handled = compareElements(mode, kernel, inputs, outputs);
  else if (op == OpId::TrainReduceSum || op == OpId::TrainReduceMean)
    handled =
        reduceRun(mode, kernel, op == OpId::TrainReduceMean, inputs, outputs);
  else if (op == OpId::TrainSgd || op == OpId::TrainSgdMomentum ||
           op == OpId::TrainAdam || op == OpId::TrainAdamw)
    return runOptimizer(mode, kernel, inputs, outputs, handled);
  return Status::ok();
}
