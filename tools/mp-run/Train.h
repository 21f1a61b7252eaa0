//===- Train.h - mp-run's training loop --------------------------*- C++
//-*-===//
//
// The steps of a run once everything was checked: a batch fed, the step
// run, its loss and skipped steps counted, progress, periodic checkpoints
// and evaluations; a stop on a non-finite value with its diagnosis (and an
// --auto-fix applied once); a signal finishing the step and saving; the
// end of the run (the last checkpoint, the final evaluation, the profile,
// the summary). docs/mp-run.md, docs/reliability.md.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_TRAIN_H
#define MP_TOOLS_MPRUN_TRAIN_H

#include "Data.h"
#include "Incident.h"
#include "Metrics.h"
#include "Options.h"
#include "Progress.h"
#include "Ranges.h"

#include "mp/runtime/Session.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mp::run {

/// The loss scaler's floor in the plan (mp.update_scale's min_scale), or
/// -1 for a static scale (it never moves: every skipped step is "at the
/// floor"), or 0 when the plan has no loss scaler.
double lossScaleFloor(const rt::Plan &plan);

/// SIGINT / SIGTERM / SIGHUP from now on finish the current step, save
/// and exit (Training::run).
void installStopSignals();

/// What a run trains on and evaluates with, read and checked.
struct RunData {
  Dataset train;
  int64_t samples = 0;
  /// A data-parallel run: this process's rank of `ranks`; each step, every
  /// rank reads its part of one global batch of ranks x the plan's batch.
  int rank = 0, ranks = 1;
  /// --eval-plan: its session, feeds and test split (null: none).
  std::unique_ptr<rt::Session> eval;
  Feeds evalFeeds;
  Dataset test;
  int64_t testSamples = 0;
};

class Training {
public:
  /// `session` initialized (or resumed) and `data` checked; `autoFix`
  /// set up (setUpAutoFix). Runs to step `totalSteps`.
  Training(const Options &opt, std::unique_ptr<rt::Session> session,
           Feeds feeds, RunData data, AutoFix autoFix, int64_t totalSteps);

  /// The steps and the end of the run; mp-run's exit code.
  int run();

private:
  /// One step; false where it was stopped and replaced by the fixed plan
  /// (the step is not counted).
  bool step(int64_t step);
  /// A run that ends early (an error, a signal) saves what it has: the
  /// state after the last completed step.
  void saveBeforeExit(const char *why);
  [[noreturn]] void stopWith(const std::string &message);
  void recordOrStop(const rt::Status &written);
  void evaluateAt(int64_t step);
  /// A stop on a non-finite value says first where it comes from: the
  /// failing step replayed with a check after every kernel (nothing of it
  /// runs while training is healthy). With --auto-fix, a proposal that is
  /// a pipeline option is applied once: the step recompiled with it, the
  /// state moved over, training goes on (true); anything else stops the
  /// run.
  bool stopNonFinite(const std::string &message, int64_t step);
  bool applyAutoFix(const rt::Diagnosis &diagnosis, int64_t step);
  /// After step `done`: the skipped-step counters; the message of a stop
  /// when a run of skipped steps must end the run, "" otherwise.
  std::string countSkipped(const rt::ScalerStats &stats, int64_t done);
  /// A periodic checkpoint that fails is reported and tried again at the
  /// next interval; the last good one stays (saves are atomic).
  void periodicCheckpoint(int64_t done);
  int finish();

  const Options &opt;
  std::unique_ptr<rt::Session> session;
  Feeds feeds;
  RunData data;
  AutoFix autoFix;
  bool fixApplied = false;
  int64_t start, totalSteps, batchesPerEpoch;
  ScalarOutputs scalars;
  Metrics metrics;
  Progress progress;
  std::unique_ptr<RangeRecorder> ranges;
  double floor;
  std::vector<int64_t> order;
  int64_t orderEpoch = -1;
  float loss = 0;
  int64_t skippedAtFloor = 0, skippedInARow = 0, lastSkipped, skippedAtStart;
  bool checkpointFailing = false;
  /// The loss scale the next step runs with (what a replay sets back):
  /// the previous step's statistics, so that no step reads it again.
  double scaleBefore;
};

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_TRAIN_H
