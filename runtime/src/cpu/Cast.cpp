//===- Cast.cpp - mp.cast between f32 and bf16 / f16, threaded ------------===//
//
// The vectorized bulk conversions of core/FloatConvert.cpp, split over the
// backend's threads: a cast is memory bound, and one core does not saturate
// the memory bandwidth. Bitwise the reference kernel's result.
//
//===----------------------------------------------------------------------===//
#include "cpu/Cast.h"
#include "cpu/Parallel.h"
#include "cpu/PathMode.h"

using namespace mp::rt;

/// Casts are memory bound: threads pay off from a weight matrix up, not for
/// a bias.
static constexpr int64_t kCastGrain = 1 << 18;

bool mp::rt::cpu::castFast(PathMode mode, const TensorView &input,
                           const TensorView &output) {
  int64_t n = output.numElements();
  if (input.numElements() != n || input.dtype == output.dtype)
    return false;
  if (mode == PathMode::Check)
    return (input.dtype == DType::F32 && isFloat(output.dtype)) ||
           (output.dtype == DType::F32 && isFloat(input.dtype));
  // Same dtype: the reference stores loadFloat(x), which is the value
  // itself except that a signalling NaN comes out quiet; leave those to it
  // rather than copy bits that differ. bf16 <-> f16 goes through f32 there.
  char *out = static_cast<char *>(output.data);
  const char *in = static_cast<const char *>(input.data);
  size_t inSize = dtypeSize(input.dtype), outSize = dtypeSize(output.dtype);
  if (input.dtype == DType::F32 && isFloat(output.dtype)) {
    parallelFor(n, kCastGrain, [&](int64_t b, int64_t e) {
      fromFloats(reinterpret_cast<const float *>(in) + b, output.dtype,
                 out + b * outSize, e - b);
    });
    return true;
  }
  if (output.dtype == DType::F32 && isFloat(input.dtype)) {
    parallelFor(n, kCastGrain, [&](int64_t b, int64_t e) {
      toFloats(input.dtype, in + b * inSize,
               reinterpret_cast<float *>(out) + b, e - b);
    });
    return true;
  }
  return false;
}
