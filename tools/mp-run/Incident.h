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

#include "mp/runtime/Replay.h"
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
/// diagnosis and the proposed recompile to stderr; returns the diagnosis
/// (its fix as data), or an error when the replay could not run.
rt::StatusOr<rt::Diagnosis> diagnoseIncident(rt::Session &session,
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

/// Checks, before the first step, that mp-compile takes fix.source with
/// fix.compileOptions (`mp-compile --check-only`): a wrong source or option
/// is found before training, not when a fix is needed.
rt::Status checkAutoFix(const AutoFix &fix);

/// Recompiles fix.source with fix.compileOptions plus the diagnosis' fix
/// (mp-compile --fix-deny / --fix-init-scale, which merge it into the
/// options) into fix.fixedPlan, creates a session of it on `backend`, and
/// moves `session`'s state into it: params, optimizer state, buffers and
/// the loss-scaler state by name (each must exist in both with one dtype
/// and shape; a fix of the initial scale starts the scaler there instead);
/// the step counters carry over.
rt::StatusOr<std::unique_ptr<rt::Session>>
applyFix(const rt::Session &session, const AutoFix &fix,
         const rt::Diagnosis &diagnosis, const std::string &backend);

} // namespace mp::run

#endif // MP_TOOLS_MPRUN_INCIDENT_H
