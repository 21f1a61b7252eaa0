//===- Evaluate.h - mp-run's evaluation plan and its data -------*- C++ -*-===//
//
// --eval-plan: checked to be the evaluation plan of the trained model, fed
// the test split, run on the training session's current state.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_EVALUATE_H
#define MP_TOOLS_MPRUN_EVALUATE_H

#include "Data.h"

#include "mp/runtime/Session.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mp::run {

/// Runs the evaluation plan on the whole test set with the training
/// session's current state; returns {mean loss, accuracy}. Accuracy
/// compares the logits' argmax over their last dimension with the label
/// the plan's cross-entropy reads, position by position (a [batch] label
/// against [batch, classes] logits, a [batch, T] one against
/// [batch, T, classes]); NaN without such a label.
std::pair<double, double> evaluate(rt::Session &train, rt::Session &eval,
                                   const Feeds &feeds, const Dataset &data,
                                   int64_t samples);

/// Reads `specs` (--data or --eval-data) into `data`, and `x` / `y`
/// (--train-x / --train-y, or --test-x / --test-y: `flag`) as the arrays of
/// the plan's one input and one label.
void readData(Dataset &data, const Feeds &feeds,
              const std::vector<std::string> &specs, const std::string &x,
              const std::string &y, const std::string &flag);

/// Checks up front that `eval` is the evaluation plan of `train`'s model:
/// forward-only (it updates no state), every persistent tensor a twin of
/// one of the training plan's (name, dtype, shape), an output "logits".
void checkEvalPlan(const rt::Session &train, const rt::Session &eval,
                   const std::string &path);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_EVALUATE_H
