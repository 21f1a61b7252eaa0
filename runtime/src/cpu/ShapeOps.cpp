//===- ShapeOps.cpp - transpose, broadcast and slice as row copies --------===//
#include "cpu/ShapeOps.h"

#include "cpu/Chunks.h"
#include "cpu/Parallel.h"
#include "cpu/PathMode.h"
#include "mp/runtime/Tensor.h"
#include "reference/ElementRules.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace mp::rt;
using namespace mp::rt::cpu;

namespace {

/// The index of row `row` of `shape` (all dimensions but the last).
std::vector<int64_t> rowIndex(int64_t row, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size() - 1, 0);
  for (size_t d = index.size(); d-- > 0;) {
    index[d] = row % shape[d];
    row /= shape[d];
  }
  return index;
}

/// Steps a rowIndex() to the next row of `shape`.
void nextRow(std::vector<int64_t> &index, const std::vector<int64_t> &shape) {
  for (size_t d = index.size(); d-- > 0;) {
    if (++index[d] < shape[d])
      return;
    index[d] = 0;
  }
}

/// train.transpose that keeps the last dimension in place (splitting and
/// merging attention heads: [B, S, H, D] <-> [B, H, S, D]): whole rows of
/// the last dimension are copied, rows split over the threads.
bool transposeRows(cpu::PathMode mode, const KernelDesc &kernel,
                   const std::vector<TensorView> &in,
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
  if (mode == cpu::PathMode::Check)
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
                std::vector<int64_t> index = rowIndex(begin, expected);
                for (int64_t row = begin; row < end; ++row) {
                  int64_t offset = 0;
                  for (size_t d = 0; d + 1 < rank; ++d)
                    offset += index[d] * strides[(*perm)[d]];
                  std::memcpy(dst + row * rowBytes,
                              src + offset * dtypeSize(in[0].dtype), rowBytes);
                  nextRow(index, expected);
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

/// out[index] = in[base + sum index[d] * steps[d]], a row of the result's
/// last dimension at a time: a copy of an x row, one value repeated, or a
/// strided gather; rows over the threads (the reference's gather, element
/// by element).
void gatherRows(const TensorView &in, const TensorView &out, int64_t base,
                const std::vector<int64_t> &steps) {
  const std::vector<int64_t> &ys = out.shape;
  size_t bytes = dtypeSize(in.dtype);
  int64_t rank = static_cast<int64_t>(ys.size());
  int64_t row = ys[rank - 1], rows = out.numElements() / row;
  int64_t step = steps[rank - 1];
  const char *src = static_cast<const char *>(in.data) + base * bytes;
  char *dst = static_cast<char *>(out.data);
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
}

bool gatherable(const std::vector<TensorView> &in,
                const std::vector<TensorView> &out) {
  return in.size() == 1 && out.size() == 1 && in[0].dtype == out[0].dtype &&
         !out[0].shape.empty() && out[0].numElements() > 0 && in[0].data &&
         out[0].data;
}

/// train.broadcast as gatherRows: x's dimension i steps with result
/// dimension dims[i] (not at all where x has size 1).
bool broadcastRows(cpu::PathMode mode, const KernelDesc &kernel,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  if (!gatherable(in, out))
    return false;
  const std::vector<int64_t> *dims = kernel.getInts(AttrName::dims);
  const std::vector<int64_t> &xs = in[0].shape, &ys = out[0].shape;
  int64_t rank = static_cast<int64_t>(ys.size());
  if (!dims || dims->size() != xs.size())
    return false;
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
  if (mode == cpu::PathMode::Check)
    return true;
  gatherRows(in[0], out[0], 0, steps);
  return true;
}

/// train.slice as gatherRows: result dimension d starts at offsets[d] and
/// steps strides[d] (default 1) through x.
bool sliceRows(cpu::PathMode mode, const KernelDesc &kernel,
               const std::vector<TensorView> &in,
               const std::vector<TensorView> &out) {
  if (!gatherable(in, out))
    return false;
  const std::vector<int64_t> &xs = in[0].shape, &ys = out[0].shape;
  size_t rank = xs.size();
  const std::vector<int64_t> *offsets = kernel.getInts(AttrName::offsets);
  const std::vector<int64_t> *strides = kernel.getInts(AttrName::strides);
  if (ys.size() != rank || !offsets || offsets->size() != rank ||
      (strides && strides->size() != rank))
    return false;
  std::vector<int64_t> steps(rank, 0);
  int64_t base = 0, stride = 1;
  for (size_t d = rank; d-- > 0;) {
    int64_t offset = (*offsets)[d], by = strides ? (*strides)[d] : 1;
    // In bounds, as the reference checks (it reports what is wrong).
    if (offset < 0 || by < 1 || offset >= xs[d] ||
        ys[d] - 1 > (xs[d] - 1 - offset) / by)
      return false;
    base += offset * stride;
    steps[d] = by * stride;
    stride *= xs[d];
  }
  if (mode == cpu::PathMode::Check)
    return true;
  gatherRows(in[0], out[0], base, steps);
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
bool transposeBlocks(cpu::PathMode mode, const KernelDesc &kernel,
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
  if (mode == cpu::PathMode::Check)
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

/// train.pad of a float tensor: each result row (the last dimension) is
/// the constant, or the constant around a copy of an x row; rows over the
/// threads. The constant is encoded as the reference's fill encodes it
/// (round to odd, then to the 16-bit type). Was the reference's element
/// loop: 19% of a LLaMA step (rotate_half's gradient pads), 11% of Keras'
/// MobileNetV2 (ZeroPadding2D).
bool padRows(cpu::PathMode mode, const KernelDesc &kernel,
             const std::vector<TensorView> &in,
             const std::vector<TensorView> &out) {
  if (in.size() != 1 || out.size() != 1 || in[0].dtype != out[0].dtype ||
      !isFloat(in[0].dtype) || in[0].shape.empty() ||
      in[0].numElements() == 0)
    return false;
  const std::vector<int64_t> *low = kernel.getInts(AttrName::low);
  const std::vector<int64_t> *high = kernel.getInts(AttrName::high);
  const std::vector<int64_t> &xs = in[0].shape, &ys = out[0].shape;
  size_t rank = xs.size();
  if (!low || !high || low->size() != rank || high->size() != rank ||
      ys.size() != rank)
    return false;
  for (size_t d = 0; d < rank; ++d)
    if ((*low)[d] < 0 || (*high)[d] < 0 ||
        ys[d] != (*low)[d] + xs[d] + (*high)[d])
      return false;
  if (mode == cpu::PathMode::Check)
    return true;
  size_t bytes = dtypeSize(out[0].dtype);
  double value = kernel.getFloat(AttrName::value, 0);
  char pattern[4];
  TensorView one{out[0].dtype, {1}, pattern};
  storeFloat(one, 0,
             out[0].dtype == DType::F32 ? static_cast<float>(value)
                                        : ref::roundToOdd(value));
  int64_t row = ys[rank - 1], rows = out[0].numElements() / row;
  int64_t xRow = xs[rank - 1], before = (*low)[rank - 1];
  const char *src = static_cast<const char *>(in[0].data);
  char *dst = static_cast<char *>(out[0].data);
  auto fillBytes = [&](char *to, int64_t count) {
    for (int64_t j = 0; j < count; ++j)
      std::memcpy(to + j * bytes, pattern, bytes);
  };
  parallelFor(rows, std::max<int64_t>(1, kGrain / row),
              [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index = rowIndex(begin, ys);
    for (int64_t i = begin; i < end; ++i) {
      char *to = dst + i * row * bytes;
      // The x row this result row holds, if any.
      int64_t xIndex = 0;
      bool inside = true;
      for (size_t d = 0; d + 1 < rank && inside; ++d) {
        int64_t at = index[d] - (*low)[d];
        inside = at >= 0 && at < xs[d];
        xIndex = xIndex * xs[d] + at;
      }
      if (!inside) {
        fillBytes(to, row);
      } else {
        fillBytes(to, before);
        std::memcpy(to + before * bytes, src + xIndex * xRow * bytes,
                    xRow * bytes);
        fillBytes(to + (before + xRow) * bytes, row - before - xRow);
      }
      nextRow(index, ys);
    }
  });
  return true;
}

} // namespace

bool cpu::runTranspose(PathMode mode, const KernelDesc &kernel,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) {
  return transposeRows(mode, kernel, in, out) ||
         transposeBlocks(mode, kernel, in, out);
}
bool cpu::runBroadcast(PathMode mode, const KernelDesc &kernel,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) {
  return broadcastRows(mode, kernel, in, out);
}
bool cpu::runPad(PathMode mode, const KernelDesc &kernel,
                 const std::vector<TensorView> &in,
                 const std::vector<TensorView> &out) {
  return padRows(mode, kernel, in, out);
}
bool cpu::runSlice(PathMode mode, const KernelDesc &kernel,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
  return sliceRows(mode, kernel, in, out);
}
