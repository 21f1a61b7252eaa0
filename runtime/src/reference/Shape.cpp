//===- Shape.cpp - shape ops: data movement, fill and grad_seed -----------===//
//
// reshape, transpose, broadcast, slice and concat move data: they copy
// element bits, so they work on every dtype (i1, i32 and i64 too) and never
// round. transpose, broadcast and slice are one affine gather: each result
// element reads x at base + sum(index * step).
//
//===----------------------------------------------------------------------===//
#include "reference/ElementRules.h"
#include "reference/KernelSupport.h"

#include <cmath>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::ref;

/// result[index] = x[base + sum_d index[d] * steps[d]] for every result
/// index; T is a type of the element size.
template <typename T>
static void gatherAs(const TensorView &x, const TensorView &result,
                     int64_t base, const Shape &steps) {
  const T *src = x.as<const T>();
  T *dst = result.as<T>();
  const Shape &shape = result.shape;
  size_t rank = shape.size();
  int64_t n = result.numElements();
  Shape index(rank, 0);
  int64_t offset = base;
  for (int64_t e = 0; e < n; ++e) {
    dst[e] = src[offset];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += steps[d];
        break;
      }
      offset -= steps[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

static void gather(const TensorView &x, const TensorView &result, int64_t base,
                   const Shape &steps) {
  switch (dtypeSize(x.dtype)) {
  case 1:
    return gatherAs<uint8_t>(x, result, base, steps);
  case 2:
    return gatherAs<uint16_t>(x, result, base, steps);
  case 4:
    return gatherAs<uint32_t>(x, result, base, steps);
  default:
    return gatherAs<uint64_t>(x, result, base, steps);
  }
}

/// Data movement keeps the dtype.
static Status checkMove(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  return checkDType(k, out[0], in[0].dtype, "result");
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

static Status checkReshape(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkMove(k, in, out));
  if (in[0].numElements() == out[0].numElements())
    return Status::ok();
  return kernelError(k, "cannot reshape " + formatShape(in[0].shape) +
                            " into " + formatShape(out[0].shape));
}

static Status runReshape(const KernelDesc &, const Views &in,
                         const Views &out) {
  std::memcpy(out[0].data, in[0].data,
              out[0].numElements() * dtypeSize(out[0].dtype));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

/// The gather steps of a transpose: result dim i walks x dim perm[i].
static Status getTransposeSteps(const KernelDesc &k, const Views &in,
                                const Views &out, Shape &steps) {
  const Shape &shape = in[0].shape;
  Shape perm;
  MP_RETURN_IF_ERROR(getArray(k, AttrName::permutation, shape.size(), perm));
  std::vector<bool> seen(shape.size(), false);
  Shape expected;
  Shape strides = stridesOf(shape);
  steps.clear();
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()) || seen[p])
      return kernelError(k, "'permutation' is not a permutation of [0, " +
                                std::to_string(shape.size()) + ")");
    seen[p] = true;
    expected.push_back(shape[p]);
    steps.push_back(strides[p]);
  }
  return checkShape(k, out[0], expected, "result");
}

static Status checkTranspose(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkMove(k, in, out));
  Shape steps;
  return getTransposeSteps(k, in, out, steps);
}

static Status runTranspose(const KernelDesc &k, const Views &in,
                           const Views &out) {
  Shape steps;
  MP_RETURN_IF_ERROR(getTransposeSteps(k, in, out, steps));
  gather(in[0], out[0], 0, steps);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

/// x dim i maps to result dim dims[i] (strictly increasing), size equal or
/// 1; a size-1 or absent dimension has step 0.
static Status getBroadcastSteps(const KernelDesc &k, const Views &in,
                                const Views &out, Shape &steps) {
  const Shape &x = in[0].shape, &result = out[0].shape;
  Shape dims;
  MP_RETURN_IF_ERROR(getArray(k, AttrName::dims, x.size(), dims));
  Shape strides = stridesOf(x);
  steps.assign(result.size(), 0);
  int64_t previous = -1;
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t dim = dims[i];
    if (dim <= previous || dim >= static_cast<int64_t>(result.size()))
      return kernelError(k, "expects 'dims' strictly increasing and below " +
                                std::to_string(result.size()));
    previous = dim;
    if (x[i] != 1 && x[i] != result[dim])
      return kernelError(k, "cannot broadcast dimension " + std::to_string(i) +
                                " of size " + std::to_string(x[i]) +
                                " to size " + std::to_string(result[dim]));
    if (x[i] != 1)
      steps[dim] = strides[i];
  }
  return Status::ok();
}

static Status checkBroadcast(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkMove(k, in, out));
  Shape steps;
  return getBroadcastSteps(k, in, out, steps);
}

static Status runBroadcast(const KernelDesc &k, const Views &in,
                           const Views &out) {
  Shape steps;
  MP_RETURN_IF_ERROR(getBroadcastSteps(k, in, out, steps));
  gather(in[0], out[0], 0, steps);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

/// Result element index reads x at offsets + index * strides.
static Status getSliceSteps(const KernelDesc &k, const Views &in,
                            const Views &out, int64_t &base, Shape &steps) {
  const Shape &x = in[0].shape, &result = out[0].shape;
  MP_RETURN_IF_ERROR(checkRank(k, out[0], x.size(), "result"));
  Shape offsets, strides(x.size(), 1);
  MP_RETURN_IF_ERROR(getArray(k, AttrName::offsets, x.size(), offsets));
  if (k.getInts(AttrName::strides))
    MP_RETURN_IF_ERROR(getArray(k, AttrName::strides, x.size(), strides));
  Shape xStrides = stridesOf(x);
  base = 0;
  steps.assign(x.size(), 0);
  for (size_t d = 0; d < x.size(); ++d) {
    if (offsets[d] < 0 || strides[d] < 1)
      return kernelError(k, "expects offsets >= 0 and strides >= 1");
    // offset + (size - 1) * stride < x size, without overflow.
    if (result[d] > 0 &&
        (offsets[d] >= x[d] ||
         (result[d] - 1) > (x[d] - 1 - offsets[d]) / strides[d]))
      return kernelError(k, "slice of dimension " + std::to_string(d) +
                                " reads past its size " + std::to_string(x[d]));
    base += offsets[d] * xStrides[d];
    steps[d] = strides[d] * xStrides[d];
  }
  return Status::ok();
}

static Status checkSlice(const KernelDesc &k, const Views &in,
                         const Views &out) {
  MP_RETURN_IF_ERROR(checkMove(k, in, out));
  int64_t base;
  Shape steps;
  return getSliceSteps(k, in, out, base, steps);
}

static Status runSlice(const KernelDesc &k, const Views &in, const Views &out) {
  int64_t base;
  Shape steps;
  MP_RETURN_IF_ERROR(getSliceSteps(k, in, out, base, steps));
  if (out[0].numElements() > 0)
    gather(in[0], out[0], base, steps);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

static Status getConcatDim(const KernelDesc &k, const Views &in,
                           const Views &out, int64_t &dim) {
  const Shape &result = out[0].shape;
  if (!k.getInts(AttrName::dim))
    return kernelError(k, "needs the integer attribute 'dim'");
  MP_RETURN_IF_ERROR(resolveDim(
      k, k.getInt(AttrName::dim, 0), static_cast<int64_t>(result.size()), "dim", dim));
  int64_t total = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Shape &shape = in[i].shape;
    MP_RETURN_IF_ERROR(checkDType(k, in[i], out[0].dtype, "inputs"));
    MP_RETURN_IF_ERROR(checkRank(k, in[i], result.size(), "inputs"));
    for (size_t d = 0; d < result.size(); ++d)
      if (static_cast<int64_t>(d) != dim && shape[d] != result[d])
        return kernelError(k, "input #" + std::to_string(i) + " has shape " +
                                  formatShape(shape) + " but the result has " +
                                  formatShape(result));
    total += shape[dim];
  }
  if (total != result[dim])
    return kernelError(k, "inputs add up to " + std::to_string(total) +
                              " along dimension " + std::to_string(dim) +
                              " but the result has " +
                              std::to_string(result[dim]));
  return Status::ok();
}

static Status checkConcat(const KernelDesc &k, const Views &in,
                          const Views &out) {
  if (in.empty() || out.size() != 1)
    return kernelError(k, "expects at least one operand and one result");
  int64_t dim;
  return getConcatDim(k, in, out, dim);
}

/// Each input is `outer` contiguous chunks that land side by side.
static Status runConcat(const KernelDesc &k, const Views &in,
                        const Views &out) {
  int64_t dim;
  MP_RETURN_IF_ERROR(getConcatDim(k, in, out, dim));
  const Shape &result = out[0].shape;
  size_t size = dtypeSize(out[0].dtype);
  int64_t outer = product(result, 0, dim);
  int64_t inner = product(result, dim + 1, result.size());
  size_t rowBytes = result[dim] * inner * size;
  char *dst = out[0].as<char>();
  size_t start = 0;
  for (const TensorView &x : in) {
    size_t chunk = x.shape[dim] * inner * size;
    const char *src = x.as<const char>();
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + o * rowBytes + start, src + o * chunk, chunk);
    start += chunk;
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// fill and grad_seed
//===----------------------------------------------------------------------===//

static Status checkFill(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 0, 1));
  double value = k.getFloat(AttrName::value, NAN);
  if (std::isnan(value) && !k.has(AttrName::value))
    return kernelError(k, "needs the float attribute 'value'");
  if (isFloat(out[0].dtype))
    return Status::ok();
  double lo = out[0].dtype == DType::I1    ? 0
              : out[0].dtype == DType::I32 ? -2147483648.0
                                           : -9223372036854775808.0;
  double hi = out[0].dtype == DType::I1    ? 1
              : out[0].dtype == DType::I32 ? 2147483647.0
                                           : 9223372036854775807.0;
  if (value >= lo && value <= hi && value == std::trunc(value) &&
      !(out[0].dtype == DType::I64 && value >= hi))
    return Status::ok();
  return kernelError(k, "cannot fill an " +
                            std::string(dtypeName(out[0].dtype)) +
                            " tensor with " + std::to_string(value));
}

static Status runFill(const KernelDesc &k, const Views &, const Views &out) {
  double value = k.getFloat(AttrName::value, 0);
  int64_t n = out[0].numElements();
  if (isFloat(out[0].dtype)) {
    float rounded = out[0].dtype == DType::F32 ? static_cast<float>(value)
                                               : roundToOdd(value);
    // Encode once, then copy the element's bytes.
    if (n == 0)
      return Status::ok();
    storeFloat(out[0], 0, rounded);
    size_t size = dtypeSize(out[0].dtype);
    char *bytes = out[0].as<char>();
    for (int64_t e = 1; e < n; ++e)
      std::memcpy(bytes + e * size, bytes, size);
  } else {
    for (int64_t e = 0; e < n; ++e)
      storeInt(out[0], e, static_cast<int64_t>(value));
  }
  return Status::ok();
}

static Status checkGradSeed(const KernelDesc &k, const Views &in,
                            const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "loss"));
  MP_RETURN_IF_ERROR(checkShape(k, in[0], {}, "loss"));
  return checkSameType(k, in[0], "loss", out[0], "result");
}

static Status runGradSeed(const KernelDesc &, const Views &, const Views &out) {
  storeFloat(out[0], 0, 1.0f);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// pad and one_hot
//===----------------------------------------------------------------------===//

static Status checkPad(const KernelDesc &k, const Views &in,
                       const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  size_t rank = in[0].shape.size();
  Shape low, high, expected;
  MP_RETURN_IF_ERROR(getArray(k, AttrName::low, rank, low));
  MP_RETURN_IF_ERROR(getArray(k, AttrName::high, rank, high));
  for (size_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return kernelError(k, "needs padding >= 0");
    expected.push_back(low[d] + in[0].shape[d] + high[d]);
  }
  MP_RETURN_IF_ERROR(checkShape(k, out[0], expected, "result"));
  return checkFill(k, {}, out);
}

/// The constant everywhere (fill's rule), then x's bytes at offset `low`.
static Status runPad(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(runFill(k, {}, out));
  size_t rank = in[0].shape.size();
  Shape low;
  MP_RETURN_IF_ERROR(getArray(k, AttrName::low, rank, low));
  Shape outStrides = stridesOf(out[0].shape);
  size_t size = dtypeSize(in[0].dtype);
  const char *src = in[0].as<const char>();
  char *dst = out[0].as<char>();
  int64_t n = in[0].numElements();
  Shape index(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d)
      o += (index[d] + low[d]) * outStrides[d];
    std::memcpy(dst + o * size, src + e * size, size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < in[0].shape[d])
        break;
      index[d] = 0;
    }
  }
  return Status::ok();
}

static Status checkOneHot(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkIndex(k, in[0], "indices"));
  MP_RETURN_IF_ERROR(checkFloat(k, out[0], "result"));
  Shape expected = in[0].shape;
  if (out[0].shape.empty() || out[0].shape.back() < 1)
    return kernelError(k, "needs a result with at least one class");
  expected.push_back(out[0].shape.back());
  return checkShape(k, out[0], expected, "result");
}

static Status runOneHot(const KernelDesc &k, const Views &in,
                        const Views &out) {
  int64_t classes = out[0].shape.back(), n = in[0].numElements();
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = loadInt(in[0], i);
    if (c < 0 || c >= classes)
      return kernelError(k, "index " + std::to_string(c) + " at position " +
                                std::to_string(i) + " is outside [0, " +
                                std::to_string(classes) + ")");
  }
  FloatOut r(out[0], /*zeroed=*/true);
  for (int64_t i = 0; i < n; ++i)
    r[i * classes + loadInt(in[0], i)] = 1.0f;
  r.finish();
  return Status::ok();
}

void ref::addShapeKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainReshape, checkReshape, runReshape},
                   {OpId::TrainTranspose, checkTranspose, runTranspose},
                   {OpId::TrainBroadcast, checkBroadcast, runBroadcast},
                   {OpId::TrainSlice, checkSlice, runSlice},
                   {OpId::TrainConcat, checkConcat, runConcat},
                   {OpId::TrainFill, checkFill, runFill},
                   {OpId::TrainGradSeed, checkGradSeed, runGradSeed},
                   {OpId::TrainPad, checkPad, runPad},
                   {OpId::TrainOneHot, checkOneHot, runOneHot},
               });
}
