//===- RowParallel.cpp - reference kernels split over batch rows ----------===//
#include "cpu/RowParallel.h"
#include "cpu/PathMode.h"

#include "cpu/Parallel.h"

#include <mutex>

using namespace mp::rt;

/// The resolved `axis` attribute (default -1) of a rank-`rank` operand, or
/// -1 when out of range.
static int64_t axisOf(const KernelDesc &kernel, int64_t rank) {
  int64_t axis = kernel.getInt(AttrName::axis, -1);
  if (axis < 0)
    axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

/// Whether rows along dimension 0 are independent for this op and these
/// views (every view split, as all of them lead with the row dimension).
static bool rowIndependent(const KernelDesc &kernel,
                           const std::vector<TensorView> &in) {
  OpId op = kernel.opId();
  if (in.empty() || in[0].shape.empty())
    return false;
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  if (op == OpId::TrainSoftmax || op == OpId::TrainLogSoftmax ||
      op == OpId::TrainSoftmaxGrad || op == OpId::TrainLogSoftmaxGrad)
    return axisOf(kernel, rank) > 0;
  if (op == OpId::TrainReduceSum || op == OpId::TrainReduceMean ||
      op == OpId::TrainReduceMax) {
    // Reductions that keep dimension 0: each result row folds only its own
    // input row (leading-dimension sums are cpu/Elementwise.cpp's).
    const std::vector<int64_t> *dims = kernel.getInts(AttrName::dims);
    if (!dims || dims->empty())
      return false;
    for (int64_t d : *dims)
      if (d == 0 || d == -rank || d < -rank || d >= rank)
        return false;
    return true;
  }
  return op == OpId::TrainMaxPool2d || op == OpId::TrainAvgPool2d ||
         op == OpId::TrainMaxPool2dGrad || op == OpId::TrainAvgPool2dGrad ||
         op == OpId::TrainGlobalAvgPool2d ||
         op == OpId::TrainGlobalAvgPool2dGrad;
}

/// layer_norm: x, y, mean and inv_std split by rows; scale and offset are
/// shared by every row.
static bool layerNormRows(const KernelDesc &kernel,
                          const std::vector<TensorView> &in,
                          std::vector<bool> &splitIn) {
  if (kernel.opId() != OpId::TrainLayerNorm || in.size() != 3 ||
      in[0].shape.empty())
    return false;
  if (axisOf(kernel, static_cast<int64_t>(in[0].shape.size())) <= 0)
    return false;
  splitIn = {true, false, false};
  return true;
}

/// Rows [begin, end) of `view` (dimension 0), or the view itself.
static TensorView slice(const TensorView &view, bool split, int64_t begin,
                        int64_t end) {
  if (!split)
    return view;
  TensorView part = view;
  int64_t rowElements = view.shape[0] ? view.numElements() / view.shape[0] : 0;
  part.shape[0] = end - begin;
  part.data = static_cast<char *>(view.data) +
              begin * rowElements * static_cast<int64_t>(dtypeSize(view.dtype));
  return part;
}

Status cpu::runRowParallel(PathMode mode, Backend &reference,
                           const KernelDesc &kernel,
                           const std::vector<TensorView> &inputs,
                           const std::vector<TensorView> &outputs,
                           bool &handled) {
  handled = false;
  std::vector<bool> splitIn(inputs.size(), true);
  if (!rowIndependent(kernel, inputs) &&
      !layerNormRows(kernel, inputs, splitIn))
    return Status::ok();
  // Every split view must lead with the same row count; anything else is
  // left whole to the reference kernel, which reports what is wrong.
  int64_t rows = inputs[0].shape[0];
  for (size_t i = 0; i < inputs.size(); ++i)
    if (splitIn[i] && (inputs[i].shape.empty() || inputs[i].shape[0] != rows))
      return Status::ok();
  for (const TensorView &out : outputs)
    if (out.shape.empty() || out.shape[0] != rows)
      return Status::ok();
  int64_t rowElements = rows ? inputs[0].numElements() / rows : 0;
  if (rows < 2 || rowElements == 0)
    return Status::ok();
  if (mode == PathMode::Check) {
    handled = true;
    return Status::ok();
  }
  // A slice worth a thread: ~64 Ki elements of the first operand.
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / rowElements);
  Status first = Status::ok();
  std::mutex firstLock;
  parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<TensorView> in, out;
    for (size_t i = 0; i < inputs.size(); ++i)
      in.push_back(slice(inputs[i], splitIn[i], begin, end));
    for (const TensorView &o : outputs)
      out.push_back(slice(o, true, begin, end));
    Status status = reference.run(kernel, in, out);
    if (!status.isOk()) {
      std::lock_guard<std::mutex> hold(firstLock);
      if (first.isOk())
        first = status;
    }
  });
  handled = true;
  return first;
}
