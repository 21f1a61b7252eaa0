//===- Ranges.h - mp-run --ranges: headroom of every tensor -----*- C++ -*-===//
//
// Every N steps, the step is first replayed with a look at every kernel's
// float outputs (and the state and inputs it starts from): per tensor, the
// largest |x| and the fraction of values that would overflow or flush to 0
// in f16 and bf16, one JSON line per measured step. Steps in between run
// as usual; python/tools/plot_ranges.py draws the tensors closest to
// overflow over time (docs/mp-run.md).
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_RANGES_H
#define MP_TOOLS_MPRUN_RANGES_H

#include "mp/runtime/Session.h"

#include <cstdio>
#include <string>

namespace mp::run {

class RangeRecorder {
public:
  /// Opens `path` for writing (an error when it cannot be).
  static rt::StatusOr<RangeRecorder> open(const std::string &path);
  RangeRecorder(RangeRecorder &&other) noexcept : file_(other.file_) {
    other.file_ = nullptr;
  }
  RangeRecorder(const RangeRecorder &) = delete;
  ~RangeRecorder();

  /// Measures the step the session is about to run (its inputs bound) as
  /// step `step` (1-based, the step it completes) and writes its line.
  /// Changes no state.
  rt::Status record(rt::Session &session, int64_t step);

private:
  explicit RangeRecorder(std::FILE *file) : file_(file) {}
  std::FILE *file_ = nullptr;
};

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_RANGES_H
