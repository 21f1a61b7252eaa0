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
#include "Evaluate.h"
#include "Fail.h"
#include "Incident.h"
#include "Options.h"
#include "Report.h"
#include "Train.h"

#include "mp/runtime/Checkpoint.h"
#include "mp/runtime/Communicator.h"
#include "mp/runtime/Session.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

using namespace mp;
using namespace mp::run;

namespace {

/// Everything about --checkpoint that can be checked before the first
/// step: its directory made, writable, stale temporaries of an
/// interrupted save removed.
void prepareCheckpoint(const Options &opt) {
  if (opt.checkpoint.empty() || opt.checkpointGatherOnly)
    return;
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

/// The state before the first step: a checkpoint resumed, or parameters
/// initialized (and the user's initial values loaded); a loss scale no
/// step can recover from is refused.
void initializeState(const Options &opt, rt::Session &session) {
  if (!opt.resume.empty()) {
    rt::CheckpointLoadOptions load;
    load.ignorePlanHash = opt.resumeOtherPlan;
    check(rt::loadCheckpoint(session, opt.resume, load));
  } else {
    check(session.initParams(opt.seed));
    if (!opt.initParams.empty())
      check(rt::loadParams(session, opt.initParams));
    const rt::Plan &plan = session.plan();
    for (uint32_t t = 0; t < plan.tensors.size() && opt.initParams.empty(); ++t)
      if (rt::isFrozenBuffer(plan, t) && !rt::isDropoutKey(plan, t))
        die(opt.plan + ": the frozen buffer '" + plan.tensors[t].name +
            "' (the step only reads it) needs its value: give it with "
            "--init-params FILE.safetensors (or --resume)");
  }
  double floor = lossScaleFloor(session.plan());
  if (session.scalerStats().dynamicScale) {
    double scale = session.scalerStats().scale;
    if (!std::isfinite(scale) || !(scale > 0) || scale < floor)
      die((opt.resume.empty() ? std::string("the plan's")
                              : "'" + opt.resume + "': its") +
          " loss scale is " + std::to_string(scale) +
          ", which no step can recover from (it must be finite and at "
          "least the floor " +
          std::to_string(floor) + ")");
  }
}

/// --auto-fix: everything checked before the first step (the source, the
/// compiler, the options the fix recompiles with); an empty AutoFix
/// without it.
AutoFix setUpAutoFix(const Options &opt, const rt::Session &session) {
  AutoFix autoFix;
  if (!opt.autoFix)
    return autoFix;
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
                           : !session.plan().compileOptions.empty()
                               ? session.plan().compileOptions
                               : "policy=" + session.plan().policy;
  std::string stem = opt.plan;
  if (stem.size() > 7 && stem.compare(stem.size() - 7, 7, ".mpplan") == 0)
    stem.resize(stem.size() - 7);
  autoFix.fixedPlan = stem + ".fixed.mpplan";
  check(checkAutoFix(autoFix));
  return autoFix;
}

} // namespace

/// Started as one of several ranks (mpirun -np N): the session joins the
/// launcher's ranks (Session::joinLauncher: a plan without reductions is
/// refused), and only rank 0 prints and writes files. Returns the number
/// of ranks; `rank` this process's.
static int joinRanks(Options &opt, rt::Session &session, int &rank) {
  check(session.joinLauncher(
      "mp-run", " (each with its own --checkpoint and --metrics)"));
  rank = session.communicator().rank();
  int ranks = session.communicator().size();
  if (ranks > 1) {
    // An error on any rank ends the job on all of them at once.
    onDie = [](int code) { rt::abortRanks(code); };
  }
  if (rank != 0) {
    // Rank 0 speaks and writes for the job; the others only train (their
    // errors still reach stderr). Under ZeRO-1 they hold shards of the
    // state: every checkpoint gathers them, so they take part in each.
    if (session.shardedOver() > 1 && !opt.checkpoint.empty())
      opt.checkpointGatherOnly = true;
    else
      opt.checkpoint.clear();
    opt.metrics.clear();
    opt.quiet = true;
    if (!std::freopen("/dev/null", "w", stdout))
      die("rank " + std::to_string(rank) + ": cannot silence stdout");
  }
  return ranks;
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
  int rank = 0, ranks = joinRanks(opt, *session, rank);
  Feeds feeds = take(findFeeds(*session, opt.plan));
  reportSession(opt, *session, feeds);

  // Everything that can be checked before the first step is. The outputs:
  // where the checkpoint goes (made, writable, stale temporaries of an
  // interrupted save removed) and the metrics file (opened below).
  prepareCheckpoint(opt);

  // The data: every file read and checked (entries matched to the plan's
  // inputs and labels, sample shapes, one sample count, integers in the
  // plan's ranges, no NaN or inf unless allowed).
  RunData data;
  if (opt.synthetic) {
    check(makeSynthetic(data.train, feeds, opt.syntheticSamples, opt.classes,
                        opt.seed));
    data.samples = take(checkData(data.train, feeds, true));
  } else {
    readData(data.train, feeds, opt.data, opt.trainX, opt.trainY, "--train");
    data.samples = take(checkData(data.train, feeds, opt.allowNonFinite));
  }
  if (!opt.evalPlan.empty()) {
    data.eval = take(
        rt::Session::create(take(rt::readPlanFile(opt.evalPlan)), opt.backend));
    checkEvalPlan(*session, *data.eval, opt.evalPlan);
    data.evalFeeds = take(findFeeds(*data.eval, opt.evalPlan));
    readData(data.test, data.evalFeeds, opt.evalData, opt.testX, opt.testY,
             "--test");
    data.testSamples =
        take(checkData(data.test, data.evalFeeds, opt.allowNonFinite));
  }

  initializeState(opt, *session);
  data.rank = rank;
  data.ranks = ranks;
  // N ranks read one global batch of N x the plan's batch per step, each
  // its own part of it (docs/distributed.md).
  int64_t batchesPerEpoch = data.samples / (feeds.batch * ranks);
  if (batchesPerEpoch == 0)
    die("the data has " + std::to_string(data.samples) +
        " samples, fewer than one global batch of " + std::to_string(ranks) +
        " ranks x " + std::to_string(feeds.batch));
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

  AutoFix autoFix = setUpAutoFix(opt, *session);
  Training training(opt, std::move(session), std::move(feeds), std::move(data),
                    std::move(autoFix), totalSteps);
  installStopSignals();
  return training.run();
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
