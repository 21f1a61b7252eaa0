//===- Train.cpp - mp-run's training loop ---------------------------------===//
#include "Train.h"

#include "Evaluate.h"
#include "Fail.h"
#include "Report.h"

#include "mp/runtime/Checkpoint.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace mp;
using namespace mp::run;

namespace {

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

} // namespace

double mp::run::lossScaleFloor(const rt::Plan &plan) {
  bool scaled = false;
  for (const rt::KernelDesc &kernel : plan.kernels) {
    if (kernel.opId() == rt::OpId::MpUpdateScale)
      return kernel.getFloat(rt::AttrName::min_scale, 0.0);
    scaled |= kernel.opId() == rt::OpId::MpUnscaleAndCheck;
  }
  return scaled ? -1 : 0;
}

void mp::run::installStopSignals() {
  struct sigaction action {};
  action.sa_handler = askToStop;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);
}

Training::Training(const Options &opt, std::unique_ptr<rt::Session> session,
                   Feeds feeds, RunData data, AutoFix autoFix,
                   int64_t totalSteps)
    : opt(opt), session(std::move(session)), feeds(std::move(feeds)),
      data(std::move(data)), autoFix(std::move(autoFix)),
      start(this->session->scalerStats().stepsRun), totalSteps(totalSteps),
      batchesPerEpoch(this->data.samples /
                      (this->feeds.batch * this->data.ranks)),
      scalars(*this->session), metrics(opt.metrics, scalars.all()),
      // Examples per step: the global batch's when several ranks train.
      progress(isatty(STDERR_FILENO) && !opt.plainProgress, start, totalSteps,
               this->feeds.batch * this->data.ranks, opt.logEvery),
      floor(lossScaleFloor(this->session->plan())),
      lastSkipped(this->session->scalerStats().stepsSkipped),
      skippedAtStart(lastSkipped),
      scaleBefore(this->session->scalerStats().scale) {
  this->session->setProfiling(opt.profile);
  if (opt.quiet)
    progress.silence();
  if (opt.rangesEvery > 0)
    ranges = std::make_unique<RangeRecorder>(
        take(RangeRecorder::open(opt.rangesOut)));
}

void Training::saveBeforeExit(const char *why) {
  if (opt.checkpoint.empty())
    return;
  if (session->shardedOver() > 1) {
    // The ranks stop at different steps (or one alone, on an error): a
    // save that gathers every rank's shards would wait for ones that
    // never come.
    if (!opt.checkpointGatherOnly)
      std::fprintf(stderr,
                   "mp-run: %s; under data-parallel=zero1 a checkpoint needs "
                   "every rank at the same step, so none is written now: the "
                   "last one written stays\n",
                   why);
    return;
  }
  rt::Status saved =
      rt::saveCheckpoint(*session, opt.checkpoint, !opt.checkpointGatherOnly);
  if (saved.isOk())
    std::fprintf(stderr, "mp-run: %s; the state after step %lld is in %s\n",
                 why, static_cast<long long>(session->scalerStats().stepsRun),
                 opt.checkpoint.c_str());
  else
    std::fprintf(stderr, "mp-run: %s, and the checkpoint failed too: %s\n", why,
                 saved.message().c_str());
}

void Training::stopWith(const std::string &message) {
  if (progress.terminal())
    std::fprintf(stderr, "\n");
  saveBeforeExit("stopped");
  die(message);
}

void Training::recordOrStop(const rt::Status &written) {
  if (!written.isOk())
    stopWith(written.message());
}

void Training::evaluateAt(int64_t step) {
  auto [evalLoss, accuracy] = evaluate(*session, *data.eval, data.evalFeeds,
                                       data.test, data.testSamples);
  char shown[32] = "n/a (no class labels)";
  if (!std::isnan(accuracy))
    std::snprintf(shown, sizeof(shown), "%.2f%%", 100 * accuracy);
  std::fprintf(stderr,
               "%seval step %lld: loss %.4f accuracy %s (%lld samples)\n",
               progress.terminal() ? "\n" : "", static_cast<long long>(step),
               evalLoss, shown,
               static_cast<long long>(data.testSamples / data.evalFeeds.batch *
                                      data.evalFeeds.batch));
  recordOrStop(metrics.record("eval", step, evalLoss, accuracy,
                              session->scalerStats().scale,
                              session->scalerStats().stepsSkipped, 0, {}));
}

bool Training::stopNonFinite(const std::string &message, int64_t step) {
  if (progress.terminal())
    std::fprintf(stderr, "\n");
  rt::Diagnosis diagnosis;
  // A plan with neither loss scaling nor a gradient check (compiled with
  // check-finite=false) applied the failing step: the replay starts from
  // the state after it.
  if (opt.replay != "off" && !session->lastStepFailedCheck() &&
      !session->scalerStats().enabled)
    std::fprintf(stderr,
                 "mp-run: note: the plan neither scales the loss nor checks "
                 "its gradients, so the failing step was applied; the "
                 "replay runs from the state after it\n");
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
    if (!diagnosis.isOptionFix())
      std::fprintf(stderr, "mp-run: --auto-fix: %s\n",
                   diagnosis.fix == rt::Diagnosis::Fix::None
                       ? "no proposal to apply"
                       : "the proposal edits the step; not applied");
    else if (applyAutoFix(diagnosis, step))
      return true;
  }
  stopWith(message);
}

bool Training::applyAutoFix(const rt::Diagnosis &diagnosis, int64_t step) {
  rt::StatusOr<std::unique_ptr<rt::Session>> fixed =
      applyFix(*session, autoFix, diagnosis, opt.backend);
  if (!fixed.isOk()) {
    std::fprintf(stderr, "mp-run: %s\n", fixed.status().message().c_str());
    return false;
  }
  Feeds fixedFeeds = take(findFeeds(**fixed, autoFix.fixedPlan));
  if (fixedFeeds.batch != feeds.batch || fixedFeeds.list() != feeds.list())
    stopWith("--auto-fix: the fixed plan takes " + fixedFeeds.list() +
             " where the running one takes " + feeds.list());
  session = std::move(*fixed);
  feeds = std::move(fixedFeeds); // its tensor infos are the new session's
  scalars = ScalarOutputs(*session);
  floor = lossScaleFloor(session->plan());
  skippedAtFloor = skippedInARow = 0;
  // The failing step is not averaged into the next line.
  progress.restart();
  lastSkipped = session->scalerStats().stepsSkipped;
  scaleBefore = session->scalerStats().scale;
  fixApplied = true;
  recordOrStop(
      metrics.recordChange(step + 1, diagnosis.proposal, autoFix.fixedPlan));
  std::fprintf(stderr,
               "mp-run: --auto-fix: training goes on with %s from the state "
               "before step %lld\n",
               autoFix.fixedPlan.c_str(), static_cast<long long>(step + 1));
  return true;
}

std::string Training::countSkipped(const rt::ScalerStats &stats, int64_t done) {
  // A run of skipped steps with the scale at its floor (or static): the
  // gradients are not finite even unscaled; more steps cannot help.
  bool skipped = stats.stepsSkipped > lastSkipped;
  if (skipped && (floor < 0 || (floor > 0 && stats.scale <= floor)))
    ++skippedAtFloor;
  else
    skippedAtFloor = 0;
  skippedInARow = skipped ? skippedInARow + 1 : 0;
  lastSkipped = stats.stepsSkipped;
  if (skippedAtFloor >= opt.maxSkippedAtFloor)
    return std::to_string(skippedAtFloor) + " consecutive steps (to step " +
           std::to_string(done) + ") were skipped with the loss scale at " +
           (floor < 0 ? "its static value " : "its floor ") +
           std::to_string(stats.scale) +
           ": the gradients are not finite even at that scale (a NaN or inf "
           "in the data or the model, not an fp16 range problem); skipped "
           "steps change no state (--max-skipped-at-floor sets how many)";
  if (skippedInARow >= opt.maxSkipped)
    return std::to_string(skippedInARow) + " consecutive steps (to step " +
           std::to_string(done) + ") were skipped, the loss scale falling to " +
           shortNumber(stats.scale) +
           "; skipped steps change no state (--max-skipped sets how many)";
  return "";
}

void Training::periodicCheckpoint(int64_t done) {
  if (opt.checkpoint.empty() || opt.checkpointEvery <= 0 ||
      done % opt.checkpointEvery != 0 || done == totalSteps)
    return;
  const char *newline = progress.terminal() ? "\n" : "";
  rt::Status saved =
      rt::saveCheckpoint(*session, opt.checkpoint, !opt.checkpointGatherOnly);
  if (!saved.isOk())
    std::fprintf(stderr,
                 "%smp-run: warning: the checkpoint at step %lld failed "
                 "(%s); the previous one stays, the next try is at step "
                 "%lld\n",
                 newline, static_cast<long long>(done), saved.message().c_str(),
                 static_cast<long long>(done + opt.checkpointEvery));
  else if (checkpointFailing)
    std::fprintf(stderr, "%smp-run: the checkpoint at step %lld worked\n",
                 newline, static_cast<long long>(done));
  checkpointFailing = !saved.isOk();
}

bool Training::step(int64_t step) {
  int64_t epoch = step / batchesPerEpoch;
  if (epoch != orderEpoch) {
    order = epochOrder(data.samples, opt.seed, epoch, opt.shuffle);
    orderEpoch = epoch;
    if (data.ranks > 1) {
      // Every rank has the same order (the same seed); global batch g is
      // its rows [g N B, (g + 1) N B), of which rank r reads the r-th B:
      // the batches feedBatch takes as this rank's b-th.
      std::vector<int64_t> mine;
      int64_t b = feeds.batch, n = data.ranks;
      for (int64_t g = 0; (g + 1) * n * b <= data.samples; ++g)
        mine.insert(mine.end(), order.begin() + (g * n + data.rank) * b,
                    order.begin() + (g * n + data.rank + 1) * b);
      order = std::move(mine);
    }
  }
  check(feedBatch(*session, feeds, data.train, order, step % batchesPerEpoch));
  if (ranges && (step + 1) % opt.rangesEvery == 0)
    recordOrStop(ranges->record(*session, step + 1));
  rt::Status ran = session->runStep(&loss);
  if (!ran.isOk()) {
    if (session->lastStepFailedCheck() && stopNonFinite(ran.message(), step))
      return false;
    stopWith(ran.message());
  }
  if (opt.verbose && step == start)
    printImplementations(*session);
  if (!std::isfinite(loss) && !session->scalerStats().enabled &&
      opt.stopOnNan &&
      stopNonFinite("the loss is " + std::to_string(loss) + " at step " +
                        std::to_string(step + 1) +
                        " and the plan has no loss scaling (stop with "
                        "--no-stop-on-nan to go on)",
                    step))
    return false;
  progress.add(loss);
  int64_t done = step + 1;
  rt::ScalerStats stats = session->scalerStats();
  std::string stop = countSkipped(stats, done);
  if (!stop.empty() && stopNonFinite(stop, step))
    return false;
  scaleBefore = stats.scale;
  recordOrStop(
      progress.stepDone(done, loss, stats, *session, scalars, metrics));
  periodicCheckpoint(done);
  if (data.eval && opt.evalEvery > 0 && done % opt.evalEvery == 0 &&
      done != totalSteps)
    evaluateAt(done);
  return true;
}

int Training::run() {
  for (int64_t s = start; s < totalSteps; ++s) {
    if (!step(s))
      continue;
    if (stopSignal) {
      int signal = stopSignal;
      if (progress.terminal())
        std::fprintf(stderr, "\n");
      std::string why = std::string("interrupted by ") + signalName(signal) +
                        " after step " + std::to_string(s + 1);
      saveBeforeExit(why.c_str());
      if (opt.checkpoint.empty())
        std::fprintf(stderr,
                     "mp-run: %s (no --checkpoint: its state is not saved)\n",
                     why.c_str());
      return 128 + signal;
    }
  }
  if (progress.terminal())
    std::fprintf(stderr, "\n");
  return finish();
}

int Training::finish() {
  if (!opt.checkpoint.empty())
    check(rt::saveCheckpoint(*session, opt.checkpoint,
                             !opt.checkpointGatherOnly));
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
  if (data.eval)
    evaluateAt(totalSteps);
  if (opt.profile)
    printProfile(*session, std::max<int64_t>(totalSteps - start, 1));
  printSummary(*session, start, totalSteps, feeds.batch * data.ranks,
               progress.seconds(), loss, scalars);
  if (opt.verbose)
    std::fprintf(stderr, "mp-run: peak resident memory %.1f MiB\n",
                 static_cast<double>(peakResidentBytes()) / (1 << 20));
  return 0;
}
