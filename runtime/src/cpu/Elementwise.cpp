//===- Elementwise.cpp - the cpu backend's own elementwise loops ----------===//
#include "cpu/Elementwise.h"

#include "mp/runtime/Backend.h"

#include "cpu/Cast.h"
#include "cpu/Chunks.h"
#include "cpu/LossScaling.h"
#include "cpu/Optimizer.h"
#include "cpu/Probe.h"
#include "cpu/Sums.h"
#include "cpu/VectorMath.h"
#include "reference/ElementRules.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {

using Views = std::vector<TensorView>;

/// y = F(x), one dtype, one shape.
template <float (*F)(float)> bool unary(const Views &in, const Views &out) {
  if (!sameFloat(in, out, 1, 1) || in[0].shape != out[0].shape)
    return false;
  if (probing())
    return true;
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(),
                    [](const float *const *x, float *const *y, int64_t len) {
                      const float *a = x[0];
                      float *r = y[0];
                      // Outputs never alias inputs (Backend::run).
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = F(a[j]);
                    });
  return true;
}

/// r = F(a, b): the float binary ops (a, b, r of one dtype and shape) and
/// the activation gradients F(grad, saved).
template <float (*F)(float, float)>
bool binary(const Views &in, const Views &out) {
  if (!sameFloat(in, out, 2, 1) || in[0].shape != out[0].shape ||
      in[1].shape != out[0].shape)
    return false;
  if (probing())
    return true;
  mapElements<2, 1>({&in[0], &in[1]}, {&out[0]}, out[0].numElements(),
                    [](const float *const *x, float *const *y, int64_t len) {
                      const float *a = x[0], *b = x[1];
                      float *r = y[0];
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = F(a[j], b[j]);
                    });
  return true;
}

//===----------------------------------------------------------------------===//
// Transcendental activations on the vector math library: the reference's
// formulas, term for term, with exp / erf / tanh of whole chunks.
//===----------------------------------------------------------------------===//

using ChunkFn = void (*)(const float *const *x, float *const *y, int64_t n);

template <ChunkFn F> bool unaryChunks(const Views &in, const Views &out) {
  if (!sameFloat(in, out, 1, 1) || in[0].shape != out[0].shape)
    return false;
  if (probing())
    return true;
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(), F);
  return true;
}
template <ChunkFn F> bool binaryChunks(const Views &in, const Views &out) {
  if (!sameFloat(in, out, 2, 1) || in[0].shape != out[0].shape ||
      in[1].shape != out[0].shape)
    return false;
  if (probing())
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
/// 0.5 x (1 + erf(x / sqrt 2)).
void geluExactChunk(const float *const *x, float *const *y, int64_t n) {
  float t[kChunk];
  for (int64_t j = 0; j < n; ++j)
    t[j] = x[0][j] * ref::kSqrtHalf;
  vectorErf(t, t, n);
  for (int64_t j = 0; j < n; ++j)
    y[0][j] = 0.5f * x[0][j] * (1.0f + t[j]);
}
/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void geluTanhChunk(const float *const *x, float *const *y, int64_t n) {
  float t[kChunk];
  for (int64_t j = 0; j < n; ++j) {
    float v = x[0][j];
    t[j] = ref::kSqrt2OverPi * (v + ref::kGeluCubic * v * v * v);
  }
  vectorTanh(t, t, n);
  for (int64_t j = 0; j < n; ++j)
    y[0][j] = 0.5f * x[0][j] * (1.0f + t[j]);
}
/// g * (0.5 (1 + erf(x / sqrt 2)) + x / sqrt(2 pi) exp(-x^2 / 2)).
void geluGradExactChunk(const float *const *x, float *const *y, int64_t n) {
  float a[kChunk], b[kChunk];
  const float *g = x[0], *v = x[1];
  for (int64_t j = 0; j < n; ++j) {
    a[j] = v[j] * ref::kSqrtHalf;
    b[j] = -0.5f * v[j] * v[j];
  }
  vectorErf(a, a, n);
  vectorExp(b, b, n);
  for (int64_t j = 0; j < n; ++j)
    y[0][j] = g[j] * (0.5f * (1.0f + a[j]) + v[j] * ref::kInvSqrt2Pi * b[j]);
}
/// g * (0.5 (1 + t) + 0.5 x (1 - t^2) du), t = tanh(u), the tanh form.
void geluGradTanhChunk(const float *const *x, float *const *y, int64_t n) {
  float t[kChunk];
  const float *g = x[0], *v = x[1];
  for (int64_t j = 0; j < n; ++j)
    t[j] = ref::kSqrt2OverPi * (v[j] + ref::kGeluCubic * v[j] * v[j] * v[j]);
  vectorTanh(t, t, n);
  for (int64_t j = 0; j < n; ++j) {
    float du = ref::kSqrt2OverPi * (1.0f + 3.0f * ref::kGeluCubic * v[j] * v[j]);
    float d = 0.5f * (1.0f + t[j]) + 0.5f * v[j] * (1.0f - t[j] * t[j]) * du;
    y[0][j] = g[j] * d;
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

using ElementwiseFn = bool (*)(const Views &, const Views &);

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
      {OpId::TrainErf, unaryChunks<erfChunk>},
      {OpId::TrainRelu, unary<reluF>},
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
bool biasAdd(const KernelDesc &kernel, const std::vector<TensorView> &in,
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
  if (probing())
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

/// reduce_sum / reduce_mean over one run of neighbouring dimensions [a, b)
/// (the leading ones, the middle ones, as NHWC's H and W, or the trailing
/// ones): x seen as [outer, mid, inner], each result element (o, i) sums
/// its `mid` values in memory order in f64, as the reference walks them
/// (bitwise its result). The columns of an (outer, block of inner) item sit
/// side by side in vector registers (cpu/Sums.h: addColumns).
bool reduceRun(const KernelDesc &kernel, bool mean,
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
  if (probing())
    return true;
  double count = mean ? static_cast<double>(mid) : 1.0;
  DType inType = in[0].dtype, outType = out[0].dtype;
  int64_t blocks = (inner + kChunk - 1) / kChunk;
  int64_t grain = std::max<int64_t>(
      1, kGrain / std::max<int64_t>(1, mid * std::min(inner, kChunk)));
  parallelFor(outer * blocks, grain, [&](int64_t begin, int64_t end) {
    double acc[kChunk];
    float buf[kChunk];
    for (int64_t item = begin; item < end; ++item) {
      int64_t o = item / blocks, c = (item % blocks) * kChunk;
      int64_t n = std::min(kChunk, inner - c);
      int64_t first = o * mid * inner + c;
      std::fill(acc, acc + n, 0.0);
      if (inner == 1 && inType == DType::F32) {
        // One sum down a contiguous run, in order.
        const float *x = in[0].as<const float>() + first;
        double sum = 0;
        for (int64_t m = 0; m < mid; ++m)
          sum += x[m];
        acc[0] = sum;
      } else if (inType == DType::F32) {
        addColumns(acc, in[0].as<const float>() + first, mid, inner, n);
      } else {
        for (int64_t m = 0; m < mid; ++m) {
          toFloats(inType, elementAt(in[0], first + m * inner), buf, n);
          addColumns(acc, buf, 1, n, n);
        }
      }
      for (int64_t j = 0; j < n; ++j)
        buf[j] = static_cast<float>(acc[j] / count);
      fromFloats(buf, outType, elementAt(out[0], o * inner + c), n);
    }
  });
  return true;
}

/// train.fill of a float tensor: the reference encodes the value (f32 or
/// round-to-odd for 16 bits) into element 0; the rest are copies of it.
bool fill(const KernelDesc &kernel, const std::vector<TensorView> &in,
          const std::vector<TensorView> &out) {
  if (!in.empty() || out.size() != 1 || !isFloat(out[0].dtype))
    return false;
  int64_t n = out[0].numElements();
  if (n < kGrain) // small fills: the reference kernel is as fast
    return false;
  if (probing())
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

/// train.transpose that keeps the last dimension in place (splitting and
/// merging attention heads: [B, S, H, D] <-> [B, H, S, D]): whole rows of
/// the last dimension are copied, rows split over the threads.
bool transposeRows(const KernelDesc &kernel, const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || in[0].dtype != out[0].dtype)
    return false;
  const std::vector<int64_t> *perm = kernel.getInts(AttrName::permutation);
  const std::vector<int64_t> &shape = in[0].shape;
  size_t rank = shape.size();
  if (!perm || perm->size() != rank || rank < 2 ||
      (*perm)[rank - 1] != static_cast<int64_t>(rank - 1))
    return false;
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> expected;
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return false;
    seen[p] = true;
    expected.push_back(shape[p]);
  }
  if (out[0].shape != expected || in[0].numElements() == 0)
    return false;
  if (probing())
    return true;
  // Element strides of the input, and for each result row (all dims but the
  // last, in result order) the input offset of its first element.
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;)
    strides[d] = strides[d + 1] * shape[d + 1];
  int64_t rowLength = shape[rank - 1];
  int64_t rows = in[0].numElements() / rowLength;
  size_t rowBytes = static_cast<size_t>(rowLength) * dtypeSize(in[0].dtype);
  const char *src = static_cast<const char *>(in[0].data);
  char *dst = static_cast<char *>(out[0].data);
  parallelFor(rows, std::max<int64_t>(1, kGrain / rowLength),
              [&](int64_t begin, int64_t end) {
                // The result index of row `begin`, digit by digit.
                std::vector<int64_t> index(rank - 1, 0);
                int64_t r = begin;
                for (size_t d = rank - 1; d-- > 0;) {
                  index[d] = r % expected[d];
                  r /= expected[d];
                }
                for (int64_t row = begin; row < end; ++row) {
                  int64_t offset = 0;
                  for (size_t d = 0; d + 1 < rank; ++d)
                    offset += index[d] * strides[(*perm)[d]];
                  std::memcpy(dst + row * rowBytes,
                              src + offset * dtypeSize(in[0].dtype), rowBytes);
                  for (size_t d = rank - 1; d-- > 0;) {
                    if (++index[d] < expected[d])
                      break;
                    index[d] = 0;
                  }
                }
              });
  return true;
}

/// to[j] = from[j * step] (step 0: one value repeated).
template <typename T>
void stridedCopy(const T *from, T *to, int64_t n, int64_t step) {
  if (step == 0) {
    std::fill_n(to, n, *from);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    to[j] = from[j * step];
}

/// train.broadcast: the result a row of its last dimension at a time, each
/// row a copy of an x row, one x value repeated, or a strided gather,
/// rows over the threads (the reference's gather, element by element).
bool broadcastRows(const KernelDesc &kernel, const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || in[0].dtype != out[0].dtype)
    return false;
  const std::vector<int64_t> *dims = kernel.getInts(AttrName::dims);
  const std::vector<int64_t> &xs = in[0].shape, &ys = out[0].shape;
  size_t bytes = dtypeSize(in[0].dtype);
  int64_t rank = static_cast<int64_t>(ys.size());
  if (!dims || dims->size() != xs.size() || rank == 0 ||
      out[0].numElements() == 0 || !in[0].data || !out[0].data ||
      (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
    return false;
  // steps[d]: how far x moves when result dimension d steps.
  std::vector<int64_t> steps(rank, 0);
  int64_t stride = 1;
  for (size_t i = xs.size(); i-- > 0;) {
    int64_t d = (*dims)[i];
    if (d < 0 || d >= rank || (i + 1 < xs.size() && d >= (*dims)[i + 1]) ||
        (xs[i] != 1 && xs[i] != ys[d]))
      return false;
    steps[d] = xs[i] == 1 ? 0 : stride;
    stride *= xs[i];
  }
  if (probing())
    return true;
  int64_t row = ys[rank - 1], rows = out[0].numElements() / row;
  int64_t step = steps[rank - 1];
  const char *src = static_cast<const char *>(in[0].data);
  char *dst = static_cast<char *>(out[0].data);
  parallelFor(rows, std::max<int64_t>(1, kGrain / row),
              [&](int64_t begin, int64_t end) {
    // The result index of row `begin` (all dimensions but the last).
    std::vector<int64_t> index(rank - 1, 0);
    int64_t r = begin, offset = 0;
    for (int64_t d = rank - 1; d-- > 0;) {
      index[d] = r % ys[d];
      r /= ys[d];
      offset += index[d] * steps[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      char *to = dst + i * row * bytes;
      const char *from = src + offset * bytes;
      if (step == 1)
        std::memcpy(to, from, row * bytes);
      else if (bytes == 2)
        stridedCopy(reinterpret_cast<const uint16_t *>(from),
                    reinterpret_cast<uint16_t *>(to), row, step);
      else if (bytes == 4)
        stridedCopy(reinterpret_cast<const uint32_t *>(from),
                    reinterpret_cast<uint32_t *>(to), row, step);
      else
        for (int64_t j = 0; j < row; ++j)
          std::memcpy(to + j * bytes, from + j * step * bytes, bytes);
      for (int64_t d = rank - 1; d-- > 0;) {
        offset += steps[d];
        if (++index[d] < ys[d])
          break;
        offset -= steps[d] * ys[d];
        index[d] = 0;
      }
    }
  });
  return true;
}

/// One [m, n] -> [n, m] block of a batched transpose, in 32 x 32 tiles so
/// that reads and writes both stay in cache lines.
template <typename T>
void transposeTiles(const T *src, T *dst, int64_t m, int64_t n, int64_t rowBegin,
                    int64_t rowEnd) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = rowBegin; i0 < rowEnd; i0 += kTile)
    for (int64_t j0 = 0; j0 < n; j0 += kTile) {
      int64_t i1 = std::min(rowEnd, i0 + kTile), j1 = std::min(n, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i)
          dst[j * m + i] = src[i * n + j];
    }
}

/// train.transpose that swaps two neighbouring groups of dimensions after
/// some leading ones kept in place: [B.., M.., N..] -> [B.., N.., M..]
/// (NCHW <-> NHWC images: [N, C, HW] <-> [N, HW, C]), as batched 2-D
/// transposes in tiles, the rows of the [M, N] matrices over the threads.
bool transposeBlocks(const KernelDesc &kernel,
                     const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || in[0].dtype != out[0].dtype)
    return false;
  size_t bytes = dtypeSize(in[0].dtype);
  const std::vector<int64_t> *perm = kernel.getInts(AttrName::permutation);
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  if (!perm || static_cast<int64_t>(perm->size()) != rank || rank < 2 ||
      (bytes != 2 && bytes != 4) || in[0].numElements() == 0)
    return false;
  // perm = [0, .., b - 1, k, .., rank - 1, b, .., k - 1] with b < k < rank.
  int64_t b = 0;
  while (b < rank && (*perm)[b] == b)
    ++b;
  if (b >= rank - 1)
    return false;
  int64_t k = (*perm)[b];
  if (k <= b)
    return false;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t want = i < b ? i : i < b + rank - k ? k + (i - b) : b + (i - b - (rank - k));
    if ((*perm)[i] != want)
      return false;
  }
  std::vector<int64_t> expected;
  for (int64_t p : *perm)
    expected.push_back(shape[p]);
  if (out[0].shape != expected)
    return false;
  if (probing())
    return true;
  int64_t batch = 1, m = 1, n = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < b ? batch : d < k ? m : n) *= shape[d];
  int64_t grain = std::max<int64_t>(32, kGrain / std::max<int64_t>(n, 1));
  int64_t chunks = (m + grain - 1) / grain;
  parallelFor(batch * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      int64_t matrix = item / chunks, first = (item % chunks) * grain;
      int64_t last = std::min(m, first + grain);
      if (bytes == 4)
        transposeTiles(in[0].as<uint32_t>() + matrix * m * n,
                       out[0].as<uint32_t>() + matrix * m * n, m, n, first, last);
      else
        transposeTiles(in[0].as<uint16_t>() + matrix * m * n,
                       out[0].as<uint16_t>() + matrix * m * n, m, n, first, last);
    }
  });
  return true;
}

} // namespace

Status cpu::runOwnKernel(const KernelDesc &kernel,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         bool &handled) {
  handled = false;
  OpId op = kernel.opId();
  if (ElementwiseFn fn = elementwiseKernel(kernel))
    handled = fn(inputs, outputs);
  else if (op == OpId::MpScale)
    handled = runScale(inputs, outputs);
  else if (op == OpId::MpUnscaleAndCheck || op == OpId::MpAllFinite)
    handled =
        runUnscaleAndCheck(inputs, outputs, op == OpId::MpUnscaleAndCheck);
  else if (op == OpId::TrainFill)
    handled = fill(kernel, inputs, outputs);
  else if (op == OpId::TrainTranspose)
    handled = transposeRows(kernel, inputs, outputs) ||
              transposeBlocks(kernel, inputs, outputs);
  else if (op == OpId::TrainBiasAdd)
    handled = biasAdd(kernel, inputs, outputs);
  else if (op == OpId::TrainBroadcast)
    handled = broadcastRows(kernel, inputs, outputs);
  else if (op == OpId::TrainReduceSum || op == OpId::TrainReduceMean)
    handled = reduceRun(kernel, op == OpId::TrainReduceMean, inputs, outputs);
  else if (op == OpId::TrainSgd || op == OpId::TrainSgdMomentum ||
           op == OpId::TrainAdam || op == OpId::TrainAdamw)
    return runOptimizer(kernel, inputs, outputs, handled);
  return Status::ok();
}
