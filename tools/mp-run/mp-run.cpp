//===- mp-run.cpp - train a compiled step on data -------------------------===//
//
//   mp-run step.mpplan --train-x X.npy --train-y Y.npy --steps 500
//          [--eval-plan eval.mpplan --test-x TX.npy --test-y TY.npy]
//          [--checkpoint ckpt.safetensors --checkpoint-every 100] [--resume]
//
// Feeds batches (shuffled per epoch with a seed) to a runtime session, shows
// progress (a bar on a terminal, periodic lines otherwise), writes metrics,
// evaluates on a held-out split and checkpoints. `mp-run --help` lists all
// options. See docs/mp-run.md.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"
#include "Options.h"

#include "mp/runtime/Checkpoint.h"
#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace mp;
using namespace mp::run;

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "mp-run: error: %s\n", message.c_str());
  std::exit(1);
}

void check(const rt::Status &status) {
  if (!status.isOk())
    die(status.message());
}

template <typename T> T take(rt::StatusOr<T> value) {
  if (!value.isOk())
    die(value.status().message());
  return std::move(*value);
}

/// The one input and the one label tensor of a plan.
struct Feeds {
  const rt::TensorInfo *input = nullptr, *label = nullptr;
  int64_t batch = 0, rowSize = 0;
};

Feeds findFeeds(const rt::Session &session, const std::string &what) {
  Feeds feeds;
  for (const rt::TensorInfo &info : session.tensors()) {
    if (info.isOutput)
      continue;
    if (info.kind == rt::TensorKind::Input) {
      if (feeds.input)
        die(what + " has more than one input tensor; mp-run feeds one");
      feeds.input = &info;
    } else if (info.kind == rt::TensorKind::Label) {
      if (feeds.label)
        die(what + " has more than one label tensor; mp-run feeds one");
      feeds.label = &info;
    }
  }
  if (!feeds.input || !feeds.label)
    die(what + " needs one input and one label tensor");
  if (feeds.input->shape.empty() || feeds.label->shape.size() != 1 ||
      feeds.label->shape[0] != feeds.input->shape[0])
    die(what + ": the input must be [batch, ...] and the label [batch]");
  feeds.batch = feeds.input->shape[0];
  feeds.rowSize = 1;
  for (size_t i = 1; i < feeds.input->shape.size(); ++i)
    feeds.rowSize *= feeds.input->shape[i];
  return feeds;
}

/// Checks that a data set fits the plan's input and label tensors.
void checkData(const Array &x, const Array &y, const Feeds &feeds,
               const std::string &xPath, const std::string &yPath) {
  if (!x.isFloat)
    die(xPath + ": inputs must be floating point");
  if (y.isFloat)
    die(yPath + ": labels must be integers");
  if (x.rowSize() != feeds.rowSize)
    die(xPath + ": each sample has " + std::to_string(x.rowSize()) +
        " values but the plan's input '" + feeds.input->name + "' takes " +
        std::to_string(feeds.rowSize) + " per sample");
  if (y.shape.size() != 1 || y.rows() != x.rows())
    die(yPath + ": expected one label per sample of " + xPath + " (" +
        std::to_string(x.rows()) + ")");
  if (x.rows() < feeds.batch)
    die(xPath + ": " + std::to_string(x.rows()) +
        " samples are fewer than one batch of " +
        std::to_string(feeds.batch));
  // Labels must fit the plan's label dtype; say which row does not (the
  // loss kernel also checks the class range when the batch runs).
  int64_t hi = feeds.label->dtype == rt::DType::I32 ? INT32_MAX : INT64_MAX;
  for (int64_t row = 0; row < y.rows(); ++row)
    if (y.ints[row] < 0 || y.ints[row] > hi)
      die(yPath + ": label " + std::to_string(y.ints[row]) + " in row " +
          std::to_string(row) + " is not a class index of the plan's " +
          rt::dtypeName(feeds.label->dtype) + " label");
}

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

/// The order of samples in `epoch`: a seeded shuffle, so a resumed run sees
/// the same batches as an uninterrupted one.
std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, int64_t epoch,
                                bool shuffle) {
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

/// Copies batch `b` of `order` into the session's input and label.
void feedBatch(rt::Session &session, const Feeds &feeds, const Array &x,
               const Array &y, const std::vector<int64_t> &order, int64_t b) {
  std::vector<float> xs(feeds.batch * feeds.rowSize);
  std::vector<int64_t> ys(feeds.batch);
  for (int64_t i = 0; i < feeds.batch; ++i) {
    int64_t row = order[b * feeds.batch + i];
    std::copy_n(x.floats.begin() + row * feeds.rowSize, feeds.rowSize,
                xs.begin() + i * feeds.rowSize);
    ys[i] = y.ints[row];
  }
  // Convert to the plan's dtypes.
  std::vector<uint8_t> input(feeds.input->byteSize);
  rt::TensorView inView{feeds.input->dtype, feeds.input->shape, input.data()};
  if (!rt::isFloat(feeds.input->dtype))
    die("the plan's input '" + feeds.input->name + "' is not a float tensor");
  for (size_t i = 0; i < xs.size(); ++i)
    rt::storeFloat(inView, i, xs[i]);
  std::vector<uint8_t> label(feeds.label->byteSize);
  rt::TensorView labelView{feeds.label->dtype, feeds.label->shape,
                           label.data()};
  if (rt::isFloat(feeds.label->dtype))
    die("the plan's label '" + feeds.label->name + "' is not an integer tensor");
  for (size_t i = 0; i < ys.size(); ++i)
    rt::storeInt(labelView, i, ys[i]);
  check(session.setTensor(feeds.input->name, feeds.input->dtype,
                          feeds.input->shape, input.data(), input.size()));
  check(session.setTensor(feeds.label->name, feeds.label->dtype,
                          feeds.label->shape, label.data(), label.size()));
}

/// Random inputs (standard normal) and labels in [0, classes).
void makeSynthetic(Array &x, Array &y, const Feeds &feeds, int64_t samples,
                   int64_t classes, uint64_t seed) {
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
}

/// Writes one record per line as JSON lines, or CSV when the file name
/// ends in .csv.
class Metrics {
public:
  explicit Metrics(const std::string &path) {
    if (path.empty())
      return;
    csv = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    out.open(path, std::ios::app);
    if (!out)
      die(path + ": cannot open the metrics file");
    if (csv && out.tellp() == 0)
      out << "event,step,loss,accuracy,loss_scale,skipped,examples_per_second\n";
  }
  void record(const char *event, int64_t step, double loss, double accuracy,
              double scale, int64_t skipped, double rate) {
    if (!out.is_open())
      return;
    char line[512];
    if (csv)
      std::snprintf(line, sizeof(line), "%s,%lld,%.9g,%.9g,%.9g,%lld,%.6g\n",
                    event, static_cast<long long>(step), loss, accuracy,
                    scale, static_cast<long long>(skipped), rate);
    else
      std::snprintf(line, sizeof(line),
                    "{\"event\": \"%s\", \"step\": %lld, \"loss\": %.9g, "
                    "\"accuracy\": %.9g, \"loss_scale\": %.9g, "
                    "\"skipped\": %lld, \"examples_per_second\": %.6g}\n",
                    event, static_cast<long long>(step), loss,
                    std::isnan(accuracy) ? -1.0 : accuracy, scale,
                    static_cast<long long>(skipped), rate);
    out << line;
    out.flush();
  }

private:
  std::ofstream out;
  bool csv = false;
};

/// Runs the evaluation plan on the whole test set with the training
/// session's current state; returns {mean loss, accuracy}.
std::pair<double, double> evaluate(rt::Session &train, rt::Session &eval,
                                   const Feeds &feeds, const Array &x,
                                   const Array &y) {
  for (const rt::TensorInfo &info : eval.tensors()) {
    if (info.isOutput || !rt::isPersistent(info.kind))
      continue;
    const rt::TensorInfo *source = train.findTensor(info.name);
    if (!source || source->dtype != info.dtype || source->shape != info.shape)
      die("the evaluation plan's '" + info.name +
          "' has no twin of the same type in the training plan");
    std::vector<uint8_t> data(info.byteSize);
    check(train.getTensor(info.name, data.data(), data.size()));
    check(eval.setTensor(info.name, info.dtype, info.shape, data.data(),
                         data.size()));
  }
  const rt::TensorInfo *logits = eval.findTensor("logits");
  if (!logits || logits->shape.size() != 2)
    die("the evaluation plan has no [batch, classes] output 'logits' (build "
        "it with mp-compile --eval)");
  std::vector<int64_t> order = epochOrder(x.rows(), 0, 0, false);
  int64_t batches = x.rows() / feeds.batch;
  double lossSum = 0;
  int64_t correct = 0;
  std::vector<uint8_t> raw(logits->byteSize);
  rt::TensorView view{logits->dtype, logits->shape, raw.data()};
  int64_t classes = logits->shape[1];
  for (int64_t b = 0; b < batches; ++b) {
    feedBatch(eval, feeds, x, y, order, b);
    float loss = 0;
    check(eval.runStep(&loss));
    lossSum += loss;
    check(eval.getTensor("logits", raw.data(), raw.size()));
    for (int64_t i = 0; i < feeds.batch; ++i) {
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c)
        if (rt::loadFloat(view, i * classes + c) >
            rt::loadFloat(view, i * classes + best))
          best = c;
      correct += best == y.ints[order[b * feeds.batch + i]];
    }
  }
  return {lossSum / batches,
          static_cast<double>(correct) / (batches * feeds.batch)};
}

} // namespace

/// mp-run --verbose after the first step: per op kind of the plan (in plan
/// order), what the backend ran it with, and on how many of its kernels.
static void printImplementations(const rt::Session &session) {
  const rt::Plan &plan = session.plan();
  std::vector<std::string> chosen = session.kernelImplementations();
  std::vector<std::string> ops;
  std::map<std::string, std::vector<std::pair<std::string, int>>> byOp;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const std::string &op = plan.kernels[k].op;
    auto &list = byOp[op];
    if (list.empty())
      ops.push_back(op);
    auto it = std::find_if(list.begin(), list.end(), [&](const auto &entry) {
      return entry.first == chosen[k];
    });
    if (it == list.end())
      list.push_back({chosen[k], 1});
    else
      ++it->second;
  }
  std::fprintf(stderr, "mp-run: what ran each op in the first step (%s "
                       "backend):\n",
               session.backendName());
  for (const std::string &op : ops)
    for (const auto &[implementation, count] : byOp[op])
      std::fprintf(stderr, "mp-run:   %-32s %s (%d kernel%s)\n", op.c_str(),
                   implementation.empty() ? "(not run)"
                                          : implementation.c_str(),
                   count, count == 1 ? "" : "s");
}

int main(int argc, char **argv) {
  Options opt = parseOptions(argc, argv);
  // --backend cuda where no GPU can run it: train on the CPU, and say why.
  if (opt.backend == "cuda") {
    rt::Status gpu = rt::cudaBackendStatus();
    if (!gpu.isOk()) {
      std::fprintf(stderr,
                   "mp-run: the cuda backend is unavailable (%s); falling "
                   "back to the CPU\n",
                   gpu.message().c_str());
      opt.backend = "default";
    }
  }
  // Before the backend exists: oneDNN takes its thread count when its
  // engine is created.
  if (opt.threads > 0)
    rt::setCpuThreads(static_cast<int>(opt.threads));

  std::unique_ptr<rt::Session> session = take(
      rt::Session::create(take(rt::readPlanFile(opt.plan)), opt.backend));
  Feeds feeds = findFeeds(*session, opt.plan);
  if (opt.verbose) {
    const rt::Plan &plan = session->plan();
    std::fprintf(stderr,
                 "mp-run: %s: policy %s, %zu kernels, %zu tensors, arena %llu "
                 "bytes, backend %s, batch %lld\n",
                 opt.plan.c_str(), plan.policy.c_str(), plan.kernels.size(),
                 plan.tensors.size(),
                 static_cast<unsigned long long>(plan.arenaSize),
                 session->backendName(), static_cast<long long>(feeds.batch));
    rt::PlanMemoryStats memory = rt::planMemoryStats(plan);
    std::fprintf(stderr,
                 "mp-run: memory: arena %llu bytes, activations saved for "
                 "the backward pass %llu bytes, second slots of "
                 "double-buffered state %llu bytes\n",
                 static_cast<unsigned long long>(memory.arenaBytes),
                 static_cast<unsigned long long>(memory.savedActivationBytes),
                 static_cast<unsigned long long>(
                     session->doubleBufferedBytes()));
    std::fprintf(stderr, "mp-run: backend: %s\nmp-run: CPU features: %s\n",
                 session->backendDescription().c_str(),
                 rt::cpuFeatures().c_str());
  }
  // A 16-bit policy on a CPU without the instructions that make it pay:
  // one warning, naming the missing feature and the faster policy.
  if (std::string(session->backendName()) == "cpu") {
    std::string warning = rt::policySpeedWarning(session->plan().policy);
    if (!warning.empty())
      std::fprintf(stderr, "mp-run: warning: %s\n", warning.c_str());
  }
  // The default falls back to the reference backend where oneDNN does not
  // load: say so (always, not only with --verbose), with the reason.
  if ((opt.backend.empty() || opt.backend == "default") &&
      std::string(session->backendName()) != "cpu")
    std::fprintf(stderr,
                 "mp-run: using the reference backend: the cpu backend is "
                 "unavailable: %s\n",
                 rt::cpuBackendStatus().message().c_str());

  // Data.
  Array x, y, testX, testY;
  if (opt.synthetic) {
    makeSynthetic(x, y, feeds, opt.syntheticSamples, opt.classes, opt.seed);
    checkData(x, y, feeds, "--synthetic-samples", "--classes");
  } else {
    x = take(readNpy(opt.trainX));
    y = take(readNpy(opt.trainY));
    checkData(x, y, feeds, opt.trainX, opt.trainY);
  }

  // State: resume, or initialize (and optionally load initial params).
  if (!opt.resume.empty()) {
    check(rt::loadCheckpoint(*session, opt.resume));
  } else {
    check(session->initParams(opt.seed));
    if (!opt.initParams.empty())
      check(rt::loadParams(*session, opt.initParams));
  }

  std::unique_ptr<rt::Session> eval;
  Feeds evalFeeds;
  if (!opt.evalPlan.empty()) {
    eval = take(rt::Session::create(take(rt::readPlanFile(opt.evalPlan)),
                                    opt.backend));
    evalFeeds = findFeeds(*eval, opt.evalPlan);
    testX = take(readNpy(opt.testX));
    testY = take(readNpy(opt.testY));
    checkData(testX, testY, evalFeeds, opt.testX, opt.testY);
  }

  int64_t batchesPerEpoch = x.rows() / feeds.batch;
  int64_t totalSteps =
      opt.steps > 0 ? opt.steps : opt.epochs * batchesPerEpoch;
  int64_t start = session->scalerStats().stepsRun;
  if (start > totalSteps)
    die("the checkpoint is at step " + std::to_string(start) +
        ", past the requested " + std::to_string(totalSteps));

  session->setProfiling(opt.profile);
  Metrics metrics(opt.metrics);
  bool terminal = isatty(STDERR_FILENO) && !opt.plainProgress;
  auto began = std::chrono::steady_clock::now();
  auto lastPrint = began;
  int64_t intervalSteps = 0;
  auto intervalBegan = began;
  double intervalLoss = 0;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  float loss = 0;

  auto runEval = [&](int64_t step) {
    auto [evalLoss, accuracy] = evaluate(*session, *eval, evalFeeds, testX,
                                         testY);
    std::fprintf(stderr, "%seval step %lld: loss %.4f accuracy %.2f%% (%lld "
                         "samples)\n",
                 terminal ? "\n" : "", static_cast<long long>(step), evalLoss,
                 100 * accuracy,
                 static_cast<long long>(testX.rows() / evalFeeds.batch *
                                        evalFeeds.batch));
    metrics.record("eval", step, evalLoss, accuracy,
                   session->scalerStats().scale,
                   session->scalerStats().stepsSkipped, 0);
  };

  for (int64_t step = start; step < totalSteps; ++step) {
    int64_t epoch = step / batchesPerEpoch;
    if (epoch != orderEpoch) {
      order = epochOrder(x.rows(), opt.seed, epoch, opt.shuffle);
      orderEpoch = epoch;
    }
    feedBatch(*session, feeds, x, y, order, step % batchesPerEpoch);
    check(session->runStep(&loss));
    if (opt.verbose && step == start)
      printImplementations(*session);
    if (!std::isfinite(loss) && !session->scalerStats().enabled && opt.stopOnNan)
      die("the loss is " + std::to_string(loss) + " at step " +
          std::to_string(step + 1) +
          " and the plan has no loss scaling (stop with --no-stop-on-nan "
          "to go on)");
    intervalLoss += loss;
    ++intervalSteps;
    int64_t done = step + 1;

    auto now = std::chrono::steady_clock::now();
    double intervalSeconds =
        std::chrono::duration<double>(now - intervalBegan).count();
    bool logNow = done % opt.logEvery == 0 || done == totalSteps;
    rt::ScalerStats stats = session->scalerStats();
    if (logNow) {
      double rate = intervalSteps * feeds.batch / std::max(intervalSeconds, 1e-9);
      double meanLoss = intervalLoss / intervalSteps;
      metrics.record("train", done, meanLoss, NAN, stats.scale,
                     stats.stepsSkipped, rate);
      if (!terminal)
        std::fprintf(stderr,
                     "step %lld/%lld loss %.4f scale %g skipped %lld %.0f "
                     "examples/s\n",
                     static_cast<long long>(done),
                     static_cast<long long>(totalSteps), meanLoss, stats.scale,
                     static_cast<long long>(stats.stepsSkipped), rate);
      intervalSteps = 0;
      intervalLoss = 0;
      intervalBegan = now;
    }
    if (terminal &&
        (std::chrono::duration<double>(now - lastPrint).count() > 0.1 ||
         done == totalSteps)) {
      lastPrint = now;
      int width = 30;
      int filled = static_cast<int>(width * done / totalSteps);
      double total = std::chrono::duration<double>(now - began).count();
      std::fprintf(stderr,
                   "\r[%.*s%*s] step %lld/%lld loss %.4f scale %g skipped "
                   "%lld %.0f ex/s ",
                   filled, "##############################", width - filled, "",
                   static_cast<long long>(done),
                   static_cast<long long>(totalSteps), loss, stats.scale,
                   static_cast<long long>(stats.stepsSkipped),
                   (done - start) * feeds.batch / std::max(total, 1e-9));
    }
    if (!opt.checkpoint.empty() && opt.checkpointEvery > 0 &&
        done % opt.checkpointEvery == 0)
      check(rt::saveCheckpoint(*session, opt.checkpoint));
    if (eval && opt.evalEvery > 0 && done % opt.evalEvery == 0 &&
        done != totalSteps)
      runEval(done);
  }
  if (terminal)
    std::fprintf(stderr, "\n");

  if (!opt.checkpoint.empty())
    check(rt::saveCheckpoint(*session, opt.checkpoint));
  if (eval)
    runEval(totalSteps);

  if (opt.profile) {
    std::vector<rt::Session::ProfileEntry> entries = session->profile();
    std::sort(entries.begin(), entries.end(),
              [](const auto &a, const auto &b) { return a.seconds > b.seconds; });
    double total = 0;
    for (const auto &entry : entries)
      total += entry.seconds;
    int64_t steps = std::max<int64_t>(totalSteps - start, 1);
    std::fprintf(stderr, "profile (%lld steps, backend %s):\n%-32s %10s %10s %6s\n",
                 static_cast<long long>(steps), session->backendName(), "op",
                 "ms/step", "calls", "%");
    for (const auto &entry : entries)
      std::fprintf(stderr, "%-32s %10.3f %10lld %6.1f\n", entry.name.c_str(),
                   1e3 * entry.seconds / steps,
                   static_cast<long long>(entry.calls),
                   total > 0 ? 100 * entry.seconds / total : 0.0);
  }

  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - began)
                       .count();
  rt::ScalerStats stats = session->scalerStats();
  std::printf("trained %lld steps (%lld to %lld) in %.2f s, %.0f examples/s; "
              "last loss %.6f; loss scale %g; skipped %lld",
              static_cast<long long>(totalSteps - start),
              static_cast<long long>(start), static_cast<long long>(totalSteps),
              seconds,
              (totalSteps - start) * feeds.batch / std::max(seconds, 1e-9),
              loss, stats.scale, static_cast<long long>(stats.stepsSkipped));
  if (stats.lastOverflowStep >= 0)
    std::printf(" (last at step %lld)",
                static_cast<long long>(stats.lastOverflowStep + 1));
  std::printf("\n");
  return 0;
}
