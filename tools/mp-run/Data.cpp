//===- Data.cpp - mp-run's training data: checks, order, batches ----------===//
#include "Data.h"

#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

using namespace mp;
using namespace mp::run;

const Feed *Feeds::find(const std::string &name) const {
  for (const Feed &feed : feeds)
    if (feed.info->name == name)
      return &feed;
  return nullptr;
}

static const char *roleOf(const Feed &feed) {
  return feed.info->kind == rt::TensorKind::Label ? "label" : "input";
}

std::string Feeds::list() const {
  std::string text;
  for (const Feed &feed : feeds)
    text += (text.empty() ? "'" : ", '") + feed.info->name + "' (" +
            roleOf(feed) + ")";
  return text;
}

/// "the plan's input 'x' (f32[32, 784])".
static std::string describe(const Feed &feed) {
  return std::string("the plan's ") + roleOf(feed) + " '" + feed.info->name +
         "' (" + rt::dtypeName(feed.info->dtype) +
         rt::formatShape(feed.info->shape) + ")";
}

rt::StatusOr<Feeds> mp::run::findFeeds(const rt::Session &session,
                                       const std::string &what) {
  Feeds result;
  for (rt::TensorKind kind : {rt::TensorKind::Input, rt::TensorKind::Label})
    for (const rt::TensorInfo &info : session.tensors())
      if (!info.isOutput && info.kind == kind) {
        Feed feed;
        feed.info = &info;
        result.feeds.push_back(feed);
      }
  if (result.feeds.empty())
    return rt::invalidArgument(what + " has no input or label tensor: "
                               "nothing to feed");
  for (Feed &feed : result.feeds) {
    const std::vector<int64_t> &shape = feed.info->shape;
    if (shape.empty())
      return rt::invalidArgument(
          what + ": " + describe(feed) +
          " has no batch dimension; mp-run feeds tensors whose first "
          "dimension is the batch");
    if (result.batch == 0)
      result.batch = shape[0];
    if (shape[0] != result.batch)
      return rt::invalidArgument(
          what + ": " + describe(feed) + " has a batch of " +
          std::to_string(shape[0]) + ", " + describe(result.feeds[0]) +
          " of " + std::to_string(result.batch) +
          "; mp-run feeds one batch size");
    feed.sampleShape.assign(shape.begin() + 1, shape.end());
    for (int64_t d : feed.sampleShape)
      feed.sampleSize *= d;
  }

  // The ranges the plan indexes with, through reshapes of a feed (a
  // [batch, T] label flattened for the loss).
  const rt::Plan &plan = session.plan();
  std::vector<int> fedBy(plan.tensors.size(), -1);
  for (size_t f = 0; f < result.feeds.size(); ++f)
    fedBy[result.feeds[f].info->tensor] = static_cast<int>(f);
  auto limit = [&](uint32_t tensor, int64_t value, std::string what) {
    int f = fedBy[tensor];
    if (f < 0 || value <= 0)
      return;
    Feed &feed = result.feeds[f];
    if (feed.limit == 0 || value < feed.limit) {
      feed.limit = value;
      feed.limitWhat = std::move(what);
    }
  };
  for (const rt::KernelDesc &kernel : plan.kernels) {
    switch (kernel.opId()) {
    case rt::OpId::TrainReshape:
      if (fedBy[kernel.inputs[0]] >= 0)
        fedBy[kernel.outputs[0]] = fedBy[kernel.inputs[0]];
      break;
    case rt::OpId::TrainSparseCrossEntropy:
    case rt::OpId::TrainSparseCrossEntropyGrad: {
      const std::vector<int64_t> &logits = plan.tensors[kernel.inputs[0]].shape;
      if (logits.empty())
        break;
      limit(kernel.inputs[1], logits.back(), "the plan's classes");
      int f = fedBy[kernel.inputs[1]];
      if (f >= 0 && kernel.has(rt::AttrName::ignore_index)) {
        result.feeds[f].hasIgnore = true;
        result.feeds[f].ignore = kernel.getInt(rt::AttrName::ignore_index, 0);
      }
      if (f >= 0 && result.label < 0) {
        result.label = f;
        result.classes = logits.back();
      }
      break;
    }
    case rt::OpId::TrainEmbedding: {
      const rt::TensorDesc &table = plan.tensors[kernel.inputs[0]];
      if (!table.shape.empty())
        limit(kernel.inputs[1], table.shape[0],
              "the rows of the embedding table" +
                  (table.name.empty() ? std::string()
                                      : " '" + table.name + "'"));
      break;
    }
    default:
      break;
    }
  }
  return result;
}

/// Whether `array` holds samples of `feed`: its shape after the first
/// dimension is the feed's sample shape, or it is [n, sampleSize] (flat
/// samples), or [n] for scalar samples.
static bool samplesFit(const Array &array, const Feed &feed) {
  if (array.shape.empty())
    return false;
  std::vector<int64_t> sample(array.shape.begin() + 1, array.shape.end());
  return sample == feed.sampleShape ||
         (array.shape.size() == 2 && array.shape[1] == feed.sampleSize);
}

rt::StatusOr<int64_t> mp::run::checkData(const Dataset &data,
                                         const Feeds &feeds,
                                         bool allowNonFinite) {
  for (const auto &[name, entry] : data.entries)
    if (entry.named && !feeds.find(name))
      return rt::invalidArgument(entry.origin + ": the plan has no input or "
                                 "label named '" + name + "' (it has " +
                                 feeds.list() + ")");
  int64_t rows = -1;
  const Dataset::Entry *first = nullptr;
  for (const Feed &feed : feeds.feeds) {
    auto it = data.entries.find(feed.info->name);
    if (it == data.entries.end())
      return rt::invalidArgument(
          describe(feed) + " has no data: give --data " + feed.info->name +
          "=FILE.npy, or an .npz / .safetensors file with an entry of that "
          "name");
    const Dataset::Entry &entry = it->second;
    const Array &a = entry.array;
    bool wantFloat = rt::isFloat(feed.info->dtype);
    // Integers for a float input (pixels 0..255, Keras' integer labels of a
    // binary cross-entropy, which Keras casts to the prediction's type) are
    // converted, when float32 holds them exactly: |v| <= 2^24.
    if (!a.isFloat && wantFloat) {
      constexpr int64_t kExact = int64_t(1) << 24;
      for (size_t i = 0; i < a.ints.size(); ++i)
        if (a.ints[i] > kExact || a.ints[i] < -kExact)
          return rt::invalidArgument(
              entry.origin + ": integer " + std::to_string(a.ints[i]) +
              " at position " + std::to_string(i) + " for " + describe(feed) +
              ", which takes floating-point values: beyond 2^24 float32 "
              "cannot hold it exactly; convert the data yourself");
    } else if (a.isFloat != wantFloat)
      return rt::invalidArgument(
          entry.origin + ": " + (a.isFloat ? "floating-point" : "integer") +
          " data, but " + describe(feed) + " takes " +
          (wantFloat ? "floating-point values" : "integers"));
    if (!samplesFit(a, feed))
      return rt::invalidArgument(
          entry.origin + ": samples of shape " +
          rt::formatShape(std::vector<int64_t>(
              a.shape.empty() ? a.shape.begin() : a.shape.begin() + 1,
              a.shape.end())) +
          " (" + std::to_string(a.rowSize()) + " values), but " +
          describe(feed) + " takes " + rt::formatShape(feed.sampleShape) +
          " (" + std::to_string(feed.sampleSize) + " values) per sample");
    if (rows < 0) {
      rows = a.rows();
      first = &entry;
    } else if (a.rows() != rows) {
      return rt::invalidArgument(
          entry.origin + ": " + std::to_string(a.rows()) + " samples, but " +
          first->origin + " has " + std::to_string(rows) +
          "; every input and label needs one row per sample");
    }
    if (!a.isFloat && wantFloat) {
      // Checked above; shapes and row counts as for any other data.
    } else if (!wantFloat) {
      int64_t lo = 0, hi = INT64_MAX;
      std::string range = "the range of " +
                          std::string(rt::dtypeName(feed.info->dtype));
      if (feed.info->dtype == rt::DType::I32) {
        lo = INT32_MIN;
        hi = INT32_MAX;
      } else if (feed.info->dtype == rt::DType::I1) {
        hi = 1;
      } else {
        lo = INT64_MIN;
      }
      if (feed.limit > 0) {
        lo = 0;
        hi = std::min(hi, feed.limit - 1);
        range = feed.limitWhat;
      }
      for (size_t i = 0; i < a.ints.size(); ++i)
        if ((a.ints[i] < lo || a.ints[i] > hi) &&
            !(feed.hasIgnore && a.ints[i] == feed.ignore)) {
          int64_t row = static_cast<int64_t>(i) / std::max<int64_t>(1, a.rowSize());
          std::string where =
              a.rowSize() == 1
                  ? " in row " + std::to_string(row)
                  : " in sample " + std::to_string(row) + " at position " +
                        std::to_string(static_cast<int64_t>(i) % a.rowSize());
          return rt::invalidArgument(
              entry.origin + ": " + (feed.info->kind == rt::TensorKind::Label
                                         ? "label "
                                         : "value ") +
              std::to_string(a.ints[i]) + where + " is outside " + range +
              " [" + std::to_string(lo) + ", " +
              (hi == INT64_MAX ? std::to_string(hi) + "]"
                               : std::to_string(hi + 1) + ")"));
        }
      continue;
    }
    if (allowNonFinite)
      continue;
    // One NaN pixel trains a model into NaN: found here, not after training.
    int64_t bad = 0, firstAt = -1;
    for (size_t i = 0; i < a.floats.size(); ++i)
      if (!std::isfinite(a.floats[i]) && bad++ == 0)
        firstAt = static_cast<int64_t>(i);
    if (bad == 0)
      continue;
    int64_t size = std::max<int64_t>(1, a.rowSize());
    return rt::invalidArgument(
        entry.origin + ": sample " + std::to_string(firstAt / size) +
        " has " + std::to_string(a.floats[firstAt]) + " at position " +
        std::to_string(firstAt % size) + " (" + std::to_string(bad) +
        " non-finite value" + (bad == 1 ? "" : "s") +
        " in the file); remove or repair them, or pass --allow-non-finite "
        "to train on them anyway (a step whose gradients are not finite "
        "then stops the run)");
  }
  if (rows < feeds.batch)
    return rt::invalidArgument(first->origin + ": " + std::to_string(rows) +
                               " samples are fewer than one batch of " +
                               std::to_string(feeds.batch));
  return rows;
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
                              const Dataset &data,
                              const std::vector<int64_t> &order, int64_t b) {
  std::vector<uint8_t> buffer;
  for (const Feed &feed : feeds.feeds) {
    const Array &a = data.entries.at(feed.info->name).array;
    const rt::TensorInfo &info = *feed.info;
    buffer.resize(info.byteSize);
    rt::TensorView view{info.dtype, info.shape, buffer.data()};
    int64_t n = feed.sampleSize;
    for (int64_t i = 0; i < feeds.batch; ++i) {
      int64_t row = order[b * feeds.batch + i];
      if (a.isFloat && info.dtype == rt::DType::F32) {
        std::memcpy(buffer.data() + i * n * 4, a.floats.data() + row * n,
                    n * 4);
      } else if (!a.isFloat && info.dtype == rt::DType::I64) {
        std::memcpy(buffer.data() + i * n * 8, a.ints.data() + row * n,
                    n * 8);
      } else if (a.isFloat) {
        for (int64_t j = 0; j < n; ++j)
          rt::storeFloat(view, i * n + j, a.floats[row * n + j]);
      } else if (rt::isFloat(info.dtype)) {
        for (int64_t j = 0; j < n; ++j) // exact: |v| <= 2^24, checked
          rt::storeFloat(view, i * n + j,
                         static_cast<float>(a.ints[row * n + j]));
      } else {
        for (int64_t j = 0; j < n; ++j)
          rt::storeInt(view, i * n + j, a.ints[row * n + j]);
      }
    }
    MP_RETURN_IF_ERROR(session.setTensor(info.name, info.dtype, info.shape,
                                         buffer.data(), buffer.size()));
  }
  return rt::Status::ok();
}

rt::Status mp::run::makeSynthetic(Dataset &data, const Feeds &feeds,
                                  int64_t samples, int64_t classes,
                                  uint64_t seed) {
  // At most 2^31 values (8 GiB): beyond that it is a typo, not a data set.
  constexpr int64_t kMaxValues = int64_t(1) << 31;
  int64_t perSample = 0;
  for (const Feed &feed : feeds.feeds)
    perSample += feed.sampleSize;
  if (perSample > 0 && samples > kMaxValues / perSample)
    return rt::invalidArgument(
        "--synthetic-samples " + std::to_string(samples) + " of " +
        std::to_string(perSample) +
        " values each (every input and label) is more than mp-run makes "
        "(2^31 values)");
  if (classes > 0 && feeds.classes > 0 && classes > feeds.classes)
    return rt::invalidArgument("--classes " + std::to_string(classes) +
                               " is more than the plan's " +
                               std::to_string(feeds.classes) + " classes");
  SplitMix rng{seed ^ 0x5EED5EEDull};
  data.entries.clear();
  for (size_t f = 0; f < feeds.feeds.size(); ++f) {
    const Feed &feed = feeds.feeds[f];
    Dataset::Entry entry;
    entry.origin = "--synthetic-samples";
    Array &a = entry.array;
    a.shape = {samples};
    a.shape.insert(a.shape.end(), feed.sampleShape.begin(),
                   feed.sampleShape.end());
    int64_t count = samples * feed.sampleSize;
    a.isFloat = rt::isFloat(feed.info->dtype);
    if (a.isFloat) {
      a.floats.resize(count);
      for (float &v : a.floats) {
        double u1 = std::max(rng.uniform(), 1e-300), u2 = rng.uniform();
        v = static_cast<float>(std::sqrt(-2 * std::log(u1)) *
                               std::cos(6.283185307179586 * u2));
      }
    } else {
      int64_t range = feed.info->dtype == rt::DType::I1 ? 2
                      : feed.limit > 0 ? feed.limit
                                       : 10;
      if (static_cast<int>(f) == feeds.label)
        range = classes > 0 ? classes : std::min<int64_t>(10, range);
      a.ints.resize(count);
      for (int64_t &v : a.ints)
        v = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(range));
    }
    data.entries.emplace(feed.info->name, std::move(entry));
  }
  return rt::Status::ok();
}
