//===- Options.cpp - mp-run's command line --------------------------------===//
#include "Options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <cstring>
#include <functional>
#include <map>

using namespace mp::run;

static const char *kUsage = R"(usage: mp-run PLAN [options]

Trains the compiled step PLAN (from mp-compile) on data.

data (every input and label of the plan, matched by name; or --synthetic):
  --data NAME=FILE.npy     the array for the plan's input or label NAME,
                           [samples, ...] (repeat for each)
  --data FILE.npz          every entry of an np.savez archive, by name
  --data FILE.safetensors  every tensor of the file, by name
  --train-x / --train-y FILE.npy
                           the plan's one input / one label
  --synthetic              random inputs and labels instead
  --synthetic-samples N    how many (default 1024)
  --classes N              label range of --synthetic (default 10, or the
                           plan's classes where it has fewer)
length (one of):
  --steps N                training steps
  --epochs N               passes over the training data
order:
  --seed N                 seed of shuffling, init and --synthetic (default 0)
  --no-shuffle             keep the data order
evaluation:
  --eval-plan FILE         forward-only plan (mp-compile --eval)
  --eval-data SPEC         the held-out split, as --data (or --test-x /
                           --test-y FILE), evaluated at the end
  --eval-every N           also every N steps
state:
  --init-params FILE       initial params from a safetensors file
  --checkpoint FILE        write a checkpoint here at the end
  --checkpoint-every N     and every N steps
  --resume FILE            continue from this checkpoint
  --resume-other-plan      let --resume take a checkpoint of the same model
                           under another plan (another policy, a recompiled
                           step); its loss-scaler state is dropped
output:
  --metrics FILE           JSON lines, or CSV if FILE ends in .csv
  --log-every N            progress lines / metrics every N steps (default 50)
  --plain                  periodic lines even on a terminal
  --no-stop-on-nan         go on when the loss is not finite
  --allow-non-finite       train on inputs with NaN or inf (refused by
                           default, naming the file, sample and position)
  --max-skipped-at-floor N stop after N consecutive steps skipped with the
                           loss scale at its floor (default 10)
  --max-skipped N          stop after N consecutive skipped steps anywhere
                           (default 50)
  --replay same|reference|off
                           on such a stop, or a non-finite loss or gradient,
                           replay the failing step with a check after every
                           kernel on this backend (default same: the one
                           training), name the first non-finite op and
                           propose the fix (docs/mp-run.md)
  --backend NAME           cpu (oneDNN), cuda (falls back to the CPU where
                           no GPU can run it) or reference (default: cpu
                           where oneDNN loads, else reference)
  --threads N              cpu backend threads (default: MP_NUM_THREADS,
                           else every hardware thread)
  --auto-fix               apply the replay's proposal when it is a pipeline
                           option (deny-add=, init-scale=): recompile
                           --source with it through mp-compile into
                           PLAN.fixed.mpplan and go on with the same state
                           (once per run; recorded in --metrics)
  --source STEP.mlir       the step the plan was compiled from
  --compile-options "..."  the --mixed-precision options it was compiled
                           with (default: policy=<the plan's policy>)
  --ranges N               every N steps, record per tensor of the plan the
                           largest |x| and the fractions that would overflow
                           or flush to 0 in f16 / bf16 (that step runs twice)
  --ranges-out FILE        where, as JSON lines (default ranges.jsonl;
                           python/tools/plot_ranges.py draws it)
  --verbose                describe the plan and backend
  --profile                time spent per op kind, printed at the end
)";

[[noreturn]] static void usageError(const std::string &message) {
  std::fprintf(stderr, "mp-run: error: %s\n(mp-run --help lists the options)\n",
               message.c_str());
  std::exit(1);
}

/// An integer in [min, max]: anything else (not a number, out of range,
/// too large for int64) names the option.
static int64_t parseInt(const std::string &option, const std::string &value,
                        int64_t min, int64_t max = INT64_MAX) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    usageError(option + " takes an integer >= " + std::to_string(min) +
               (max == INT64_MAX ? "" : " and <= " + std::to_string(max)) +
               ", got '" + value + "'");
  return v;
}

Options mp::run::parseOptions(int argc, char **argv) {
  Options o;
  bool rangesOutGiven = false;
  using Setter = std::function<void(const std::string &)>;
  std::map<std::string, Setter> withValue = {
      {"--data", [&](auto &v) { o.data.push_back(v); }},
      {"--eval-data", [&](auto &v) { o.evalData.push_back(v); }},
      {"--train-x", [&](auto &v) { o.trainX = v; }},
      {"--train-y", [&](auto &v) { o.trainY = v; }},
      {"--classes", [&](auto &v) { o.classes = parseInt("--classes", v, 1); }},
      {"--steps", [&](auto &v) { o.steps = parseInt("--steps", v, 1); }},
      {"--epochs", [&](auto &v) { o.epochs = parseInt("--epochs", v, 1); }},
      {"--seed", [&](auto &v) { o.seed = parseInt("--seed", v, 0); }},
      {"--synthetic-samples",
       [&](auto &v) {
         o.syntheticSamples =
             parseInt("--synthetic-samples", v, 1, int64_t(1) << 31);
       }},
      {"--eval-plan", [&](auto &v) { o.evalPlan = v; }},
      {"--test-x", [&](auto &v) { o.testX = v; }},
      {"--test-y", [&](auto &v) { o.testY = v; }},
      {"--eval-every",
       [&](auto &v) { o.evalEvery = parseInt("--eval-every", v, 1); }},
      {"--init-params", [&](auto &v) { o.initParams = v; }},
      {"--checkpoint", [&](auto &v) { o.checkpoint = v; }},
      {"--checkpoint-every",
       [&](auto &v) {
         o.checkpointEvery = parseInt("--checkpoint-every", v, 1);
       }},
      {"--resume", [&](auto &v) { o.resume = v; }},
      {"--metrics", [&](auto &v) { o.metrics = v; }},
      {"--log-every",
       [&](auto &v) { o.logEvery = parseInt("--log-every", v, 1); }},
      {"--backend", [&](auto &v) { o.backend = v; }},
      {"--threads",
       [&](auto &v) { o.threads = parseInt("--threads", v, 1, 4096); }},
      {"--source", [&](auto &v) { o.source = v; }},
      {"--compile-options", [&](auto &v) { o.compileOptions = v; }},
      {"--ranges",
       [&](auto &v) { o.rangesEvery = parseInt("--ranges", v, 1); }},
      {"--ranges-out",
       [&](auto &v) {
         o.rangesOut = v;
         rangesOutGiven = true;
       }},
      {"--max-skipped",
       [&](auto &v) { o.maxSkipped = parseInt("--max-skipped", v, 1); }},
      {"--replay",
       [&](auto &v) {
         if (v != "same" && v != "reference" && v != "off")
           usageError("--replay takes same, reference or off, not '" + v +
                      "'");
         o.replay = v;
       }},
      {"--max-skipped-at-floor",
       [&](auto &v) {
         o.maxSkippedAtFloor = parseInt("--max-skipped-at-floor", v, 1);
       }},
  };
  std::map<std::string, std::function<void()>> flags = {
      {"--synthetic", [&] { o.synthetic = true; }},
      {"--no-shuffle", [&] { o.shuffle = false; }},
      {"--verbose", [&] { o.verbose = true; }},
      {"--plain", [&] { o.plainProgress = true; }},
      {"--no-stop-on-nan", [&] { o.stopOnNan = false; }},
      {"--allow-non-finite", [&] { o.allowNonFinite = true; }},
      {"--resume-other-plan", [&] { o.resumeOtherPlan = true; }},
      {"--profile", [&] { o.profile = true; }},
      {"--auto-fix", [&] { o.autoFix = true; }},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    std::string value;
    bool hasValue = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 &&
                                   eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    if (auto it = flags.find(arg); it != flags.end()) {
      if (hasValue)
        usageError(arg + " takes no value");
      it->second();
    } else if (auto it = withValue.find(arg); it != withValue.end()) {
      if (!hasValue) {
        if (i + 1 >= argc)
          usageError(arg + " needs a value");
        value = argv[++i];
      }
      it->second(value);
    } else if (arg.rfind("-", 0) == 0) {
      usageError("unknown option '" + arg + "'");
    } else if (o.plan.empty()) {
      o.plan = arg;
    } else {
      usageError("more than one plan given ('" + o.plan + "' and '" + arg +
                 "')");
    }
  }
  if (o.plan.empty())
    usageError("no plan given");
  bool given = !o.data.empty() || !o.trainX.empty() || !o.trainY.empty();
  if (o.synthetic == given)
    usageError("give the data (--data, or --train-x and --train-y), or "
               "--synthetic");
  if ((o.steps > 0) == (o.epochs > 0))
    usageError("give exactly one of --steps and --epochs");
  bool evalGiven =
      !o.evalData.empty() || !o.testX.empty() || !o.testY.empty();
  if (!o.evalPlan.empty() && !evalGiven)
    usageError("--eval-plan needs its data: --eval-data (or --test-x and "
               "--test-y)");
  if (o.evalPlan.empty() && evalGiven)
    usageError("--eval-data/--test-x/--test-y need --eval-plan");
  if (o.evalEvery > 0 && o.evalPlan.empty())
    usageError("--eval-every needs --eval-plan");
  if (o.checkpointEvery > 0 && o.checkpoint.empty())
    usageError("--checkpoint-every needs --checkpoint");
  if (!o.initParams.empty() && !o.resume.empty())
    usageError("--init-params and --resume both set the parameters; give "
               "one (--resume continues a run, --init-params starts one)");
  if (o.resumeOtherPlan && o.resume.empty())
    usageError("--resume-other-plan needs --resume");
  // An option that would do nothing is an error, not ignored: the user
  // meant something by it.
  if (!o.autoFix && !o.source.empty())
    usageError("--source is read by --auto-fix only; add --auto-fix or drop "
               "it");
  if (!o.autoFix && !o.compileOptions.empty())
    usageError("--compile-options is read by --auto-fix only; add "
               "--auto-fix or drop it");
  if (rangesOutGiven && o.rangesEvery == 0)
    usageError("--ranges-out needs --ranges N (how often to record)");
  if (o.autoFix && o.replay == "off")
    usageError("--auto-fix applies the replay's proposal; it cannot run "
               "with --replay off");
  return o;
}
