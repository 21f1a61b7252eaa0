//===- Chunks.h - chunked, threaded loops over tensors ---------*- C++ -*-===//
//
// What the cpu backend's own elementwise, loss-scaling and optimizer loops
// share (cpu/Elementwise.cpp, LossScaling.cpp, Optimizer.cpp): 16-bit
// operands read a chunk at a time into f32, results rounded once as each
// chunk is stored, elements split over the backend's threads.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CPU_CHUNKS_H
#define MP_RUNTIME_CPU_CHUNKS_H

#include "cpu/Parallel.h"
#include "cpu/VectorLevel.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>


/// "The iterations of the next loop are independent" (the in-place update
/// loops write what they read, through distinct pointers), for GCC. Clang's
/// nearest pragma (loop vectorize(assume_safety)) is a demand that fails
/// the build under -Werror where a sanitizer build cannot vectorize: none.
#if defined(__GNUC__) && !defined(__clang__)
#define MP_IVDEP _Pragma("GCC ivdep")
#else
#define MP_IVDEP
#endif
namespace mp::rt::cpu {

/// Whether every element of `n` f32 values is finite (no branch per
/// element: the loop vectorizes). A value is inf or NaN exactly when its
/// exponent bits are all ones.
inline __attribute__((always_inline)) bool finiteChunk(const float *v,
                                                       int64_t n) {
  uint32_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t bits;
    std::memcpy(&bits, v + j, sizeof bits);
    bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

/// Elements converted at a time: the f32 copies of a chunk stay in L1.
inline constexpr int64_t kChunk = 2048;
/// Elements per thread below which a second thread costs more than it saves.
inline constexpr int64_t kGrain = 1 << 16;

inline char *elementAt(const TensorView &view, int64_t index) {
  return static_cast<char *>(view.data) +
         index * static_cast<int64_t>(dtypeSize(view.dtype));
}

/// Nothing to do after a chunk.
struct NoPost {
  void operator()(int64_t, const float *const *, int64_t) const {}
};

/// The chunk loop of mapElements over [begin, end): 16-bit operands
/// widened into the chunk buffers, body, post, results narrowed.
template <size_t NIn, size_t NOut, typename Body, typename Post>
inline __attribute__((always_inline)) void
mapChunks(const std::array<const TensorView *, NIn> &in,
          const std::array<const TensorView *, NOut> &out, int64_t begin,
          int64_t end, const Body &body, const Post &post) {
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
}

/// out[o][j] = body(in[.][j]) over n elements: each operand a float tensor
/// of n elements (checked by the caller). f32 operands are read and written
/// in place; 16-bit ones through chunk buffers. An output may be one of the
/// inputs (each element is read before it is written). post(first, out,
/// len) sees each chunk's results as floats while they are in L1.
template <size_t NIn, size_t NOut, typename Body, typename Post = NoPost>
void mapElements(const std::array<const TensorView *, NIn> &in,
                 const std::array<const TensorView *, NOut> &out, int64_t n,
                 const Body &body, const Post &post = Post()) {
  // At the CPU's vector width (runVectorized: every file that includes
  // this header is built with -ffp-contract=off, runtime/CMakeLists.txt).
  parallelFor(n, kGrain, [&](int64_t begin, int64_t end) {
    runVectorized(
        [&] { mapChunks<NIn, NOut>(in, out, begin, end, body, post); });
  });
}

/// Every view a float tensor of `n` elements.
inline bool allFloat(const std::vector<TensorView> &views, size_t count, int64_t n) {
  if (views.size() != count)
    return false;
  return std::all_of(views.begin(), views.end(), [&](const TensorView &v) {
    return isFloat(v.dtype) && v.numElements() == n && (n == 0 || v.data);
  });
}

/// Same dtype as well (the elementwise ops and the optimizers).
inline bool sameFloat(const std::vector<TensorView> &in,
               const std::vector<TensorView> &out, size_t numIn,
               size_t numOut) {
  if (in.empty() || !allFloat(in, numIn, in[0].numElements()) ||
      !allFloat(out, numOut, in[0].numElements()))
    return false;
  auto same = [&](const TensorView &v) { return v.dtype == in[0].dtype; };
  return std::all_of(in.begin(), in.end(), same) &&
         std::all_of(out.begin(), out.end(), same);
}

} // namespace mp::rt::cpu

#endif // MP_RUNTIME_CPU_CHUNKS_H
