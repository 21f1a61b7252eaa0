//===- Incident.h - mp-run's non-finite diagnosis ---------------*- C++ -*-===//
//
// When mp-run stops on a non-finite value (docs/mp-run.md, "When training
// goes non-finite"), it replays the failing step with a finiteness check
// after every kernel and prints which op went non-finite first, where in
// the user's code, with which precision decision, and the fix.
//
//===----------------------------------------------------------------------===//
#ifndef MP_TOOLS_MPRUN_INCIDENT_H
#define MP_TOOLS_MPRUN_INCIDENT_H

#include "mp/runtime/Session.h"

#include <memory>
#include <string>

namespace mp::run {

/// Replays the step that failed on `session`: its inputs still hold that
/// step's batch and its state the state before it (a skipped or failed
/// step changes none of it), except the loss scale, which is set back to
/// `scaleBefore` (> 0; the dynamic scale the step ran with) for the replay
/// and restored. `backend` is "same" (this session) or "reference" (a new
/// session on the reference backend with a copy of the state). Prints the
/// diagnosis and the proposed recompile to stderr; returns the proposal
/// ("" when there is none), or an error when the replay could not run.
rt::StatusOr<std::string> diagnoseIncident(rt::Session &session,
                                           const std::string &backend,
                                           double scaleBefore,
                                           const std::string &planPath);

/// --auto-fix: what recompiles the step.
struct AutoFix {
  std::string source;         ///< the step's MLIR (--source)
  std::string compileOptions; ///< its --mixed-precision options
  std::string compiler;       ///< mp-compile's path
  std::string fixedPlan;      ///< where the fixed plan goes
};

/// mp-compile's path: $MP_COMPILE, else next to this executable; "" when
/// neither exists.
std::string findCompiler();

/// Whether `proposal` is a pipeline option that --auto-fix can add (not an
/// edit of the step such as an mp.force).
bool isOptionProposal(const std::string &proposal);

/// Recompiles fix.source with fix.compileOptions plus `proposal` into
/// fix.fixedPlan, creates a session of it on `backend`, and moves
/// `session`'s state into it: params, optimizer state and buffers by name
/// (each must exist in both with one dtype and shape); the loss-scaler
/// state starts from the new plan's initial values (a proposal may change
/// them); the step counters carry over.
rt::StatusOr<std::unique_ptr<rt::Session>>
applyFix(const rt::Session &session, const AutoFix &fix,
         const std::string &proposal, const std::string &backend);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_INCIDENT_H
