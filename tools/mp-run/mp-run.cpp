//===- mp-run.cpp - train a compiled step on data -------------------------===//
//
//   mp-run step.mpplan --train-x X.npy --train-y Y.npy --steps 500
//          [--eval-plan eval.mpplan --test-x TX.npy --test-y TY.npy]
//          [--checkpoint ckpt.safetensors --checkpoint-every 100] [--resume]
//
// Feeds batches (shuffled per epoch with a seed) to a runtime session, shows
// progress (a bar on a terminal, periodic lines otherwise), writes metrics,
// evaluates on a held-out split and checkpoints. `mp-run --help` lists all
// options. See docs/mp-run.md; what it checks before the first step and
// how a run ends on errors and signals: docs/reliability.md.
//
//===----------------------------------------------------------------------===//
#include "Data.h"
#include "Incident.h"
#include "Ranges.h"
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
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <map>
#include <new>
#include <tuple>
#include <unistd.h>

using namespace mp;
using namespace mp::run;

namespace {

std::string shortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "mp-run: error: %s\n", message.c_str());
  std::exit(1);
}

void check(const rt::Status &status) {
  if (!status.isOk())
    die(status.message());
}

/// This process's resident-memory high-water mark in bytes (Linux's
/// VmHWM: the address space since exec, unlike getrusage's maxrss, which
/// also counts the process it was forked from), or 0 where unknown.
uint64_t peakResidentBytes() {
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof(line), status))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1)
      break;
  std::fclose(status);
  return static_cast<uint64_t>(kib) * 1024;
}

template <typename T> T take(rt::StatusOr<T> value) {
  if (!value.isOk())
    die(value.status().message());
  return std::move(*value);
}

/// Writes one record per line as JSON lines, or CSV when the file name
/// ends in .csv. A write that fails (a full disk) is an error, never
/// ignored: record() returns it.
class Metrics {
public:
  /// `scalars`: the names of the step's scalar outputs (ScalarOutputs),
  /// recorded after the fixed columns.
  Metrics(const std::string &path, const std::vector<std::string> &scalars)
      : path(path), scalars(scalars) {
    if (path.empty())
      return;
    csv = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    out = std::fopen(path.c_str(), "a");
    if (!out)
      die(path + ": cannot open the metrics file: " + std::strerror(errno));
    if (csv && std::ftell(out) == 0) {
      std::string header =
          "event,step,loss,accuracy,loss_scale,skipped,examples_per_second";
      for (const std::string &name : scalars)
        header += "," + name;
      if (rt::Status s = write((header + "\n").c_str()); !s.isOk())
        die(s.message());
    }
  }
  ~Metrics() {
    if (out)
      std::fclose(out);
  }
  Metrics(const Metrics &) = delete;
  Metrics &operator=(const Metrics &) = delete;

  /// `values`: the scalar outputs' latest values, in the constructor's
  /// order.
  rt::Status record(const char *event, int64_t step, double loss,
                    double accuracy, double scale, int64_t skipped,
                    double rate, const std::vector<double> &values) {
    if (!out)
      return rt::Status::ok();
    char line[512];
    if (csv)
      std::snprintf(line, sizeof(line), "%s,%lld,%.9g,%.9g,%.9g,%lld,%.6g",
                    event, static_cast<long long>(step), loss, accuracy,
                    scale, static_cast<long long>(skipped), rate);
    else
      std::snprintf(line, sizeof(line),
                    "{\"event\": \"%s\", \"step\": %lld, \"loss\": %.9g, "
                    "\"accuracy\": %.9g, \"loss_scale\": %.9g, "
                    "\"skipped\": %lld, \"examples_per_second\": %.6g",
                    event, static_cast<long long>(step), loss,
                    std::isnan(accuracy) ? -1.0 : accuracy, scale,
                    static_cast<long long>(skipped), rate);
    std::string text = line;
    for (size_t i = 0; i < scalars.size() && i < values.size(); ++i) {
      char value[64];
      std::snprintf(value, sizeof(value), "%.9g", values[i]);
      text += csv ? std::string(",") + value
                  : ", \"" + scalars[i] + "\": " +
                        (std::isfinite(values[i]) ? value : "null");
    }
    text += csv ? "\n" : "}\n";
    return write(text.c_str());
  }

  /// An --auto-fix: the option added and the plan training goes on with.
  rt::Status recordChange(int64_t step, const std::string &change,
                          const std::string &plan) {
    if (!out)
      return rt::Status::ok();
    // The options hold no quote; a CSV row keeps the fixed columns.
    std::string text =
        csv ? "\"auto_fix " + change + " -> " + plan + "\"," +
                  std::to_string(step) + ",,,,,\n"
            : "{\"event\": \"auto_fix\", \"step\": " + std::to_string(step) +
                  ", \"change\": \"" + change + "\", \"plan\": \"" + plan +
                  "\"}\n";
    return write(text.c_str());
  }

private:
  rt::Status write(const char *text) {
    if (std::fputs(text, out) < 0 || std::fflush(out) != 0 ||
        std::ferror(out))
      return rt::internalError(path + ": cannot write the metrics file: " +
                               std::strerror(errno));
    return rt::Status::ok();
  }

  std::string path;
  std::vector<std::string> scalars;
  std::FILE *out = nullptr;
  bool csv = false;
};

/// The step's scalar f32 outputs other than the loss (a learning rate from
/// train.lr_schedule, a gradient norm from train.clip_grad_norm): logged
/// by name with every loss, like the loss scale.
class ScalarOutputs {
public:
  explicit ScalarOutputs(const rt::Session &session) {
    for (const rt::ResultDesc &result : session.plan().results) {
      const rt::TensorDesc &desc = session.plan().tensors[result.value];
      if (result.role == rt::ResultRole::Output && !result.name.empty() &&
          desc.dtype == rt::DType::F32 && desc.shape.empty())
        names.push_back(result.name);
    }
  }
  const std::vector<std::string> &all() const { return names; }
  std::vector<double> read(rt::Session &session) const {
    std::vector<double> values;
    for (const std::string &name : names) {
      float value = NAN;
      check(session.getTensor(name, &value, sizeof(value)));
      values.push_back(value);
    }
    return values;
  }
  /// " lr 0.001 grad_norm 0.52" (empty without scalar outputs).
  std::string text(const std::vector<double> &values,
                   const char *separator) const {
    std::string out;
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      char value[32];
      std::snprintf(value, sizeof(value), "%g", values[i]);
      out += separator + names[i] + " " + value;
    }
    return out;
  }

private:
  std::vector<std::string> names;
};

/// Runs the evaluation plan on the whole test set with the training
/// session's current state; returns {mean loss, accuracy}. Accuracy
/// compares the logits' argmax over their last dimension with the label
/// the plan's cross-entropy reads, position by position (a [batch] label
/// against [batch, classes] logits, a [batch, T] one against
/// [batch, T, classes]); NaN without such a label.
std::pair<double, double> evaluate(rt::Session &train, rt::Session &eval,
                                   const Feeds &feeds, const Dataset &data,
                                   int64_t samples) {
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
  return {lossSum / batches, compared ? static_cast<double>(correct) / compared
                                      : std::nan("")};
}

/// Reads `specs` (--data or --eval-data) into `data`, and `x` / `y`
/// (--train-x / --train-y, or --test-x / --test-y: `flag`) as the arrays of
/// the plan's one input and one label.
void readData(Dataset &data, const Feeds &feeds,
              const std::vector<std::string> &specs, const std::string &x,
              const std::string &y, const std::string &flag) {
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

/// Checks up front that `eval` is the evaluation plan of `train`'s model:
/// forward-only (it updates no state), every persistent tensor a twin of
/// one of the training plan's (name, dtype, shape), an output "logits".
void checkEvalPlan(const rt::Session &train, const rt::Session &eval,
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

/// The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), 0
/// while none did.
volatile std::sig_atomic_t stopSignal = 0;
extern "C" void askToStop(int signal) { stopSignal = signal; }

const char *signalName(int signal) {
  return signal == SIGINT    ? "SIGINT"
         : signal == SIGTERM ? "SIGTERM"
         : signal == SIGHUP  ? "SIGHUP"
                             : "a signal";
}

/// The loss scaler's floor in the plan (mp.update_scale's min_scale), or
/// -1 for a static scale (it never moves: every skipped step is "at the
/// floor"), or 0 when the plan has no loss scaler.
double lossScaleFloor(const rt::Plan &plan) {
  bool scaled = false;
  for (const rt::KernelDesc &kernel : plan.kernels) {
    if (kernel.opId() == rt::OpId::MpUpdateScale)
      return kernel.getFloat(rt::AttrName::min_scale, 0.0);
    scaled |= kernel.opId() == rt::OpId::MpUnscaleAndCheck;
  }
  return scaled ? -1 : 0;
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

/// The whole run; main() turns what escapes it into an error message.
static int runMain(int argc, char **argv) {
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
  Feeds feeds = take(findFeeds(*session, opt.plan));
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
                 "double-buffered state %llu bytes; parameters %llu bytes, "
                 "optimizer state %llu bytes, buffers %llu bytes\n",
                 static_cast<unsigned long long>(memory.arenaBytes),
                 static_cast<unsigned long long>(memory.savedActivationBytes),
                 static_cast<unsigned long long>(
                     session->doubleBufferedBytes()),
                 static_cast<unsigned long long>(memory.paramBytes),
                 static_cast<unsigned long long>(memory.optStateBytes),
                 static_cast<unsigned long long>(memory.bufferBytes));
    std::fprintf(stderr, "mp-run: backend: %s\nmp-run: CPU features: %s\n",
                 session->backendDescription().c_str(),
                 rt::cpuFeatures().c_str());
    if (!session->generatedCodeStatus().empty())
      std::fprintf(stderr, "mp-run: generated code: %s\n",
                   session->generatedCodeStatus().c_str());
  }
  // Generated code the cpu backend cannot use here (a library missing or
  // stale, a CPU without AVX2): always said, as the kernels run slower.
  const char *codeSetting = std::getenv("MP_GENERATED_CODE");
  if (!opt.verbose && !session->plan().code.empty() &&
      !session->usesGeneratedCode() &&
      std::string(session->backendName()) == "cpu" &&
      !(codeSetting && std::string(codeSetting) == "off"))
    std::fprintf(stderr, "mp-run: warning: generated code: %s\n",
                 session->generatedCodeStatus().c_str());
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

  // Everything that can be checked before the first step is. The outputs:
  // where the checkpoint goes (made, writable, stale temporaries of an
  // interrupted save removed) and the metrics file (opened below).
  if (!opt.checkpoint.empty()) {
    std::vector<std::string> made, removed;
    check(rt::prepareCheckpointPath(opt.checkpoint, /*makeDirectories=*/true,
                                    &made, &removed));
    for (const std::string &dir : made)
      std::fprintf(stderr, "mp-run: made the directory %s for --checkpoint\n",
                   dir.c_str());
    for (const std::string &file : removed)
      std::fprintf(stderr,
                   "mp-run: removed %s, left by an interrupted checkpoint "
                   "write\n",
                   file.c_str());
  }

  // The data: every file read and checked (entries matched to the plan's
  // inputs and labels, sample shapes, one sample count, integers in the
  // plan's ranges, no NaN or inf unless allowed).
  Dataset data, testData;
  int64_t samples = 0, testSamples = 0;
  if (opt.synthetic) {
    check(makeSynthetic(data, feeds, opt.syntheticSamples, opt.classes,
                        opt.seed));
    samples = take(checkData(data, feeds, true));
  } else {
    readData(data, feeds, opt.data, opt.trainX, opt.trainY, "--train");
    samples = take(checkData(data, feeds, opt.allowNonFinite));
  }
  std::unique_ptr<rt::Session> eval;
  Feeds evalFeeds;
  if (!opt.evalPlan.empty()) {
    eval = take(rt::Session::create(take(rt::readPlanFile(opt.evalPlan)),
                                    opt.backend));
    checkEvalPlan(*session, *eval, opt.evalPlan);
    evalFeeds = take(findFeeds(*eval, opt.evalPlan));
    readData(testData, evalFeeds, opt.evalData, opt.testX, opt.testY,
             "--test");
    testSamples = take(checkData(testData, evalFeeds, opt.allowNonFinite));
  }

  // State: resume, or initialize (and optionally load initial params).
  if (!opt.resume.empty()) {
    rt::CheckpointLoadOptions load;
    load.ignorePlanHash = opt.resumeOtherPlan;
    check(rt::loadCheckpoint(*session, opt.resume, load));
  } else {
    check(session->initParams(opt.seed));
    if (!opt.initParams.empty())
      check(rt::loadParams(*session, opt.initParams));
    const rt::Plan &plan = session->plan();
    for (uint32_t t = 0; t < plan.tensors.size() && opt.initParams.empty();
         ++t)
      if (rt::isFrozenBuffer(plan, t) && !rt::isDropoutKey(plan, t))
        die(opt.plan + ": the frozen buffer '" + plan.tensors[t].name +
            "' (the step only reads it) needs its value: give it with "
            "--init-params FILE.safetensors (or --resume)");
  }
  double floor = lossScaleFloor(session->plan());
  if (session->scalerStats().dynamicScale) {
    double scale = session->scalerStats().scale;
    if (!std::isfinite(scale) || !(scale > 0) || scale < floor)
      die((opt.resume.empty() ? std::string("the plan's")
                              : "'" + opt.resume + "': its") +
          " loss scale is " + std::to_string(scale) +
          ", which no step can recover from (it must be finite and at "
          "least the floor " +
          std::to_string(floor) + ")");
  }

  int64_t batchesPerEpoch = samples / feeds.batch;
  if (opt.epochs > 0 && opt.epochs > INT64_MAX / batchesPerEpoch)
    die("--epochs " + std::to_string(opt.epochs) + " of " +
        std::to_string(batchesPerEpoch) + " batches is more steps than "
        "mp-run counts");
  int64_t totalSteps =
      opt.steps > 0 ? opt.steps : opt.epochs * batchesPerEpoch;
  int64_t start = session->scalerStats().stepsRun;
  if (start > totalSteps)
    die("the checkpoint is at step " + std::to_string(start) +
        ", past the requested " + std::to_string(totalSteps));

  session->setProfiling(opt.profile);
  ScalarOutputs scalars(*session);
  Metrics metrics(opt.metrics, scalars.all());
  bool terminal = isatty(STDERR_FILENO) && !opt.plainProgress;
  auto began = std::chrono::steady_clock::now();
  auto lastPrint = began;
  int64_t intervalSteps = 0;
  auto intervalBegan = began;
  double intervalLoss = 0;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  float loss = 0;
  int64_t skippedAtFloor = 0, skippedInARow = 0,
          lastSkipped = session->scalerStats().stepsSkipped,
          skippedAtStart = lastSkipped;

  // A run that ends early (an error, a signal) saves what it has: the
  // state after the last completed step.
  auto saveBeforeExit = [&](const char *why) {
    if (opt.checkpoint.empty())
      return;
    rt::Status saved = rt::saveCheckpoint(*session, opt.checkpoint);
    if (saved.isOk())
      std::fprintf(stderr,
                   "mp-run: %s; the state after step %lld is in %s\n", why,
                   static_cast<long long>(session->scalerStats().stepsRun),
                   opt.checkpoint.c_str());
    else
      std::fprintf(stderr, "mp-run: %s, and the checkpoint failed too: %s\n",
                   why, saved.message().c_str());
  };
  auto stopWith = [&](const std::string &message) {
    if (terminal)
      std::fprintf(stderr, "\n");
    saveBeforeExit("stopped");
    die(message);
  };
  auto recordOrStop = [&](const rt::Status &written) {
    if (!written.isOk())
      stopWith(written.message());
  };

  auto runEval = [&](int64_t step) {
    auto [evalLoss, accuracy] =
        evaluate(*session, *eval, evalFeeds, testData, testSamples);
    char shown[32] = "n/a (no class labels)";
    if (!std::isnan(accuracy))
      std::snprintf(shown, sizeof(shown), "%.2f%%", 100 * accuracy);
    std::fprintf(stderr, "%seval step %lld: loss %.4f accuracy %s (%lld "
                         "samples)\n",
                 terminal ? "\n" : "", static_cast<long long>(step), evalLoss,
                 shown,
                 static_cast<long long>(testSamples / evalFeeds.batch *
                                        evalFeeds.batch));
    recordOrStop(metrics.record("eval", step, evalLoss, accuracy,
                                session->scalerStats().scale,
                                session->scalerStats().stepsSkipped, 0, {}));
  };

  // SIGINT / SIGTERM / SIGHUP finish the current step, save, and exit.
  struct sigaction action {};
  action.sa_handler = askToStop;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);

  // --auto-fix: everything checked before the first step.
  AutoFix autoFix;
  bool fixApplied = false;
  if (opt.autoFix) {
    if (opt.source.empty())
      die("--auto-fix needs --source STEP.mlir, the step the plan was "
          "compiled from");
    if (std::FILE *f = std::fopen(opt.source.c_str(), "r"))
      std::fclose(f);
    else
      die("--source " + opt.source + ": " + std::strerror(errno));
    autoFix.source = opt.source;
    autoFix.compiler = findCompiler();
    if (autoFix.compiler.empty())
      die("--auto-fix needs mp-compile: not next to mp-run and MP_COMPILE "
          "is not set to it");
    // The options the plan records it was compiled with (format 8; an
    // older plan: its policy alone), unless the user gives them.
    autoFix.compileOptions = !opt.compileOptions.empty() ? opt.compileOptions
                             : !session->plan().compileOptions.empty()
                                 ? session->plan().compileOptions
                                 : "policy=" + session->plan().policy;
    std::string stem = opt.plan;
    if (stem.size() > 7 && stem.compare(stem.size() - 7, 7, ".mpplan") == 0)
      stem.resize(stem.size() - 7);
    autoFix.fixedPlan = stem + ".fixed.mpplan";
    check(checkAutoFix(autoFix));
  }
  std::unique_ptr<RangeRecorder> ranges;
  if (opt.rangesEvery > 0)
    ranges = std::make_unique<RangeRecorder>(
        take(RangeRecorder::open(opt.rangesOut)));

  bool checkpointFailing = false;
  // The loss scale the next step runs with (what a replay sets back): the
  // previous step's statistics, so that no step reads it again.
  double scaleBefore = session->scalerStats().scale;
  for (int64_t step = start; step < totalSteps; ++step) {
    int64_t epoch = step / batchesPerEpoch;
    if (epoch != orderEpoch) {
      order = epochOrder(samples, opt.seed, epoch, opt.shuffle);
      orderEpoch = epoch;
    }
    check(feedBatch(*session, feeds, data, order, step % batchesPerEpoch));
    // A stop on a non-finite value says first where it comes from: the
    // failing step replayed with a check after every kernel (nothing of it
    // runs while training is healthy).
    // With --auto-fix, a proposal that is a pipeline option is applied
    // once: the step recompiled with it, the state moved over, training
    // goes on (true); anything else stops the run.
    auto stopNonFinite = [&](const std::string &message) -> bool {
      if (terminal)
        std::fprintf(stderr, "\n");
      rt::Diagnosis diagnosis;
      // A plan with neither loss scaling nor a gradient check (compiled
      // with check-finite=false) applied the failing step: the replay
      // starts from the state after it.
      if (opt.replay != "off" && !session->lastStepFailedCheck() &&
          !session->scalerStats().enabled)
        std::fprintf(stderr,
                     "mp-run: note: the plan neither scales the loss nor "
                     "checks its gradients, so the failing step was applied; "
                     "the replay runs from the state after it\n");
      if (opt.replay != "off") {
        rt::StatusOr<rt::Diagnosis> diagnosed =
            diagnoseIncident(*session, opt.replay, scaleBefore, opt.plan);
        if (!diagnosed.isOk())
          std::fprintf(stderr, "mp-run: the replay failed: %s\n",
                       diagnosed.status().message().c_str());
        else
          diagnosis = std::move(*diagnosed);
      }
      if (opt.autoFix && !fixApplied) {
        if (!diagnosis.isOptionFix()) {
          std::fprintf(stderr, "mp-run: --auto-fix: %s\n",
                       diagnosis.fix == rt::Diagnosis::Fix::None
                           ? "no proposal to apply"
                           : "the proposal edits the step; not applied");
        } else {
          rt::StatusOr<std::unique_ptr<rt::Session>> fixed =
              applyFix(*session, autoFix, diagnosis, opt.backend);
          if (!fixed.isOk()) {
            std::fprintf(stderr, "mp-run: %s\n",
                         fixed.status().message().c_str());
          } else {
            Feeds fixedFeeds = take(findFeeds(**fixed, autoFix.fixedPlan));
            if (fixedFeeds.batch != feeds.batch ||
                fixedFeeds.list() != feeds.list())
              stopWith("--auto-fix: the fixed plan takes " +
                       fixedFeeds.list() + " where the running one takes " +
                       feeds.list());
            session = std::move(*fixed);
            feeds = std::move(fixedFeeds); // its tensor infos are the new session's
            scalars = ScalarOutputs(*session);
            floor = lossScaleFloor(session->plan());
            skippedAtFloor = skippedInARow = 0;
            // The failing step is not averaged into the next line.
            intervalLoss = 0;
            intervalSteps = 0;
            intervalBegan = std::chrono::steady_clock::now();
            lastSkipped = session->scalerStats().stepsSkipped;
            scaleBefore = session->scalerStats().scale;
            fixApplied = true;
            recordOrStop(metrics.recordChange(step + 1, diagnosis.proposal,
                                              autoFix.fixedPlan));
            std::fprintf(stderr,
                         "mp-run: --auto-fix: training goes on with %s from "
                         "the state before step %lld\n",
                         autoFix.fixedPlan.c_str(),
                         static_cast<long long>(step + 1));
            return true;
          }
        }
      }
      stopWith(message);
      return false;
    };
    if (ranges && (step + 1) % opt.rangesEvery == 0)
      recordOrStop(ranges->record(*session, step + 1));
    rt::Status ran = session->runStep(&loss);
    if (!ran.isOk()) {
      if (session->lastStepFailedCheck() && stopNonFinite(ran.message()))
        continue;
      stopWith(ran.message());
    }
    if (opt.verbose && step == start)
      printImplementations(*session);
    if (!std::isfinite(loss) && !session->scalerStats().enabled &&
        opt.stopOnNan &&
        stopNonFinite("the loss is " + std::to_string(loss) + " at step " +
               std::to_string(step + 1) +
               " and the plan has no loss scaling (stop with "
               "--no-stop-on-nan to go on)"))
      continue;
    intervalLoss += loss;
    ++intervalSteps;
    int64_t done = step + 1;
    rt::ScalerStats stats = session->scalerStats();
    // A run of skipped steps with the scale at its floor (or static): the
    // gradients are not finite even unscaled; more steps cannot help.
    if (stats.stepsSkipped > lastSkipped &&
        (floor < 0 || (floor > 0 && stats.scale <= floor)))
      ++skippedAtFloor;
    else
      skippedAtFloor = 0;
    if (stats.stepsSkipped > lastSkipped)
      ++skippedInARow;
    else
      skippedInARow = 0;
    lastSkipped = stats.stepsSkipped;
    if (skippedAtFloor >= opt.maxSkippedAtFloor &&
        stopNonFinite(std::to_string(skippedAtFloor) +
               " consecutive steps (to step " + std::to_string(done) +
               ") were skipped with the loss scale at " +
               (floor < 0 ? "its static value " : "its floor ") +
               std::to_string(stats.scale) +
               ": the gradients are not finite even at that scale (a NaN or "
               "inf in the data or the model, not an fp16 range problem); "
               "skipped steps change no state "
               "(--max-skipped-at-floor sets how many)"))
      continue;
    if (skippedInARow >= opt.maxSkipped &&
        stopNonFinite(std::to_string(skippedInARow) +
                    " consecutive steps (to step " + std::to_string(done) +
                    ") were skipped, the loss scale falling to " +
                    shortNumber(stats.scale) +
                    "; skipped steps change no state (--max-skipped sets how "
                    "many)"))
      continue;
    scaleBefore = stats.scale;

    auto now = std::chrono::steady_clock::now();
    double intervalSeconds =
        std::chrono::duration<double>(now - intervalBegan).count();
    bool logNow = done % opt.logEvery == 0 || done == totalSteps;
    if (logNow) {
      double rate = intervalSteps * feeds.batch / std::max(intervalSeconds, 1e-9);
      double meanLoss = intervalLoss / intervalSteps;
      std::vector<double> values = scalars.read(*session);
      recordOrStop(metrics.record("train", done, meanLoss, NAN, stats.scale,
                                  stats.stepsSkipped, rate, values));
      if (!terminal)
        std::fprintf(stderr,
                     "step %lld/%lld loss %.4f scale %g skipped %lld %.0f "
                     "examples/s%s\n",
                     static_cast<long long>(done),
                     static_cast<long long>(totalSteps), meanLoss, stats.scale,
                     static_cast<long long>(stats.stepsSkipped), rate,
                     scalars.text(values, " ").c_str());
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
    // A periodic checkpoint that fails is reported and tried again at the
    // next interval; the last good one stays (saves are atomic).
    if (!opt.checkpoint.empty() && opt.checkpointEvery > 0 &&
        done % opt.checkpointEvery == 0 && done != totalSteps) {
      rt::Status saved = rt::saveCheckpoint(*session, opt.checkpoint);
      if (!saved.isOk())
        std::fprintf(stderr,
                     "%smp-run: warning: the checkpoint at step %lld failed "
                     "(%s); the previous one stays, the next try is at step "
                     "%lld\n",
                     terminal ? "\n" : "", static_cast<long long>(done),
                     saved.message().c_str(),
                     static_cast<long long>(done + opt.checkpointEvery));
      else if (checkpointFailing)
        std::fprintf(stderr, "%smp-run: the checkpoint at step %lld worked\n",
                     terminal ? "\n" : "", static_cast<long long>(done));
      checkpointFailing = !saved.isOk();
    }
    if (eval && opt.evalEvery > 0 && done % opt.evalEvery == 0 &&
        done != totalSteps)
      runEval(done);
    if (stopSignal) {
      int signal = stopSignal;
      if (terminal)
        std::fprintf(stderr, "\n");
      std::string why = std::string("interrupted by ") + signalName(signal) +
                        " after step " + std::to_string(done);
      saveBeforeExit(why.c_str());
      if (opt.checkpoint.empty())
        std::fprintf(stderr, "mp-run: %s (no --checkpoint: its state is not "
                             "saved)\n",
                     why.c_str());
      return 128 + signal;
    }
  }
  if (terminal)
    std::fprintf(stderr, "\n");

  if (!opt.checkpoint.empty())
    check(rt::saveCheckpoint(*session, opt.checkpoint));
  // A run whose every step was skipped trained nothing: it does not end 0,
  // however few steps it had (the stops above need a run of them).
  rt::ScalerStats ended = session->scalerStats();
  if (totalSteps > start &&
      ended.stepsSkipped - skippedAtStart == totalSteps - start) {
    std::string scale =
        ended.enabled ? "; the loss scale is " + shortNumber(ended.scale) : "";
    std::fprintf(stderr,
                 "mp-run: error: all %lld steps were skipped (non-finite "
                 "gradients%s): no step changed the model\n",
                 static_cast<long long>(totalSteps - start), scale.c_str());
    return 1;
  }
  if (skippedInARow > 0)
    std::fprintf(stderr,
                 "mp-run: warning: the last %lld steps were skipped "
                 "(non-finite gradients; loss scale %s)\n",
                 static_cast<long long>(skippedInARow),
                 shortNumber(ended.scale).c_str());
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
  if (totalSteps > start)
    std::printf("%s", scalars.text(scalars.read(*session), "; ").c_str());
  // Which code ran, where the plan has generated code: its numbers differ
  // slightly from the kernels' (docs/codegen.md).
  if (!session->plan().code.empty())
    std::printf("; generated code %s",
                session->usesGeneratedCode() ? "on" : "off");
  std::printf("\n");
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    die(std::string("cannot write the summary to stdout: ") +
        std::strerror(errno));
  if (opt.verbose)
    std::fprintf(stderr, "mp-run: peak resident memory %.1f MiB\n",
                 static_cast<double>(peakResidentBytes()) / (1 << 20));
  return 0;
}

int main(int argc, char **argv) {
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc &) {
    die("out of memory (a data set, --synthetic-samples or a plan larger "
        "than this machine holds)");
  } catch (const std::exception &e) {
    die(std::string("unexpected failure: ") + e.what());
  }
}
