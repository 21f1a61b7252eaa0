//===- Loss.cpp - softmax cross-entropy and its gradient ------------------===//
#include "cpu/Loss.h"
#include "cpu/PathMode.h"

#include "cpu/Parallel.h"
#include "cpu/Softmax.h"
#include "cpu/VectorLevel.h"

#include <algorithm>
#include <cmath>

using namespace mp::rt;

void cpu::runCrossEntropy(PathMode mode, const KernelDesc &kernel,
                          const std::vector<TensorView> &inputs,
                          const std::vector<TensorView> &outputs,
                          bool &handled) {
  handled = false;
  bool isGrad = kernel.opId() == OpId::TrainSparseCrossEntropyGrad;
  if ((kernel.opId() != OpId::TrainSparseCrossEntropy && !isGrad) ||
      inputs.size() != (isGrad ? 3u : 2u) || outputs.size() != 1)
    return;
  // Label smoothing runs on the reference kernel; ignore_index here (the
  // default of PyTorch's cross_entropy, -100, is on every loss it exports).
  if (kernel.getFloat(AttrName::label_smoothing, 0.0) != 0.0)
    return;
  bool ignoring = kernel.has(AttrName::ignore_index);
  int64_t ignored = kernel.getInt(AttrName::ignore_index, 0);
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
  if (mode == PathMode::Check) {
    handled = true;
    return;
  }
  // label -1: a row of ignore_index (loss and gradient 0, not counted).
  std::vector<int64_t> label(static_cast<size_t>(rows));
  int64_t counted = 0;
  for (int64_t n = 0; n < rows; ++n) {
    label[n] = loadInt(labels, n);
    if (ignoring && label[n] == ignored) {
      label[n] = -1;
      continue;
    }
    if (label[n] < 0 || label[n] >= classes)
      return; // the reference names the row
    ++counted;
  }

  size_t size = dtypeSize(logits.dtype);
  const char *in = static_cast<const char *>(logits.data);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / classes);
  std::vector<float> rowLoss(isGrad ? 0 : static_cast<size_t>(rows));
  float factor =
      isGrad ? loadFloat(inputs[2], 0) / static_cast<float>(counted) : 0.0f;
  char *result = static_cast<char *>(out.data);
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> x(static_cast<size_t>(classes)),
        e(static_cast<size_t>(classes));
    for (int64_t n = begin; n < end; ++n) {
      if (label[n] < 0) {
        if (isGrad) {
          std::fill(e.begin(), e.end(), 0.0f);
          fromFloats(e.data(), out.dtype, result + n * classes * size, classes);
        } else {
          rowLoss[n] = 0.0f;
        }
        continue;
      }
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
    // In row order, in f64, over the rows counted: the reference's sum
    // (0 / 0 when every row is ignored, as PyTorch's NaN).
    double total = 0;
    for (int64_t n = 0; n < rows; ++n)
      if (label[n] >= 0)
        total += rowLoss[n];
    storeFloat(out, 0,
               static_cast<float>(total / static_cast<double>(counted)));
  }
  handled = true;
}
