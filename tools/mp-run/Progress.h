//===- Progress.h - mp-run's progress: logged intervals, the bar -*- C++
//-*-===//
//
// Each logged interval (--log-every steps, and the last step) gives its
// mean loss and examples per second: a line on stderr when it is no
// terminal (or with --plain), a record of the metrics file; on a terminal
// a bar redrawn at most every 0.1 s. docs/mp-run.md.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_PROGRESS_H
#define MP_TOOLS_MPRUN_PROGRESS_H

#include "Metrics.h"

#include "mp/runtime/Session.h"

#include <chrono>
#include <cstdint>

namespace mp::run {

class Progress {
public:
  /// Steps [start, totalSteps) of `batch` examples, an interval every
  /// `logEvery` steps; the bar where `terminal`.
  Progress(bool terminal, int64_t start, int64_t totalSteps, int64_t batch,
           int64_t logEvery);

  bool terminal() const { return terminal_; }
  /// No lines and no bar (a data-parallel run's ranks other than 0; the
  /// metrics still go where they go).
  void silence() { quiet_ = true; }
  /// Seconds since the run began.
  double seconds() const;

  /// A step's loss into the interval's mean.
  void add(float loss);
  /// The interval starts afresh now (the failing step before an --auto-fix
  /// is not averaged into the next line).
  void restart();
  /// After step `done` (its loss and the scaler's statistics): the
  /// interval's line and record where one ends, the bar. A record the
  /// metrics file cannot take is returned, before the bar is drawn.
  rt::Status stepDone(int64_t done, float loss, const rt::ScalerStats &stats,
                      rt::Session &session, const ScalarOutputs &scalars,
                      Metrics &metrics);

private:
  using Clock = std::chrono::steady_clock;
  bool terminal_;
  bool quiet_ = false;
  int64_t start, totalSteps, batch, logEvery;
  Clock::time_point began = Clock::now(), lastBar = began,
                    intervalBegan = began;
  int64_t intervalSteps = 0;
  double intervalLoss = 0;
};

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_PROGRESS_H
