//===- Softmax.cpp - softmax / log_softmax on the vector math library -----===//
#include "cpu/Softmax.h"
#include "cpu/Probe.h"

#include "cpu/Parallel.h"
#include "cpu/VectorMath.h"
#include "cpu/Sums.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mp::rt;

float cpu::expRow(DType dtype, const void *row, int64_t length, float *x,
                  float *e, float &sum) {
  toFloats(dtype, row, x, length);
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < length; ++j)
    max = std::fmax(max, x[j]);
  for (int64_t j = 0; j < length; ++j)
    e[j] = x[j] - max;
  vectorExp(e, e, length);
  sum = static_cast<float>(cpu::sumOf(e, length));
  return max;
}

void cpu::runSoftmaxLastAxis(const KernelDesc &kernel,
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
  if (probing()) {
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
      if (isLog) {
        float logSum = std::log(sum);
        for (int64_t j = 0; j < length; ++j)
          e[j] = row[j] - max - logSum;
      } else {
        for (int64_t j = 0; j < length; ++j)
          e[j] = e[j] / sum;
      }
      fromFloats(e.data(), y.dtype, out + r * length * size, length);
    }
  });
  handled = true;
}
