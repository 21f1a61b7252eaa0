//===- Softmax.cpp - softmax / log_softmax on the vector math library -----===//
#include "cpu/Softmax.h"
#include "cpu/PathMode.h"

#include "cpu/Parallel.h"
#include "cpu/VectorMath.h"
#include "cpu/Sums.h"
#include "cpu/VectorLevel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mp::rt;

/// The row's maximum in sixteen lanes folded at the end: `v > m ? v : m`
/// ignores NaN as fmax does and, on a vector of lanes, is one vmaxps (a
/// running fmax over the row is one long dependency chain of scalar
/// compares). The max of a set does not depend on the order it is taken
/// in, but for the sign of a zero, which x - max and max - x[label] do not
/// see.
static inline __attribute__((always_inline)) float rowMax(const float *x,
                                                          int64_t n) {
  typedef float Lanes __attribute__((vector_size(64)));
  constexpr int64_t kLanes = 16;
  const float low = -std::numeric_limits<float>::infinity();
  Lanes lanes = {low, low, low, low, low, low, low, low,
                 low, low, low, low, low, low, low, low};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    Lanes v;
    std::memcpy(&v, x + j, sizeof v);
    lanes = v > lanes ? v : lanes;
  }
  float max = low;
  for (; j < n; ++j)
    max = x[j] > max ? x[j] : max;
  for (int64_t l = 0; l < kLanes; ++l)
    max = lanes[l] > max ? lanes[l] : max;
  return max;
}

float cpu::expRow(DType dtype, const void *row, int64_t length, float *x,
                  float *e, float &sum) {
  toFloats(dtype, row, x, length);
  float max = 0;
  runVectorized([&] {
    max = rowMax(x, length);
    for (int64_t j = 0; j < length; ++j)
      e[j] = x[j] - max;
  });
  vectorExp(e, e, length);
  sum = static_cast<float>(cpu::sumOf(e, length));
  return max;
}

void cpu::runSoftmaxLastAxis(PathMode mode, const KernelDesc &kernel,
                             const std::vector<TensorView> &inputs,
                             const std::vector<TensorView> &outputs,
                             bool &handled) {
  handled = false;
  bool isLog = kernel.opId() == OpId::TrainLogSoftmax;
  if ((kernel.opId() != OpId::TrainSoftmax && !isLog) || inputs.size() != 1 ||
      outputs.size() != 1)
    return;
  const TensorView &x = inputs[0], &y = outputs[0];
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = kernel.getInt(AttrName::axis, -1);
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis != rank - 1 || !isFloat(x.dtype) ||
      y.dtype != x.dtype || y.shape != x.shape)
    return;
  int64_t length = x.shape.back();
  int64_t rows = length ? x.numElements() / length : 0;
  if (rows == 0 || length == 0 || (x.numElements() && !x.data))
    return;
  if (mode == PathMode::Check) {
    handled = true;
    return;
  }
  size_t size = dtypeSize(x.dtype);
  const char *in = static_cast<const char *>(x.data);
  char *out = static_cast<char *>(y.data);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / length);
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(length)),
        e(static_cast<size_t>(length));
    for (int64_t r = begin; r < end; ++r) {
      float sum;
      float max = expRow(x.dtype, in + r * length * size, length, row.data(),
                         e.data(), sum);
      float *__restrict ev = e.data();
      const float *__restrict xv = row.data();
      if (isLog) {
        float logSum = std::log(sum);
        runVectorized([&] {
          for (int64_t j = 0; j < length; ++j)
            ev[j] = xv[j] - max - logSum;
        });
      } else {
        runVectorized([&] {
          for (int64_t j = 0; j < length; ++j)
            ev[j] = ev[j] / sum;
        });
      }
      fromFloats(e.data(), y.dtype, out + r * length * size, length);
    }
  });
  handled = true;
}
