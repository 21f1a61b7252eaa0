//===- Data.h - mp-run's training data: checks, order, batches --*- C++ -*-===//
//
// What mp-run feeds a plan, and everything it checks about it before the
// first step: the plan's one input and one label, each file's sample size,
// non-finite values (named by file, sample and position), labels in the
// plan's class range (named by file and row).
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_DATA_H
#define MP_TOOLS_MPRUN_DATA_H

#include "Npy.h"

#include "mp/runtime/Session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mp::run {

/// The one input and the one label tensor of a plan, and its class count
/// (the logits' last dimension of its cross-entropy loss; 0 when it has
/// none).
struct Feeds {
  const rt::TensorInfo *input = nullptr, *label = nullptr;
  int64_t batch = 0, rowSize = 0;
  int64_t classes = 0;
};

/// The plan's feeds, or the error naming `what` (the plan file).
rt::StatusOr<Feeds> findFeeds(const rt::Session &session,
                              const std::string &what);

/// Checks a data set against the plan: float inputs of the plan's sample
/// size, one integer label per sample within [0, classes) and the label
/// dtype, at least one batch; and, unless `allowNonFinite`, no NaN or
/// infinity among the inputs. Every error names the file, and the sample
/// (row) and position where one is at fault.
rt::Status checkData(const Array &x, const Array &y, const Feeds &feeds,
                     const std::string &xPath, const std::string &yPath,
                     bool allowNonFinite);

/// The order of samples in `epoch`: a seeded shuffle (the same on every
/// machine), so a resumed run sees the same batches as an uninterrupted
/// one; the file order without `shuffle`.
std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, int64_t epoch,
                                bool shuffle);

/// Copies batch `b` of `order` into the session's input and label, in the
/// plan's dtypes.
rt::Status feedBatch(rt::Session &session, const Feeds &feeds, const Array &x,
                     const Array &y, const std::vector<int64_t> &order,
                     int64_t b);

/// Standard normal inputs and labels in [0, classes), seeded; an error
/// when `samples` x the sample size does not fit in memory's reach.
rt::Status makeSynthetic(Array &x, Array &y, const Feeds &feeds,
                         int64_t samples, int64_t classes, uint64_t seed);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_DATA_H
