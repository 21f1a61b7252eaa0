//===- Data.cpp - mp-run's training data: checks, order, batches ----------===//
#include "Data.h"

#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <climits>
#include <cmath>

using namespace mp;
using namespace mp::run;

rt::StatusOr<Feeds> mp::run::findFeeds(const rt::Session &session,
                                       const std::string &what) {
  Feeds feeds;
  for (const rt::TensorInfo &info : session.tensors()) {
    if (info.isOutput)
      continue;
    if (info.kind == rt::TensorKind::Input) {
      if (feeds.input)
        return rt::invalidArgument(
            what + " has more than one input tensor; mp-run feeds one");
      feeds.input = &info;
    } else if (info.kind == rt::TensorKind::Label) {
      if (feeds.label)
        return rt::invalidArgument(
            what + " has more than one label tensor; mp-run feeds one");
      feeds.label = &info;
    }
  }
  if (!feeds.input || !feeds.label)
    return rt::invalidArgument(what + " needs one input and one label tensor");
  if (feeds.input->shape.empty() || feeds.label->shape.size() != 1 ||
      feeds.label->shape[0] != feeds.input->shape[0])
    return rt::invalidArgument(
        what + ": the input must be [batch, ...] and the label [batch]");
  if (!rt::isFloat(feeds.input->dtype))
    return rt::invalidArgument(what + ": the input '" + feeds.input->name +
                               "' is not a float tensor");
  if (rt::isFloat(feeds.label->dtype))
    return rt::invalidArgument(what + ": the label '" + feeds.label->name +
                               "' is not an integer tensor");
  feeds.batch = feeds.input->shape[0];
  feeds.rowSize = 1;
  for (size_t i = 1; i < feeds.input->shape.size(); ++i)
    feeds.rowSize *= feeds.input->shape[i];
  // The class range: the logits of the loss that reads the label.
  const rt::Plan &plan = session.plan();
  for (const rt::KernelDesc &kernel : plan.kernels)
    if (kernel.opId() == rt::OpId::TrainSparseCrossEntropy && kernel.inputs.size() == 2 &&
        kernel.inputs[1] == feeds.label->tensor) {
      const std::vector<int64_t> &logits = plan.tensors[kernel.inputs[0]].shape;
      if (logits.size() == 2)
        feeds.classes = logits[1];
    }
  return feeds;
}

rt::Status mp::run::checkData(const Array &x, const Array &y,
                              const Feeds &feeds, const std::string &xPath,
                              const std::string &yPath, bool allowNonFinite) {
  if (!x.isFloat)
    return rt::invalidArgument(xPath + ": inputs must be floating point");
  if (y.isFloat)
    return rt::invalidArgument(yPath + ": labels must be integers");
  if (x.rowSize() != feeds.rowSize)
    return rt::invalidArgument(
        xPath + ": each sample has " + std::to_string(x.rowSize()) +
        " values but the plan's input '" + feeds.input->name + "' takes " +
        std::to_string(feeds.rowSize) + " per sample");
  if (y.shape.size() != 1 || y.rows() != x.rows())
    return rt::invalidArgument(yPath + ": expected one label per sample of " +
                               xPath + " (" + std::to_string(x.rows()) + ")");
  if (x.rows() < feeds.batch)
    return rt::invalidArgument(
        xPath + ": " + std::to_string(x.rows()) +
        " samples are fewer than one batch of " + std::to_string(feeds.batch));
  // Labels must be class indices of the plan's loss and fit its dtype.
  int64_t hi = feeds.label->dtype == rt::DType::I32 ? INT32_MAX : INT64_MAX;
  if (feeds.classes > 0)
    hi = std::min(hi, feeds.classes - 1);
  for (int64_t row = 0; row < y.rows(); ++row)
    if (y.ints[row] < 0 || y.ints[row] > hi)
      return rt::invalidArgument(
          yPath + ": label " + std::to_string(y.ints[row]) + " in row " +
          std::to_string(row) + " is outside the plan's classes [0, " +
          std::to_string(hi + 1) + ")");
  if (allowNonFinite)
    return rt::Status::ok();
  // One NaN pixel trains a model into NaN: found here, not after training.
  int64_t bad = 0, firstAt = -1;
  for (size_t i = 0; i < x.floats.size(); ++i)
    if (!std::isfinite(x.floats[i]) && bad++ == 0)
      firstAt = static_cast<int64_t>(i);
  if (bad == 0)
    return rt::Status::ok();
  int64_t row = firstAt / feeds.rowSize, position = firstAt % feeds.rowSize;
  return rt::invalidArgument(
      xPath + ": sample " + std::to_string(row) + " has " +
      std::to_string(x.floats[firstAt]) + " at position " +
      std::to_string(position) + " (" + std::to_string(bad) +
      " non-finite value" + (bad == 1 ? "" : "s") +
      " in the file); remove or repair them, or pass --allow-non-finite to "
      "train on them anyway (a step whose gradients are not finite then "
      "stops the run)");
}

namespace {
/// A small, portable PRNG (splitmix64): the same permutation on every
/// machine and standard library.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};
} // namespace

std::vector<int64_t> mp::run::epochOrder(int64_t n, uint64_t seed,
                                         int64_t epoch, bool shuffle) {
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i)
    order[i] = i;
  if (!shuffle)
    return order;
  SplitMix rng{seed * 0x100000001B3ull + static_cast<uint64_t>(epoch)};
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.next() % static_cast<uint64_t>(i + 1)]);
  return order;
}

rt::Status mp::run::feedBatch(rt::Session &session, const Feeds &feeds,
                              const Array &x, const Array &y,
                              const std::vector<int64_t> &order, int64_t b) {
  std::vector<uint8_t> input(feeds.input->byteSize);
  rt::TensorView inView{feeds.input->dtype, feeds.input->shape, input.data()};
  std::vector<uint8_t> label(feeds.label->byteSize);
  rt::TensorView labelView{feeds.label->dtype, feeds.label->shape,
                           label.data()};
  for (int64_t i = 0; i < feeds.batch; ++i) {
    int64_t row = order[b * feeds.batch + i];
    const float *sample = x.floats.data() + row * feeds.rowSize;
    for (int64_t j = 0; j < feeds.rowSize; ++j)
      rt::storeFloat(inView, i * feeds.rowSize + j, sample[j]);
    rt::storeInt(labelView, i, y.ints[row]);
  }
  MP_RETURN_IF_ERROR(session.setTensor(feeds.input->name, feeds.input->dtype,
                                       feeds.input->shape, input.data(),
                                       input.size()));
  return session.setTensor(feeds.label->name, feeds.label->dtype,
                           feeds.label->shape, label.data(), label.size());
}

rt::Status mp::run::makeSynthetic(Array &x, Array &y, const Feeds &feeds,
                                  int64_t samples, int64_t classes,
                                  uint64_t seed) {
  // At most 2^31 floats (8 GiB): beyond that it is a typo, not a data set.
  constexpr int64_t kMaxFloats = int64_t(1) << 31;
  if (feeds.rowSize > 0 && samples > kMaxFloats / feeds.rowSize)
    return rt::invalidArgument(
        "--synthetic-samples " + std::to_string(samples) + " of " +
        std::to_string(feeds.rowSize) +
        " values each is more than mp-run makes (2^31 values)");
  if (classes == 0)
    classes = feeds.classes > 0 ? std::min<int64_t>(10, feeds.classes) : 10;
  if (feeds.classes > 0 && classes > feeds.classes)
    return rt::invalidArgument("--classes " + std::to_string(classes) +
                               " is more than the plan's " +
                               std::to_string(feeds.classes) + " classes");
  SplitMix rng{seed ^ 0x5EED5EEDull};
  x = Array{};
  y = Array{};
  x.isFloat = true;
  x.shape = {samples, feeds.rowSize};
  x.floats.resize(samples * feeds.rowSize);
  for (float &v : x.floats) {
    double u1 = std::max(rng.uniform(), 1e-300), u2 = rng.uniform();
    v = static_cast<float>(std::sqrt(-2 * std::log(u1)) *
                           std::cos(6.283185307179586 * u2));
  }
  y.shape = {samples};
  y.ints.resize(samples);
  for (int64_t &v : y.ints)
    v = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(classes));
  return rt::Status::ok();
}
