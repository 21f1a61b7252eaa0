//===- Progress.cpp - mp-run's progress: logged intervals, the bar --------===//
#include "Progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mp;
using namespace mp::run;

Progress::Progress(bool terminal, int64_t start, int64_t totalSteps,
                   int64_t batch, int64_t logEvery)
    : terminal_(terminal), start(start), totalSteps(totalSteps), batch(batch),
      logEvery(logEvery) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(Clock::now() - began).count();
}

void Progress::add(float loss) {
  intervalLoss += loss;
  ++intervalSteps;
}

void Progress::restart() {
  intervalLoss = 0;
  intervalSteps = 0;
  intervalBegan = Clock::now();
}

rt::Status Progress::stepDone(int64_t done, float loss,
                              const rt::ScalerStats &stats,
                              rt::Session &session,
                              const ScalarOutputs &scalars, Metrics &metrics) {
  Clock::time_point now = Clock::now();
  if (done % logEvery == 0 || done == totalSteps) {
    double intervalSeconds =
        std::chrono::duration<double>(now - intervalBegan).count();
    double rate = intervalSteps * batch / std::max(intervalSeconds, 1e-9);
    double meanLoss = intervalLoss / intervalSteps;
    std::vector<double> values = scalars.read(session);
    rt::Status recorded =
        metrics.record("train", done, meanLoss, NAN, stats.scale,
                       stats.stepsSkipped, rate, values);
    if (!recorded.isOk())
      return recorded;
    if (!terminal_ && !quiet_)
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
  if (terminal_ && !quiet_ &&
      (std::chrono::duration<double>(now - lastBar).count() > 0.1 ||
       done == totalSteps)) {
    lastBar = now;
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
                 (done - start) * batch / std::max(total, 1e-9));
  }
  return rt::Status::ok();
}
