//===- Options.h - mp-run's command line ------------------------*- C++ -*-===//
#ifndef MP_TOOLS_MPRUN_OPTIONS_H
#define MP_TOOLS_MPRUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace mp::run {

struct Options {
  std::string plan;
  /// --data specs (Dataset.h); --train-x / --train-y name the plan's one
  /// input and one label.
  std::vector<std::string> data, evalData;
  std::string trainX, trainY;
  bool synthetic = false;
  int64_t syntheticSamples = 1024;
  /// 0: 10, or the plan's class count where it has fewer.
  int64_t classes = 0;
  int64_t steps = 0, epochs = 0;
  uint64_t seed = 0;
  bool shuffle = true;
  std::string evalPlan, testX, testY;
  int64_t evalEvery = 0;
  std::string initParams;
  std::string checkpoint;
  /// Not an option: set on ranks other than 0 of a ZeRO-1 job, which take
  /// part in every checkpoint (their shards gathered) but write none.
  bool checkpointGatherOnly = false;
  int64_t checkpointEvery = 0;
  std::string resume;
  bool resumeOtherPlan = false; ///< take a checkpoint of another plan
  bool allowNonFinite = false;  ///< train on NaN / inf inputs
  /// Stop after this many consecutive skipped steps with the loss scale at
  /// its floor (or static): the gradients are not finite even unscaled.
  int64_t maxSkippedAtFloor = 10;
  /// Stop after this many consecutive skipped steps, wherever the scale is
  /// (a loss scale falling step after step).
  int64_t maxSkipped = 50;
  /// When training stops on a non-finite value: replay the failing step
  /// with a check after every kernel on this backend ("same": the one
  /// training, "reference"), or not ("off"). docs/mp-run.md.
  std::string replay = "same";
  /// --ranges N: every N steps, the range of every tensor to rangesOut
  /// (JSON lines; Ranges.h). 0: never.
  /// --auto-fix: apply a pipeline-option proposal once by recompiling
  /// `source` (with `compileOptions`, default "policy=<the plan's>") and
  /// go on from the state before the failing step.
  bool autoFix = false;
  std::string source, compileOptions;
  int64_t rangesEvery = 0;
  std::string rangesOut = "ranges.jsonl";
  std::string metrics;
  int64_t logEvery = 50;
  int64_t threads = 0; ///< 0: the runtime's default
  std::string backend = "default";
  bool verbose = false;
  bool plainProgress = false;
  /// A data-parallel run's ranks other than 0: no progress (rank 0 speaks).
  bool quiet = false;
  bool stopOnNan = true;
  bool profile = false;
};

/// Parses argv; prints usage and exits on --help or on a bad option (with
/// a message naming it).
Options parseOptions(int argc, char **argv);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_OPTIONS_H
