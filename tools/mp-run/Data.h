//===- Data.h - mp-run's training data: checks, order, batches --*- C++ -*-===//
//
// What mp-run feeds a plan, and everything it checks about it before the
// first step: every input and label of the plan matched by name to an
// array of the data set (Dataset.h), each array's dtype and sample shape,
// one sample count for all, integer values inside the range the plan
// indexes with (a cross-entropy's classes, an embedding table's rows), and
// non-finite values (named by entry, sample and position).
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_DATA_H
#define MP_TOOLS_MPRUN_DATA_H

#include "Dataset.h"

#include "mp/runtime/Session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mp::run {

/// One tensor mp-run feeds: an input or a label of the plan.
struct Feed {
  const rt::TensorInfo *info = nullptr;
  std::vector<int64_t> sampleShape; ///< the shape after the batch dimension
  int64_t sampleSize = 1;           ///< its element count
  /// An integer feed the plan indexes with: its values must lie in
  /// [0, limit) (0: no such range; the dtype's range applies).
  int64_t limit = 0;
  std::string limitWhat; ///< "the plan's classes", "the rows of ..."
  /// The cross-entropy's ignore_index, where it has one: a label value
  /// outside the range that the loss (and accuracy) skips.
  bool hasIgnore = false;
  int64_t ignore = 0;
};

/// Every input and label of a plan (inputs first, in plan order); all
/// share the batch size, their first dimension.
struct Feeds {
  std::vector<Feed> feeds;
  int64_t batch = 0;
  /// The integer label a sparse cross-entropy reads (an index into feeds,
  /// -1 when there is none) and its logits' class count: what evaluation
  /// compares the logits' argmax with.
  int label = -1;
  int64_t classes = 0;

  const Feed *find(const std::string &name) const;
  /// "'x' (input), 'y' (label)": for messages.
  std::string list() const;
};

/// The plan's feeds, or the error naming `what` (the plan file).
rt::StatusOr<Feeds> findFeeds(const rt::Session &session,
                              const std::string &what);

/// Checks `data` against the plan's feeds: an entry for every feed (and a
/// feed for every entry named on the command line), of the feed's kind
/// (floating point or integer) and sample shape (or flat samples of its
/// size), one sample count for all entries and at least one batch of
/// them, integers inside the feed's range and dtype, and, unless
/// `allowNonFinite`, no NaN or infinity. Every error names the entry, and
/// the sample and position where one is at fault. Returns the number of
/// samples.
rt::StatusOr<int64_t> checkData(const Dataset &data, const Feeds &feeds,
                                bool allowNonFinite);

/// The order of samples in `epoch`: a seeded shuffle of whole samples (the
/// same on every machine), so a resumed run sees the same batches as an
/// uninterrupted one; the file order without `shuffle`.
std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, int64_t epoch,
                                bool shuffle);

/// Copies the samples of batch `b` of `order` into every feed of the
/// session, in the plan's dtypes.
rt::Status feedBatch(rt::Session &session, const Feeds &feeds,
                     const Dataset &data, const std::vector<int64_t> &order,
                     int64_t b);

/// `samples` seeded samples for every feed: standard normal floats,
/// integers uniform in the feed's range (`classes` of them for the
/// cross-entropy's label when given, else at most 10), i1 as 0 or 1. An
/// error when the sizes exceed what mp-run makes (2^31 values).
rt::Status makeSynthetic(Dataset &data, const Feeds &feeds, int64_t samples,
                         int64_t classes, uint64_t seed);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_DATA_H
