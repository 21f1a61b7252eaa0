//===- Loss.cpp - softmax cross-entropy and its gradient ------------------===//
#include "cpu/Loss.h"
#include "cpu/Probe.h"

#include "cpu/Parallel.h"
#include "cpu/Softmax.h"
#include "cpu/VectorLevel.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;


void cpu::runCrossEntropy(const KernelDesc &kernel,
                          const std::vector<TensorView> &inputs,
                          const std::vector<TensorView> &outputs,
                          bool &handled) {
  handled = false;
  bool isGrad = kernel.opId() == OpId::TrainSparseCrossEntropyGrad;
  if ((kernel.opId() != OpId::TrainSparseCrossEntropy && !isGrad) ||
      inputs.size() != (isGrad ? 3u : 2u) || outputs.size() != 1)
    return;
  // Label smoothing and ignore_index run on the reference kernel.
  if (kernel.getFloat(AttrName::label_smoothing, 0.0) != 0.0 ||
      kernel.has(AttrName::ignore_index))
    return;
  const TensorView &logits = inputs[0], &labels = inputs[1], &out = outputs[0];
  if (!isFloat(logits.dtype) || logits.shape.size() != 2 ||
      (labels.dtype != DType::I32 && labels.dtype != DType::I64) ||
      labels.shape.size() != 1 || labels.shape[0] != logits.shape[0] ||
      !isFloat(out.dtype))
    return;
  int64_t rows = logits.shape[0], classes = logits.shape[1];
  if (isGrad) {
    if (out.dtype != logits.dtype || out.shape != logits.shape ||
        !isFloat(inputs[2].dtype) || inputs[2].numElements() != 1)
      return;
  } else if (!out.shape.empty() ||
             (out.dtype != logits.dtype && out.dtype != DType::F32)) {
    return;
  }
  if (rows == 0 || classes == 0 || !logits.data || !out.data || !labels.data)
    return;
  if (probing()) {
    handled = true;
    return;
  }
  std::vector<int64_t> label(static_cast<size_t>(rows));
  for (int64_t n = 0; n < rows; ++n) {
    label[n] = loadInt(labels, n);
    if (label[n] < 0 || label[n] >= classes)
      return; // the reference names the row
  }

  size_t size = dtypeSize(logits.dtype);
  const char *in = static_cast<const char *>(logits.data);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / classes);
  std::vector<float> rowLoss(isGrad ? 0 : static_cast<size_t>(rows));
  float factor =
      isGrad ? loadFloat(inputs[2], 0) / static_cast<float>(rows) : 0.0f;
  char *result = static_cast<char *>(out.data);
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> x(static_cast<size_t>(classes)),
        e(static_cast<size_t>(classes));
    for (int64_t n = begin; n < end; ++n) {
      float sum;
      float max = cpu::expRow(logits.dtype, in + n * classes * size, classes,
                              x.data(), e.data(), sum);
      if (!isGrad) {
        rowLoss[n] = (max - x[label[n]]) + std::log(sum);
        continue;
      }
      float *__restrict ev = e.data();
      int64_t hot = label[n];
      runVectorized([&] {
        for (int64_t c = 0; c < classes; ++c)
          ev[c] = (ev[c] / sum - (c == hot ? 1.0f : 0.0f)) * factor;
      });
      fromFloats(e.data(), out.dtype, result + n * classes * size, classes);
    }
  });
  if (!isGrad) {
    // In row order, in f64: the reference's sum.
    double total = 0;
    for (int64_t n = 0; n < rows; ++n)
      total += rowLoss[n];
    storeFloat(out, 0, static_cast<float>(total / static_cast<double>(rows)));
  }
  handled = true;
}
