//===- Evaluate.cpp - mp-run's evaluation plan and its data ---------------===//
#include "Evaluate.h"

#include "Fail.h"

#include "mp/runtime/Tensor.h"

#include <cmath>
#include <tuple>

using namespace mp;
using namespace mp::run;

std::pair<double, double>
mp::run::evaluate(rt::Session &train, rt::Session &eval, const Feeds &feeds,
                  const Dataset &data, int64_t samples) {
  for (const rt::TensorInfo &info : eval.tensors()) {
    if (info.isOutput || !rt::isPersistent(info.kind))
      continue;
    std::vector<uint8_t> bytes(info.byteSize);
    check(train.getTensor(info.name, bytes.data(), bytes.size()));
    check(eval.setTensor(info.name, info.dtype, info.shape, bytes.data(),
                         bytes.size()));
  }
  const rt::TensorInfo *logits = eval.findTensor("logits");
  std::vector<int64_t> order = epochOrder(samples, 0, 0, false);
  int64_t batches = samples / feeds.batch;
  double lossSum = 0;
  int64_t correct = 0, compared = 0;
  std::vector<uint8_t> raw(logits->byteSize);
  rt::TensorView view{logits->dtype, logits->shape, raw.data()};
  int64_t classes = logits->shape.back();
  const Feed *label = feeds.label >= 0 ? &feeds.feeds[feeds.label] : nullptr;
  int64_t positions = classes > 0 ? view.numElements() / classes : 0;
  bool comparable = label && positions == feeds.batch * label->sampleSize;
  for (int64_t b = 0; b < batches; ++b) {
    check(feedBatch(eval, feeds, data, order, b));
    float loss = 0;
    check(eval.runStep(&loss));
    lossSum += loss;
    if (!comparable)
      continue;
    check(eval.getTensor("logits", raw.data(), raw.size()));
    const std::vector<int64_t> &labels =
        data.entries.at(label->info->name).array.ints;
    for (int64_t p = 0; p < positions; ++p) {
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c)
        if (rt::loadFloat(view, p * classes + c) >
            rt::loadFloat(view, p * classes + best))
          best = c;
      int64_t sample = order[b * feeds.batch + p / label->sampleSize];
      int64_t want = labels[sample * label->sampleSize + p % label->sampleSize];
      if (label->hasIgnore && want == label->ignore)
        continue; // a position the loss ignores (padding)
      correct += best == want;
      ++compared;
    }
  }
  return {lossSum / batches,
          compared ? static_cast<double>(correct) / compared : std::nan("")};
}

void mp::run::readData(Dataset &data, const Feeds &feeds,
                       const std::vector<std::string> &specs,
                       const std::string &x, const std::string &y,
                       const std::string &flag) {
  for (const std::string &spec : specs)
    check(addToDataset(data, spec));
  for (auto [path, kind, suffix] :
       {std::tuple{x, rt::TensorKind::Input, "-x"},
        std::tuple{y, rt::TensorKind::Label, "-y"}}) {
    if (path.empty())
      continue;
    std::vector<std::string> names;
    for (const Feed &feed : feeds.feeds)
      if (feed.info->kind == kind)
        names.push_back(feed.info->name);
    const char *what = kind == rt::TensorKind::Input ? "input" : "label";
    if (names.size() != 1)
      die(flag + suffix + " feeds the plan's one " + what + ", but it has " +
          std::to_string(names.size()) + " (" + feeds.list() +
          "): give each with --data NAME=FILE.npy");
    check(addToDataset(data, names[0] + "=" + path));
  }
}

void mp::run::checkEvalPlan(const rt::Session &train, const rt::Session &eval,
                            const std::string &path) {
  for (const rt::ResultDesc &result : eval.plan().results)
    if (result.role != rt::ResultRole::Loss &&
        result.role != rt::ResultRole::Output)
      die(path + ": this is a training plan (it updates '" + result.name +
          "'), not an evaluation plan; build one with mp-compile --eval");
  for (const rt::TensorInfo &info : eval.tensors()) {
    if (info.isOutput || !rt::isPersistent(info.kind))
      continue;
    const rt::TensorInfo *source = train.findTensor(info.name);
    if (!source)
      die(path + ": the evaluation plan's '" + info.name +
          "' is not in the training plan: the two plans are of different "
          "models");
    if (source->dtype != info.dtype || source->shape != info.shape)
      die(path + ": the evaluation plan's '" + info.name + "' is " +
          rt::dtypeName(info.dtype) + rt::formatShape(info.shape) +
          " but the training plan's is " + rt::dtypeName(source->dtype) +
          rt::formatShape(source->shape) +
          ": the two plans are of different models");
  }
  const rt::TensorInfo *logits = eval.findTensor("logits");
  if (!logits || !logits->isOutput || logits->shape.size() < 2)
    die(path + ": the evaluation plan has no [batch, ..., classes] output "
               "'logits' (build it with mp-compile --eval)");
}
