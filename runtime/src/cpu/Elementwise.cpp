//===- Elementwise.cpp - the cpu backend's own fused loops ----------------===//
#include "cpu/Elementwise.h"

#include "mp/runtime/Backend.h"

#include "cpu/Cast.h"
#include "cpu/Parallel.h"
#include "cpu/Probe.h"
#include "cpu/VectorMath.h"
#include "reference/ElementRules.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <array>
#include <cstring>

/// "The iterations of the next loop are independent" (the in-place update
/// loops write what they read, through distinct pointers), for GCC. Clang's
/// nearest pragma (loop vectorize(assume_safety)) is a demand that fails
/// the build under -Werror where a sanitizer build cannot vectorize: none.
#if defined(__GNUC__) && !defined(__clang__)
#define MP_IVDEP _Pragma("GCC ivdep")
#else
#define MP_IVDEP
#endif

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {

/// Elements converted at a time: the f32 copies of a chunk stay in L1.
constexpr int64_t kChunk = 2048;
/// Elements per thread below which a second thread costs more than it saves.
constexpr int64_t kGrain = 1 << 16;

char *elementAt(const TensorView &view, int64_t index) {
  return static_cast<char *>(view.data) +
         index * static_cast<int64_t>(dtypeSize(view.dtype));
}

/// Nothing to do after a chunk.
struct NoPost {
  void operator()(int64_t, const float *const *, int64_t) const {}
};

/// out[o][j] = body(in[.][j]) over n elements: each operand a float tensor
/// of n elements (checked by the caller). f32 operands are read and written
/// in place; 16-bit ones through chunk buffers. An output may be one of the
/// inputs (each element is read before it is written). post(first, out,
/// len) sees each chunk's results as floats while they are in L1.
template <size_t NIn, size_t NOut, typename Body, typename Post = NoPost>
void mapElements(const std::array<const TensorView *, NIn> &in,
                 const std::array<const TensorView *, NOut> &out, int64_t n,
                 const Body &body, const Post &post = Post()) {
  parallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
    float inBuf[NIn][kChunk], outBuf[NOut][kChunk];
    const float *ip[NIn];
    float *op[NOut];
    for (int64_t c = begin; c < end; c += kChunk) {
      int64_t len = std::min(kChunk, end - c);
      for (size_t i = 0; i < NIn; ++i) {
        if (in[i]->dtype == DType::F32) {
          ip[i] = in[i]->template as<const float>() + c;
        } else {
          toFloats(in[i]->dtype, elementAt(*in[i], c), inBuf[i], len);
          ip[i] = inBuf[i];
        }
      }
      for (size_t o = 0; o < NOut; ++o)
        op[o] = out[o]->dtype == DType::F32 ? out[o]->template as<float>() + c
                                            : outBuf[o];
      body(ip, op, len);
      post(c, op, len);
      for (size_t o = 0; o < NOut; ++o)
        if (out[o]->dtype != DType::F32)
          fromFloats(outBuf[o], out[o]->dtype, elementAt(*out[o], c), len);
    }
  });
}

/// Every view a float tensor of `n` elements.
bool allFloat(const std::vector<TensorView> &views, size_t count, int64_t n) {
  if (views.size() != count)
    return false;
  return std::all_of(views.begin(), views.end(), [&](const TensorView &v) {
    return isFloat(v.dtype) && v.numElements() == n && (n == 0 || v.data);
  });
}

/// Same dtype as well (the elementwise ops and the optimizers).
bool sameFloat(const std::vector<TensorView> &in,
               const std::vector<TensorView> &out, size_t numIn,
               size_t numOut) {
  if (in.empty() || !allFloat(in, numIn, in[0].numElements()) ||
      !allFloat(out, numOut, in[0].numElements()))
    return false;
  auto same = [&](const TensorView &v) { return v.dtype == in[0].dtype; };
  return std::all_of(in.begin(), in.end(), same) &&
         std::all_of(out.begin(), out.end(), same);
}

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
  bool tanhApprox = kernel.getFlag("tanh_approx");
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
  int64_t dim = kernel.getInt("dim", -1);
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

/// reduce_sum / reduce_mean over a leading run of dimensions [0, k): each
/// result column sums its rows in row order in f64, as the reference walks
/// them (bitwise its result).
bool reduceLeading(const KernelDesc &kernel, bool mean,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || !isFloat(in[0].dtype) ||
      !(out[0].dtype == in[0].dtype || out[0].dtype == DType::F32))
    return false;
  const std::vector<int64_t> *dims = kernel.getInts("dims");
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  if (!dims || dims->empty() || static_cast<int64_t>(dims->size()) > rank)
    return false;
  std::vector<int64_t> sorted;
  for (int64_t d : *dims)
    sorted.push_back(d < 0 ? d + rank : d);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return false; // not a leading run (or repeated): the reference's
  int64_t k = static_cast<int64_t>(sorted.size());
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < k; ++d)
    rows *= shape[d];
  for (int64_t d = k; d < rank; ++d)
    cols *= shape[d];
  std::vector<int64_t> expected;
  bool keep = kernel.getFlag("keep_dims");
  for (int64_t d = 0; d < rank; ++d)
    if (d >= k)
      expected.push_back(shape[d]);
    else if (keep)
      expected.push_back(1);
  if (out[0].shape != expected || rows == 0 || cols == 0)
    return false;
  if (probing())
    return true;
  double count = mean ? static_cast<double>(rows) : 1.0;
  DType inType = in[0].dtype, outType = out[0].dtype;
  int64_t colGrain = std::max<int64_t>(64, kGrain / rows);
  parallelFor(cols, colGrain, [&](int64_t begin, int64_t end) {
    double acc[kChunk];
    float buf[kChunk];
    for (int64_t c = begin; c < end; c += kChunk) {
      int64_t n = std::min(kChunk, end - c);
      std::fill(acc, acc + n, 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        const float *x;
        if (inType == DType::F32) {
          x = in[0].as<const float>() + r * cols + c;
        } else {
          toFloats(inType, elementAt(in[0], r * cols + c), buf, n);
          x = buf;
        }
        for (int64_t j = 0; j < n; ++j)
          acc[j] += x[j];
      }
      for (int64_t j = 0; j < n; ++j)
        buf[j] = static_cast<float>(acc[j] / count);
      fromFloats(buf, outType, elementAt(out[0], c), n);
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
  const std::vector<int64_t> *perm = kernel.getInts("permutation");
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

//===----------------------------------------------------------------------===//
// Loss scaling: mp.scale, mp.unscale_and_check, mp.all_finite
//===----------------------------------------------------------------------===//

bool isScalar(const TensorView &v, DType dtype) {
  return v.dtype == dtype && v.shape.empty() && v.data;
}

/// mp.scale: value * scale (an f32 scalar), one dtype in and out.
bool scale(const std::vector<TensorView> &in,
           const std::vector<TensorView> &out) {
  if (in.size() != 2 || out.size() != 1 || !isScalar(in[1], DType::F32) ||
      !isFloat(in[0].dtype) || out[0].dtype != in[0].dtype ||
      out[0].shape != in[0].shape || (in[0].numElements() && !in[0].data))
    return false;
  if (probing())
    return true;
  float factor = *in[1].as<const float>();
  mapElements<1, 1>({&in[0]}, {&out[0]}, out[0].numElements(),
                    [factor](const float *const *x, float *const *y,
                             int64_t len) {
                      const float *a = x[0];
                      float *r = y[0];
MP_IVDEP
                      for (int64_t j = 0; j < len; ++j)
                        r[j] = a[j] * factor;
                    });
  return true;
}

/// Whether every element of `n` f32 values is finite (no branch per
/// element: the loop vectorizes).
bool finiteChunk(const float *v, int64_t n) {
  uint32_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t bits;
    std::memcpy(&bits, v + j, sizeof bits);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

/// mp.unscale_and_check [scale, g...] -> [u..., all_finite] with the
/// reference's rule: u = f32(g) * f32(1 / scale) (reciprocal in double),
/// finiteness judged on the inputs. mp.all_finite [v...] -> [i1] when
/// `unscale` is false. The verdict is an AND: the same for any split.
bool unscaleAndCheck(const std::vector<TensorView> &in,
                     const std::vector<TensorView> &out, bool unscale) {
  size_t first = unscale ? 1 : 0;
  size_t count = in.size() - first;
  if (in.size() <= first || out.size() != (unscale ? count + 1 : 1) ||
      (unscale && !isScalar(in[0], DType::F32)) ||
      !isScalar(out.back(), DType::I1))
    return false;
  for (size_t i = 0; i < count; ++i) {
    const TensorView &g = in[first + i];
    if (!isFloat(g.dtype) || (g.numElements() && !g.data))
      return false;
    if (unscale && (!isFloat(out[i].dtype) || out[i].shape != g.shape ||
                    (g.numElements() && !out[i].data)))
      return false;
  }
  if (probing())
    return true;
  float inverse =
      unscale ? static_cast<float>(1.0 / *in[0].as<const float>()) : 1.0f;
  std::atomic<bool> finite{true};
  for (size_t i = 0; i < count; ++i) {
    const TensorView &g = in[first + i];
    if (unscale) {
      mapElements<1, 1>({&g}, {&out[i]}, g.numElements(),
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          const float *a = x[0];
                          float *r = y[0];
                          if (!finiteChunk(a, len))
                            finite = false;
MP_IVDEP
                          for (int64_t j = 0; j < len; ++j)
                            r[j] = a[j] * inverse;
                        });
    } else {
      size_t size = dtypeSize(g.dtype);
      parallelFor(g.numElements(), kGrain, [&](int64_t begin, int64_t end) {
        float buf[kChunk];
        for (int64_t c = begin; c < end && finite; c += kChunk) {
          int64_t n = std::min(kChunk, end - c);
          toFloats(g.dtype, static_cast<const char *>(g.data) + c * size, buf,
                   n);
          if (!finiteChunk(buf, n))
            finite = false;
        }
      });
    }
  }
  *out.back().as<uint8_t>() = finite ? 1 : 0;
  return true;
}

/// The optimizers; with `castOut`, also castOut = output #`castOutput`
/// (f32) narrowed to castOut's dtype, chunk by chunk: mp.cast's result
/// fused into the update.
Status optimizer(const KernelDesc &kernel, const std::vector<TensorView> &in,
                 const std::vector<TensorView> &out, bool &handled,
                 const TensorView *castOut = nullptr, size_t castOutput = 0) {
  OpId op = kernel.opId();
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
    if (probing()) {
      handled = true;
      return Status::ok();
    }
    ref::SgdRule rule;
    MP_RETURN_IF_ERROR(ref::getSgdRule(kernel, momentum, rule));
    if (momentum)
      mapElements<3, 2>({&in[0], &in[1], &in[2]}, {&out[0], &out[1]}, n,
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          for (int64_t j = 0; j < len; ++j)
                            rule.withMomentum(x[0][j], x[1][j], x[2][j],
                                              y[0][j], y[1][j]);
                        },
                        post);
    else
      mapElements<2, 1>({&in[0], &in[1]}, {&out[0]}, n,
                        [&](const float *const *x, float *const *y,
                            int64_t len) {
                          for (int64_t j = 0; j < len; ++j)
                            y[0][j] = rule.plain(x[0][j], x[1][j]);
                        },
                        post);
    handled = true;
    return Status::ok();
  }
  // adam / adamw: param, grad, exp_avg, exp_avg_sq, and the scalar step.
  if (in.size() != 5 || in[4].numElements() != 1 || !in[4].data)
    return Status::ok();
  std::vector<TensorView> tensors(in.begin(), in.begin() + 4);
  if (!sameFloat(tensors, out, 4, 3))
    return Status::ok();
  if (probing()) {
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
  MP_RETURN_IF_ERROR(ref::getAdamRule(kernel, op == OpId::TrainAdamw, t, rule));
  mapElements<4, 3>({&in[0], &in[1], &in[2], &in[3]},
                    {&out[0], &out[1], &out[2]}, n,
                    [&](const float *const *x, float *const *y, int64_t len) {
                      for (int64_t j = 0; j < len; ++j)
                        rule.apply(x[0][j], x[1][j], x[2][j], x[3][j], y[0][j],
                                   y[1][j], y[2][j]);
                    },
                    post);
  handled = true;
  return Status::ok();
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
    handled = scale(inputs, outputs);
  else if (op == OpId::MpUnscaleAndCheck || op == OpId::MpAllFinite)
    handled = unscaleAndCheck(inputs, outputs, op == OpId::MpUnscaleAndCheck);
  else if (op == OpId::TrainFill)
    handled = fill(kernel, inputs, outputs);
  else if (op == OpId::TrainTranspose)
    handled = transposeRows(kernel, inputs, outputs);
  else if (op == OpId::TrainBiasAdd)
    handled = biasAdd(kernel, inputs, outputs);
  else if (op == OpId::TrainReduceSum || op == OpId::TrainReduceMean)
    handled = reduceLeading(kernel, op == OpId::TrainReduceMean, inputs, outputs);
  else if (op == OpId::TrainSgd || op == OpId::TrainSgdMomentum ||
           op == OpId::TrainAdam || op == OpId::TrainAdamw)
    return optimizer(kernel, inputs, outputs, handled);
  return Status::ok();
}

Status cpu::runOptimizerThenCast(const KernelDesc &kernel,
                                 const std::vector<TensorView> &inputs,
                                 const std::vector<TensorView> &outputs,
                                 size_t output, const TensorView &castOut,
                                 bool &handled) {
  handled = false;
  OpId op = kernel.opId();
  if (op != OpId::TrainSgd && op != OpId::TrainSgdMomentum && op != OpId::TrainAdam &&
      op != OpId::TrainAdamw)
    return Status::ok();
  return optimizer(kernel, inputs, outputs, handled, &castOut, output);
}
